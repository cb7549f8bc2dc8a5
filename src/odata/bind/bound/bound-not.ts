// `not` of a boolean operand.
import type { BoundExpression } from './bound-expression.js'

export interface BoundNot {
  readonly kind: 'BoundNot'
  readonly type: 'Edm.Boolean'
  readonly operand: BoundExpression
}

export const BoundNot = Object.freeze({
  create(operand: BoundExpression): BoundNot {
    return Object.freeze({ kind: 'BoundNot', type: 'Edm.Boolean', operand })
  },
})
