// ABNF isofExpr: `isof(Product, Model.Service)`, or `isof(Model.Service)` which tests the current instance.
import { freeze } from './freeze.js'
import type { CommonExpressionNode, ExpressionNode } from './expression-node.js'
import type { TypeReference } from './type-reference.js'

export interface IsOfNode {
  readonly kind: 'IsOfNode'
  readonly position: number
  /** Null in the one-argument form, which tests `$it`. */
  readonly operand: CommonExpressionNode | null
  readonly type: TypeReference
}

export const IsOfNode = freeze({
  is(node: ExpressionNode): node is IsOfNode {
    return node.kind === 'IsOfNode'
  },

  create(operand: CommonExpressionNode | null, type: TypeReference, position: number): IsOfNode {
    return freeze({ kind: 'IsOfNode', position, operand, type: freeze(type) })
  },
})
