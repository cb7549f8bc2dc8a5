// `Turnovers` of an accounting register (service.md §4.2, §4.3, decisions.md §6): per period and group,
// `<R>TurnoverDr` and `<R>TurnoverCr` of the active entries with `StartPeriod ≤ Period ≤ EndPeriod` and
// `<R>Turnover` (Dr − Cr). Groups may hold the corresponding account (`BalancedAccount_Key`) and its
// extra dimensions (of the kinds in BalancedExtraDimensions): the entries that debit the account and
// credit the corresponding one count as Dr, the others as Cr. A balanced resource (`Amount`) counts its
// one value on both sides, a non-balanced one (`Quantity`) its `QuantityDr` on the debit side and its
// `QuantityCr` on the credit side. Whole months come from the totals when nothing corresponding is asked
// for and the periodicity is aligned to months (accumulation-parts.ts).
import { combine, turnoverParts } from './accumulation-parts.js'
import { AccountingReader, withTypeColumns } from './accounting-reader.js'
import { accountingGrouped } from './accounting-balance.js'
import { periodColumnsOf } from './period-columns.js'
import type { SqlRunner } from './sql-runner.js'
import { sql, type Statement } from '../sql/sql-template.js'
import { periodKeys } from './turnovers.js'
import type { VirtualTableArguments } from './virtual-table-arguments.js'
import type { VirtualTable, VirtualTableCall } from './virtual-table.js'

type V = (name: string) => Statement

/** The call reads the corresponding side: it groups by it, or a condition names it. */
function readsCorrespondence(call: VirtualTableCall): boolean {
  return (
    call.groupColumns.some((c) => c.startsWith('Balanced')) ||
    call.arguments.conditions.has('BalancedAccountCondition') ||
    [...(call.condition?.columns ?? [])].some((c) => c.startsWith('Balanced'))
  )
}

export const accountingTurnovers: VirtualTable = {
  name: 'Turnovers',
  ...accountingGrouped(true),
  periodColumns: (args: VirtualTableArguments) => periodColumnsOf(args.periodicity),
  completeGrouping: (columns) => withTypeColumns(columns),
  async relation(call: VirtualTableCall, run: SqlRunner): Promise<Statement> {
    const reader = await AccountingReader.create(call, run, readsCorrespondence(call))
    const resources = reader.tables.resources
    const values = resources.flatMap((resource, i) => [
      { name: `_i${i}`, resource, flow: 'receipt' as const },
      { name: `_e${i}`, resource, flow: 'expense' as const },
    ])
    const parts = turnoverParts(
      reader,
      call.arguments.startPeriod,
      call.arguments.endPeriod,
      { constants: [], group: call.groupColumns, values },
      periodKeys(call),
    )
    const finals = resources.flatMap((resource, i) => [
      { name: `${resource}Turnover`, value: (v: V) => sql`(${v(`_i${i}`)} - ${v(`_e${i}`)})` },
      { name: `${resource}TurnoverDr`, value: (v: V) => v(`_i${i}`) },
      { name: `${resource}TurnoverCr`, value: (v: V) => v(`_e${i}`) },
    ])
    return combine(parts, [...call.periodColumns, ...call.groupColumns], finals, true)
  },
}
