// The rows of a virtual-table call as a queryable source (src/odata/bind/queryable-source.ts): a
// `derived` relation (the implementation's SQL and its own parameters) with the result columns the call
// fills. The binder and the compiler then treat it like any other source, so every query option of a
// collection read applies to the result. A filled reference column (`Warehouse_Key`) is navigable
// (`$expand=Warehouse`, `Warehouse/Code` in `$filter`), as `$metadata` declares.
//
// Every column may be NULL here (the csdl's result types say so): an opening-only row of
// BalanceAndTurnovers has no recorder, and paging must know that.
//
// Row key and default order: the grouping key, period columns first (decisions.md §6); for slices, the
// register's key (Period and dimensions).
import { columnMap, type QueryableSource, type SourceColumn, type SourceNavigation } from '../odata/bind/index.js'
import type { Statement } from '../sql/sql-template.js'
import type { VirtualTable, VirtualTableCall } from './virtual-table.js'

export function resultSource(call: VirtualTableCall, relation: Statement, table: VirtualTable): QueryableSource {
  const grouped = table.grouped
  const filled = new Set([...call.periodColumns, ...call.groupColumns, ...call.valueColumns])
  const columns: SourceColumn[] = call.signature.resultProperties
    .filter((property) => filled.has(property.name))
    .map((property) =>
      Object.freeze({
        name: property.name,
        property: Object.freeze({ ...property, nullable: true }),
        type: property.edmType,
        sqlName: property.name,
        surrogate: false,
      }),
    )
  const byName = columnMap(columns)
  const navigations = new Map<string, SourceNavigation>()
  for (const column of columns) {
    const reference = column.property.reference
    if (reference)
      navigations.set(
        reference.navigation,
        Object.freeze({ kind: 'reference', name: reference.navigation, targetSet: reference.targetSet, foreignKey: column }),
      )
  }
  const keyNames = grouped ? [...call.periodColumns, ...call.groupColumns] : (table.rowKey?.(call) ?? call.register.key.map((k) => k.name))
  const rowKey = keyNames.map((name) => byName.get(name)!).filter((column) => column !== undefined)
  return Object.freeze({
    name: call.signature.resultType,
    relation: { kind: 'derived' as const, statement: relation },
    columns,
    columnByName: byName,
    navigationByName: navigations,
    rowKey,
    ordering: rowKey.map((column) => ({ column, descending: false })),
    entitySet: call.signature.resultIsEntity ? call.register : undefined,
  })
}
