// The value of one column of a range's current row: `Quantity`, or `Description` of the product joined
// for `Product/Description`.
import type { BoundType } from '../bound-type.js'
import type { Range } from '../range.js'
import type { SourceColumn } from '../queryable-source.js'

export interface BoundProperty {
  readonly kind: 'BoundProperty'
  readonly type: BoundType
  readonly range: Range
  readonly column: SourceColumn
}

export const BoundProperty = Object.freeze({
  create(range: Range, column: SourceColumn): BoundProperty {
    return Object.freeze({ kind: 'BoundProperty', type: column.type, range, column })
  },
})
