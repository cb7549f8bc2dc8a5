// ABNF castExpr: `cast(Amount, Edm.Int64)`, or `cast(Edm.String)` which casts the current instance.
import { freeze } from './freeze.js'
import type { CommonExpressionNode, ExpressionNode } from './expression-node.js'
import type { TypeReference } from './type-reference.js'

export interface CastNode {
  readonly kind: 'CastNode'
  readonly position: number
  /** Null in the one-argument form, which casts `$it`. */
  readonly operand: CommonExpressionNode | null
  readonly type: TypeReference
}

export const CastNode = freeze({
  is(node: ExpressionNode): node is CastNode {
    return node.kind === 'CastNode'
  },

  create(operand: CommonExpressionNode | null, type: TypeReference, position: number): CastNode {
    return freeze({ kind: 'CastNode', position, operand, type: freeze(type) })
  },
})
