// add, sub, mul, div, divby, mod over numbers (`type` is the promoted type), and add/sub of a duration
// to a date-time.
import type { ArithmeticOperator } from '../../expression/index.js'
import type { BoundType } from '../bound-type.js'
import type { BoundExpression } from './bound-expression.js'

export interface BoundArithmetic {
  readonly kind: 'BoundArithmetic'
  readonly type: BoundType
  readonly operator: ArithmeticOperator
  readonly left: BoundExpression
  readonly right: BoundExpression
}

export const BoundArithmetic = Object.freeze({
  create(operator: ArithmeticOperator, left: BoundExpression, right: BoundExpression, type: BoundType): BoundArithmetic {
    return Object.freeze({ kind: 'BoundArithmetic', type, operator, left, right })
  },
})
