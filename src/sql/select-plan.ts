// A SELECT statement as data: what the read pipeline (src/service/read) and the `$apply` transformations
// ask the compiler for. Conditions, values and orders are bound expressions; the FROM clause is a scope
// (a root range and its joins), so everything in it was checked against the model first.
import type { BoundExpression, BoundOrderItem, QueryScope } from '../odata/bind/index.js'

export interface SelectColumn {
  readonly expression: BoundExpression
  /** The name in the result (derived tables); columns of the read pipeline are read by position. */
  readonly alias?: string
}

export interface SelectPlan {
  readonly scope: QueryScope
  readonly columns: readonly SelectColumn[]
  /** Conditions, all of which must hold. */
  readonly where: readonly BoundExpression[]
  readonly groupBy?: readonly BoundExpression[]
  readonly orderBy?: readonly BoundOrderItem[]
  readonly limit?: number
  readonly offset?: number
}
