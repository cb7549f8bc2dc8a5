// cast(value, Edm.X) between primitive types; `type` is the target.
import type { BoundType } from '../bound-type.js'
import type { BoundExpression } from './bound-expression.js'

export interface BoundCast {
  readonly kind: 'BoundCast'
  readonly type: BoundType
  readonly operand: BoundExpression
}

export const BoundCast = Object.freeze({
  create(operand: BoundExpression, type: BoundType): BoundCast {
    return Object.freeze({ kind: 'BoundCast', type, operand })
  },
})
