// ABNF topTrafo: `top(5)`, the first n instances of the input set.
import { freeze } from './freeze.js'
import type { ExpressionNode } from './expression-node.js'

export interface TopTransformationNode {
  readonly kind: 'TopTransformationNode'
  readonly position: number
  readonly count: number
}

export const TopTransformationNode = freeze({
  is(node: ExpressionNode): node is TopTransformationNode {
    return node.kind === 'TopTransformationNode'
  },

  create(count: number, position: number): TopTransformationNode {
    return freeze({ kind: 'TopTransformationNode', position, count })
  },
})
