// The SELECT list of a read, built up by everyone who needs a value from each row: the `$select`ed
// properties, the keys `$expand` looks up, the order values a paging token carries. Each asks for an
// expression and gets its position in the row; the same column asked for twice is selected once.
import type { BoundExpression, Range, SourceColumn } from '../../odata/bind/index.js'
import { BoundProperty } from '../../odata/bind/index.js'
import type { SelectColumn } from '../../sql/select-plan.js'

export class Projection {
  readonly columns: SelectColumn[] = []
  private readonly columnPositions = new Map<Range, Map<SourceColumn, number>>()

  /** The position of `expression` in the row, adding it to the SELECT list if needed. */
  add(expression: BoundExpression): number {
    if (expression.kind === 'BoundProperty') return this.addColumn(expression.range, expression.column)
    this.columns.push({ expression })
    return this.columns.length - 1
  }

  addColumn(range: Range, column: SourceColumn): number {
    let positions = this.columnPositions.get(range)
    if (!positions) this.columnPositions.set(range, (positions = new Map()))
    let position = positions.get(column)
    if (position === undefined) {
      this.columns.push({ expression: BoundProperty.create(range, column) })
      position = this.columns.length - 1
      positions.set(column, position)
    }
    return position
  }
}

/** Rows from mysql2 with `rowsAsArray`. */
export type Row = readonly unknown[]

/** A stable text key for a tuple of stored values (GUIDs, numbers, strings). */
export function tupleKey(values: readonly unknown[]): string {
  if (values.length === 1) return String(values[0])
  let key = ''
  for (let i = 0; i < values.length; i++) key += (i === 0 ? '' : '\u0000') + String(values[i])
  return key
}
