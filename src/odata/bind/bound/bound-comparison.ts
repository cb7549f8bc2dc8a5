// eq, ne, gt, ge, lt, le between two comparable values (bound-type.ts: comparable). A comparison with
// the null literal is compiled as IS [NOT] NULL.
import type { ComparisonOperator } from '../../expression/index.js'
import type { BoundExpression } from './bound-expression.js'

export interface BoundComparison {
  readonly kind: 'BoundComparison'
  readonly type: 'Edm.Boolean'
  readonly operator: ComparisonOperator
  readonly left: BoundExpression
  readonly right: BoundExpression
}

export const BoundComparison = Object.freeze({
  create(operator: ComparisonOperator, left: BoundExpression, right: BoundExpression): BoundComparison {
    return Object.freeze({ kind: 'BoundComparison', type: 'Edm.Boolean', operator, left, right })
  },
})
