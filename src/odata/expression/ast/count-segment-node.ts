// The `$count` segment of a collection path (ABNF collectionPathExpr: count [ OPEN expandCountOption CLOSE ]),
// optionally with a filter on the counted members: `Goods/$count($filter=Quantity gt 5) gt 2`.
import { freeze } from './freeze.js'
import type { CommonExpressionNode, ExpressionNode } from './expression-node.js'

export interface CountSegmentNode {
  readonly kind: 'CountSegmentNode'
  readonly position: number
  /** The `$filter` inside `$count(…)`, or null. */
  readonly filter: CommonExpressionNode | null
}

export const CountSegmentNode = freeze({
  is(node: ExpressionNode): node is CountSegmentNode {
    return node.kind === 'CountSegmentNode'
  },

  create(filter: CommonExpressionNode | null, position: number): CountSegmentNode {
    return freeze({ kind: 'CountSegmentNode', position, filter })
  },
})
