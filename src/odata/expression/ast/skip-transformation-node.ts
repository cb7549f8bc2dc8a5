// ABNF skipTrafo: `skip(5)`, all but the first n instances of the input set.
import { freeze } from './freeze.js'
import type { ExpressionNode } from './expression-node.js'

export interface SkipTransformationNode {
  readonly kind: 'SkipTransformationNode'
  readonly position: number
  readonly count: number
}

export const SkipTransformationNode = freeze({
  is(node: ExpressionNode): node is SkipTransformationNode {
    return node.kind === 'SkipTransformationNode'
  },

  create(count: number, position: number): SkipTransformationNode {
    return freeze({ kind: 'SkipTransformationNode', position, count })
  },
})
