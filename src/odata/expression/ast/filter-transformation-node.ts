// ABNF filterTrafo: `filter(Quantity gt 0)`.
import { freeze } from './freeze.js'
import type { CommonExpressionNode, ExpressionNode } from './expression-node.js'

export interface FilterTransformationNode {
  readonly kind: 'FilterTransformationNode'
  readonly position: number
  readonly predicate: CommonExpressionNode
}

export const FilterTransformationNode = freeze({
  is(node: ExpressionNode): node is FilterTransformationNode {
    return node.kind === 'FilterTransformationNode'
  },

  create(predicate: CommonExpressionNode, position: number): FilterTransformationNode {
    return freeze({ kind: 'FilterTransformationNode', position, predicate })
  },
})
