// An aggregation over the rows of a group (`Amount with sum`, `$count`): only in the output columns of
// an aggregate transformation (and in the COUNT(*) of `$count`). `operand` is null for counting rows.
import type { AggregateMethod } from '../../expression/index.js'
import type { BoundType } from '../bound-type.js'
import type { BoundExpression } from './bound-expression.js'

export type BoundAggregateMethod = AggregateMethod | 'count'

export interface BoundAggregate {
  readonly kind: 'BoundAggregate'
  readonly type: BoundType
  readonly method: BoundAggregateMethod
  readonly operand: BoundExpression | null
}

export const BoundAggregate = Object.freeze({
  create(method: BoundAggregateMethod, operand: BoundExpression | null, type: BoundType): BoundAggregate {
    return Object.freeze({ kind: 'BoundAggregate', type, method, operand })
  },
  COUNT_ROWS: Object.freeze({ kind: 'BoundAggregate', type: 'Edm.Int64', method: 'count', operand: null }) as BoundAggregate,
})
