// `and`, `or` over boolean operands.
import type { LogicalOperator } from '../../expression/index.js'
import type { BoundExpression } from './bound-expression.js'

export interface BoundLogical {
  readonly kind: 'BoundLogical'
  readonly type: 'Edm.Boolean'
  readonly operator: LogicalOperator
  readonly left: BoundExpression
  readonly right: BoundExpression
}

export const BoundLogical = Object.freeze({
  create(operator: LogicalOperator, left: BoundExpression, right: BoundExpression): BoundLogical {
    return Object.freeze({ kind: 'BoundLogical', type: 'Edm.Boolean', operator, left, right })
  },
  /** The conjunction of the items (TRUE when there are none). */
  all(items: readonly BoundExpression[], truth: BoundExpression): BoundExpression {
    return items.length === 0 ? truth : items.reduce((left, right) => BoundLogical.create('and', left, right))
  },
  /** The disjunction of the items (FALSE when there are none). */
  any(items: readonly BoundExpression[], falsehood: BoundExpression): BoundExpression {
    return items.length === 0 ? falsehood : items.reduce((left, right) => BoundLogical.create('or', left, right))
  },
})
