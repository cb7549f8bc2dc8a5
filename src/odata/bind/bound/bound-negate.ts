// Unary minus of a number.
import type { BoundType } from '../bound-type.js'
import type { BoundExpression } from './bound-expression.js'

export interface BoundNegate {
  readonly kind: 'BoundNegate'
  readonly type: BoundType
  readonly operand: BoundExpression
}

export const BoundNegate = Object.freeze({
  create(operand: BoundExpression): BoundNegate {
    return Object.freeze({ kind: 'BoundNegate', type: operand.type, operand })
  },
})
