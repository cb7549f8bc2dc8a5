// `BalanceAndTurnovers` of an accounting register (service.md §4.2, §4.3, decisions.md §6): per group
// (and period, with a periodicity) the opening balance at StartPeriod (or the period's start), the Dr and
// Cr turnovers of the active entries with `StartPeriod ≤ Period ≤ EndPeriod`, and the closing balance;
// each balance also on its side by the account's type (accounting-sides.ts): `<R>OpeningBalance`,
// `…Dr`, `…Cr`, `<R>Turnover`, `…Dr`, `…Cr`, `<R>ClosingBalance`, `…Dr`, `…Cr`. Made like the
// accumulation registers' (balance-and-turnovers.ts), Dr in place of receipts and Cr of expenses.
//
// The rows are made per account and summed over accounts when the result does not group by the account;
// with a periodicity the account always groups (decided here: a period's opening is the running balance
// of the account's own periods, and an account idle in a period has no row there to sum).
import { AccountingReader, withTypeColumns } from './accounting-reader.js'
import { accountingGrouped, perAccountGroup } from './accounting-balance.js'
import { balanceSideValue, fromAccountRows } from './accounting-sides.js'
import { openingAndTurnovers, type V } from './balance-and-turnovers.js'
import { periodColumnsOf } from './period-columns.js'
import type { SqlRunner } from './sql-runner.js'
import { sql, type Statement } from '../sql/sql-template.js'
import type { VirtualTableArguments } from './virtual-table-arguments.js'
import type { VirtualTable, VirtualTableCall } from './virtual-table.js'

export const accountingBalanceAndTurnovers: VirtualTable = {
  name: 'BalanceAndTurnovers',
  ...accountingGrouped(false),
  periodColumns: (args: VirtualTableArguments) => periodColumnsOf(args.periodicity),
  completeGrouping: (columns, args) =>
    withTypeColumns(args.periodicity === undefined || columns.includes('Account_Key') ? columns : ['Account_Key', ...columns]),
  async relation(call: VirtualTableCall, run: SqlRunner): Promise<Statement> {
    const reader = await AccountingReader.create(call, run, false)
    const tables = reader.tables
    const inner = perAccountGroup(call, false)
    const raw = (_resource: string, i: number) => [
      { name: `_O${i}`, value: (v: V) => v(`_o${i}`) },
      { name: `_D${i}`, value: (v: V) => v(`_i${i}`) },
      { name: `_C${i}`, value: (v: V) => v(`_e${i}`) },
    ]
    const perAccount = await openingAndTurnovers(reader, tables.resources, call, inner, raw, run)
    const finals = tables.resources.flatMap((resource, i) => {
      const opening = (v: V) => v(`_O${i}`)
      const closing = (v: V) => sql`(${v(`_O${i}`)} + ${v(`_D${i}`)} - ${v(`_C${i}`)})`
      const sides = (name: string, balance: (v: V) => Statement) => [
        { name, value: balance },
        { name: `${name}Dr`, value: (v: V) => balanceSideValue(tables, v('Account_Key'), balance(v), 'Dr') },
        { name: `${name}Cr`, value: (v: V) => balanceSideValue(tables, v('Account_Key'), balance(v), 'Cr') },
      ]
      return [
        ...sides(`${resource}OpeningBalance`, opening),
        { name: `${resource}Turnover`, value: (v: V) => sql`(${v(`_D${i}`)} - ${v(`_C${i}`)})` },
        { name: `${resource}TurnoverDr`, value: (v: V) => v(`_D${i}`) },
        { name: `${resource}TurnoverCr`, value: (v: V) => v(`_C${i}`) },
        ...sides(`${resource}ClosingBalance`, closing),
      ]
    })
    return fromAccountRows(perAccount, [...call.periodColumns, ...call.groupColumns], call.groupColumns.includes('Account_Key'), finals)
  },
}
