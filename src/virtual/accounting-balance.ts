// `Balance` of an accounting register (service.md §4.2, decisions.md §6): per group, `<R>Balance`
// (Dr − Cr) of the active entries with `Period < Period` (all without a Period), and the side it shows
// on, `<R>BalanceDr` / `<R>BalanceCr`, by the account's type (accounting-sides.ts). Groups are made of
// the account, the extra dimensions (of the kinds in ExtraDimensions, or the account's own) and the
// dimensions, by the rules of §4.2 rule 3; AccountCondition chooses accounts. Read from the totals
// (the all-time rows, or the months before plus the current month's movements: accumulation-parts.ts),
// so the cost follows the number of groups. Groups whose values are all zero are left out; grouped by
// nothing, one row.
import type { VirtualTableSignature } from '../model/virtual-tables.js'
import { balanceParts, combine } from './accumulation-parts.js'
import { checkAccountingArguments } from './accounting-arguments.js'
import { accountingGroupable, accountingTables, AccountingReader, bindSideCondition, withTypeColumns } from './accounting-reader.js'
import { balanceSideValue, fromAccountRows } from './accounting-sides.js'
import type { ConditionContext } from './condition.js'
import type { RegisterTables } from './register-tables.js'
import type { SqlRunner } from './sql-runner.js'
import { sql, type Statement } from '../sql/sql-template.js'
import type { VirtualTableArguments } from './virtual-table-arguments.js'
import type { VirtualTable, VirtualTableCall } from './virtual-table.js'

/** What the grouped accounting functions share: their groupable columns, argument checks and Condition. */
export function accountingGrouped(
  balanced: boolean,
): Pick<VirtualTable, 'grouped' | 'groupableColumns' | 'checkArguments' | 'bindCondition' | 'conditionColumns'> {
  const groupable = (tables: RegisterTables, args: VirtualTableArguments) => accountingGroupable(accountingTables(tables), args, balanced)
  const allowed = (args: VirtualTableArguments, tables: RegisterTables, periodColumns: readonly string[]) => [
    ...groupable(tables, args).filter((c) => c !== 'Account_Key' && c !== 'BalancedAccount_Key'),
    ...periodColumns,
  ]
  return {
    grouped: true,
    groupableColumns: groupable,
    checkArguments: (args: VirtualTableArguments, tables: RegisterTables) => checkAccountingArguments(args, accountingTables(tables)),
    conditionColumns: () => [],
    bindCondition: (
      text: string,
      args: VirtualTableArguments,
      tables: RegisterTables,
      context: ConditionContext,
      signature: VirtualTableSignature,
    ) => bindSideCondition(text, accountingTables(tables), signature, allowed(args, tables, movementColumns(args)), context),
  }
}

/** The recorder columns a periodicity fills, which a Condition may name (§4.2 rule 1). */
function movementColumns(args: VirtualTableArguments): string[] {
  if (args.periodicity === 'Recorder') return ['Period', 'Recorder', 'Recorder_Type']
  if (args.periodicity === 'Record' || args.periodicity === 'Auto') return ['Period', 'Recorder', 'Recorder_Type', 'LineNumber']
  return []
}

/** The columns the rows are made per: the result's groups and the account (for the sides of balances). */
export function perAccountGroup(call: VirtualTableCall, balanced: boolean): string[] {
  return accountingGroupable(accountingTables(call.tables), call.arguments, balanced).filter(
    (c) => c === 'Account_Key' || call.groupColumns.includes(c),
  )
}

export const accountingBalance: VirtualTable = {
  name: 'Balance',
  ...accountingGrouped(false),
  periodColumns: () => [],
  completeGrouping: (columns) => withTypeColumns(columns),
  async relation(call: VirtualTableCall, run: SqlRunner): Promise<Statement> {
    const reader = await AccountingReader.create(call, run, false)
    const tables = reader.tables
    const inner = perAccountGroup(call, false)
    const layout = {
      constants: [],
      group: inner,
      values: tables.resources.map((resource, i) => ({ name: `_b${i}`, resource, flow: 'net' as const })),
    }
    const parts = await balanceParts(reader, call.arguments.period, layout, run)
    const perAccount = combine(
      parts,
      inner,
      tables.resources.map((_, i) => ({ name: `_b${i}`, value: (v: (name: string) => Statement) => v(`_b${i}`) })),
      true,
    )
    const finals = tables.resources.flatMap((resource, i) => {
      const balance = (v: (name: string) => Statement) => sql`${v(`_b${i}`)}`
      return [
        { name: `${resource}Balance`, value: balance },
        {
          name: `${resource}BalanceDr`,
          value: (v: (name: string) => Statement) => balanceSideValue(tables, v('Account_Key'), balance(v), 'Dr'),
        },
        {
          name: `${resource}BalanceCr`,
          value: (v: (name: string) => Statement) => balanceSideValue(tables, v('Account_Key'), balance(v), 'Cr'),
        },
      ]
    })
    return fromAccountRows(perAccount, call.groupColumns, call.groupColumns.includes('Account_Key'), finals)
  },
}
