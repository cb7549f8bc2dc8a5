// The `$apply` transformations, bound. Each is the relation of a new source whose input is a scope over
// the previous source (queryable-source.ts, relation kind 'transformed'); the compiler turns each into a
// derived table. Filter, compute, orderby, top and skip keep the rows' identity; aggregate (with or
// without groupby) makes one row per group.
import type { BoundExpression } from './bound-expression.js'
import type { BoundOrderItem } from './bound-order-item.js'
import type { SourceColumn } from '../queryable-source.js'

/** An output column of a transformation and the expression (over the input scope) that fills it. */
export interface BoundOutputColumn {
  readonly column: SourceColumn
  readonly expression: BoundExpression
}

/** filter(…): the input rows for which the predicate is true. */
export interface BoundFilterTransformation {
  readonly kind: 'filter'
  readonly columns: readonly BoundOutputColumn[]
  readonly predicate: BoundExpression
}

/** compute(…): the input rows with more columns. */
export interface BoundComputeTransformation {
  readonly kind: 'compute'
  readonly columns: readonly BoundOutputColumn[]
}

/** groupby((…),aggregate(…)), groupby((…)) and aggregate(…): one row per group. */
export interface BoundAggregateTransformation {
  readonly kind: 'aggregate'
  readonly columns: readonly BoundOutputColumn[]
  /** The grouping expressions (also among `columns`). */
  readonly groupBy: readonly BoundExpression[]
}

/** orderby(…), top(n), skip(n): the input rows in an order, or a slice of them in the input's order. */
export interface BoundSliceTransformation {
  readonly kind: 'slice'
  readonly columns: readonly BoundOutputColumn[]
  readonly orderBy: readonly BoundOrderItem[]
  readonly top: number | undefined
  readonly skip: number | undefined
}

export type BoundTransformation =
  | BoundFilterTransformation
  | BoundComputeTransformation
  | BoundAggregateTransformation
  | BoundSliceTransformation
