// One `$orderby` item (or `orderby()` transformation item), bound.
import type { BoundExpression } from './bound-expression.js'

export interface BoundOrderItem {
  readonly expression: BoundExpression
  readonly descending: boolean
}
