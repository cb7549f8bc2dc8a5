// `Goods/any(g: g/Quantity gt 5)` and `all(…)`: a correlated subquery over the members of a collection
// navigation. `members` is the subquery's scope (its root range is the lambda variable); a null
// predicate is `any()`, "the collection is not empty".
import type { LambdaOperator } from '../../expression/index.js'
import type { QueryScope } from '../query-scope.js'
import type { BoundExpression } from './bound-expression.js'

export interface BoundLambda {
  readonly kind: 'BoundLambda'
  readonly type: 'Edm.Boolean'
  readonly operator: LambdaOperator
  readonly members: QueryScope
  readonly predicate: BoundExpression | null
}

export const BoundLambda = Object.freeze({
  create(operator: LambdaOperator, members: QueryScope, predicate: BoundExpression | null): BoundLambda {
    return Object.freeze({ kind: 'BoundLambda', type: 'Edm.Boolean', operator, members, predicate })
  },
})
