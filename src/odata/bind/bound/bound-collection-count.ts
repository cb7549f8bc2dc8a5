// `Goods/$count` (optionally `Goods/$count($filter=…)`): the number of members of a collection
// navigation, a correlated COUNT subquery.
import type { QueryScope } from '../query-scope.js'
import type { BoundExpression } from './bound-expression.js'

export interface BoundCollectionCount {
  readonly kind: 'BoundCollectionCount'
  readonly type: 'Edm.Int64'
  readonly members: QueryScope
  readonly filter: BoundExpression | null
}

export const BoundCollectionCount = Object.freeze({
  create(members: QueryScope, filter: BoundExpression | null): BoundCollectionCount {
    return Object.freeze({ kind: 'BoundCollectionCount', type: 'Edm.Int64', members, filter })
  },
})
