// `Turnovers` of an accumulation register (service.md §4.2, §4.3, decisions.md §6): per period and group,
// the receipts, expenses and turnover (receipt − expense) of the active movements with
// `StartPeriod ≤ Period ≤ EndPeriod` (either bound optional) for the Balance kind; the plain sum as
// `<R>Turnover` for the Turnovers kind. The periodicity fills its period columns (period-columns.ts),
// the first period clamped to StartPeriod. Whole months come from the totals when the periodicity is
// aligned to months (accumulation-parts.ts). Groups whose values are all zero are left out.
import type { VirtualTableArguments } from './virtual-table-arguments.js'
import { AccumulationReader, combine, turnoverParts, type PartKey, type PartValue } from './accumulation-parts.js'
import { alignedToMonths, movementColumnsFilledBy, periodColumnsOf, periodValue } from './period-columns.js'
import type { RegisterTables } from './register-tables.js'
import { column, sql, type Statement } from '../sql/sql-template.js'
import type { VirtualTable, VirtualTableCall } from './virtual-table.js'

/** The period columns' values per movement, and per totals month when the periodicity allows it. */
export function periodKeys(call: VirtualTableCall): (on: 'movements' | 'totals') => readonly PartKey[] | undefined {
  const start = call.arguments.startPeriod
  return (on) => {
    if (on === 'totals' && !alignedToMonths(call.arguments.periodicity)) return undefined
    return call.periodColumns.map((name) => ({ name, value: periodValue(name, column('m', 'Period').text, 'm', start) }))
  }
}

/** The turnover values of a part: receipts and expenses (Balance kind) or the plain sum, per resource. */
export function turnoverValues(reader: AccumulationReader): PartValue[] {
  return reader.tables.resources.flatMap((resource, i): PartValue[] =>
    reader.balanceKind
      ? [
          { name: `_i${i}`, resource, flow: 'receipt' as const },
          { name: `_e${i}`, resource, flow: 'expense' as const },
        ]
      : [{ name: `_i${i}`, resource, flow: 'net' as const }],
  )
}

export const turnovers: VirtualTable = {
  name: 'Turnovers',
  grouped: true,
  groupableColumns: (tables: RegisterTables) => tables.dimensions,
  periodColumns: (args: VirtualTableArguments) => periodColumnsOf(args.periodicity),
  conditionColumns: (args: VirtualTableArguments) => movementColumnsFilledBy(args.periodicity),
  async relation(call: VirtualTableCall): Promise<Statement> {
    const reader = new AccumulationReader(call)
    const layout = { constants: [], group: call.groupColumns, values: turnoverValues(reader) }
    const parts = turnoverParts(reader, call.arguments.startPeriod, call.arguments.endPeriod, layout, periodKeys(call))
    type V = (name: string) => Statement
    const finals = reader.tables.resources.flatMap((resource, i) =>
      reader.balanceKind
        ? [
            { name: `${resource}Receipt`, value: (v: V) => v(`_i${i}`) },
            { name: `${resource}Expense`, value: (v: V) => v(`_e${i}`) },
            { name: `${resource}Turnover`, value: (v: V) => sql`(${v(`_i${i}`)} - ${v(`_e${i}`)})` },
          ]
        : [{ name: `${resource}Turnover`, value: (v: V) => v(`_i${i}`) }],
    )
    return combine(parts, [...call.periodColumns, ...call.groupColumns], finals, true)
  },
}
