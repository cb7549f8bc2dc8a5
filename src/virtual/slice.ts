// The slices of a periodic information register (service.md §4.2, decisions.md §6), shared by SliceLast
// and SliceFirst: per combination of dimensions, the record with the greatest `Period ≤ Period`
// (SliceLast) or the least `Period ≥ Period` (SliceFirst); without Period, the latest or the earliest.
// Rows are register records (the register's own entity type), not groups: $select, $filter and the
// other options only choose and order them.
//
// `Dimensions` names the dimensions the slice is taken over (decided here: decisions.md §6 does not say):
// per combination of those, the records at the latest (earliest) period; without it, all dimensions, one
// record per combination. The Condition filters the records before the slice is taken and may name the
// dimensions and Period, not a resource (§4.2 rule 1).
//
// SQL: the greatest (least) period per combination, joined back to the records on the combination and
// the period — the primary key (dimensions…, Period) serves both sides.
import type { InformationTables, RegisterTables } from './register-tables.js'
import { column, id, join, raw, sql, type Statement } from '../sql/sql-template.js'
import type { VirtualTable, VirtualTableCall } from './virtual-table.js'

export function sliceTable(name: 'SliceLast' | 'SliceFirst'): VirtualTable {
  const last = name === 'SliceLast'
  return {
    name,
    grouped: false,
    groupableColumns: (tables: RegisterTables) => tables.dimensions,
    periodColumns: () => ['Period'],
    conditionColumns: (_args, tables: RegisterTables) => [
      'Period',
      ...tables.records.properties.filter((p) => p.role === 'attribute').map((p) => p.name),
    ],
    async relation(call: VirtualTableCall): Promise<Statement> {
      const tables = call.tables as InformationTables
      const over = call.arguments.dimensions ?? tables.dimensions
      const columns = tables.records.properties.map((p) => p.column)
      const records = () =>
        call.condition === undefined ? id(tables.records.table) : sql`(${call.condition.over(tables.records.table, columns)})`
      const period = call.arguments.period
      const bound = period === undefined ? raw('') : sql` WHERE ${column('s', 'Period')} ${raw(last ? '<=' : '>=')} ${period}`
      const grouping = over.length === 0 ? raw('') : sql` GROUP BY ${join(over.map((d) => column('s', d)))}`
      const chosen = sql`SELECT ${join([...over.map((d) => column('s', d)), sql`${raw(last ? 'MAX' : 'MIN')}(${column('s', 'Period')}) AS ${id('_p')}`])} FROM ${records()} AS s${bound}${grouping}`
      const on = join(
        [...over.map((d) => sql`${column('r', d)} = ${column('c', d)}`), sql`${column('r', 'Period')} = ${column('c', '_p')}`],
        ' AND ',
      )
      return sql`SELECT ${join(columns.map((c) => column('r', c)))} FROM ${records()} AS r JOIN (${chosen}) AS c ON ${on}`
    },
  }
}
