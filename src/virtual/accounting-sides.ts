// On which side an accounting balance shows (decisions.md §6, as in the reference system): an active
// account's balance is a debit balance (negative when it is overdrawn), a passive account's a credit
// balance, and an active-passive account's is on the side its sign says, per row — so with extra
// dimensions in the grouping, per extra-dimension value (a detailed balance). The account types come
// from the configuration's chart of accounts, so the CASE is made from the model.
//
// A balance whose rows do not name the account (`Balance()?$select=AmountBalanceDr`) is the sum over
// the accounts of each account's own sides: the rows are made per account first and summed after.
import { column, id, join, raw, sql, type Statement } from '../sql/sql-template.js'
import { inAccounts } from './accounting-arguments.js'
import type { AccountingTables } from './register-tables.js'

/** The Dr or Cr side of a balance `balance` (Dr − Cr) of the account in `account`. */
export function balanceSideValue(tables: AccountingTables, account: Statement, balance: Statement, which: 'Dr' | 'Cr'): Statement {
  const keysOf = (type: string) => tables.accounts.filter((a) => a.type === type).map((a) => a.key)
  const active = keysOf('Active')
  const passive = keysOf('Passive')
  const whens = [
    ...(active.length > 0 ? [sql`WHEN ${inAccounts(account, active)} THEN ${which === 'Dr' ? balance : raw('0')}`] : []),
    ...(passive.length > 0 ? [sql`WHEN ${inAccounts(account, passive)} THEN ${which === 'Dr' ? raw('0') : sql`-${balance}`}`] : []),
  ]
  const detailed = which === 'Dr' ? sql`GREATEST(${balance}, 0)` : sql`GREATEST(-${balance}, 0)`
  return whens.length === 0 ? detailed : sql`CASE ${join(whens, ' ')} ELSE ${detailed} END`
}

export interface FinalColumn {
  readonly name: string
  /** The value from a row of the per-account rows, whose columns are read with `v`. */
  readonly value: (v: (name: string) => Statement) => Statement
}

/**
 * The result from rows made per account (`perAccount`, whose group columns are `inner`): the finals per
 * row when the result groups by the account too, otherwise summed per group of the result (one row, the
 * total, when it groups by nothing). Groups whose values are all zero are left out.
 */
export function fromAccountRows(
  perAccount: Statement,
  keys: readonly string[],
  accountGrouped: boolean,
  finals: readonly FinalColumn[],
): Statement {
  const G = 'g'
  const v = (name: string) => column(G, name)
  const keyItems = keys.map((key) => column(G, key))
  if (accountGrouped)
    return sql`SELECT ${join([...keyItems, ...finals.map((f) => sql`${f.value(v)} AS ${id(f.name)}`)])} FROM (${perAccount}) AS ${raw(G)}`
  if (keys.length === 0)
    return sql`SELECT ${join(finals.map((f) => sql`COALESCE(SUM(${f.value(v)}), 0) AS ${id(f.name)}`))} FROM (${perAccount}) AS ${raw(G)}`
  const summed = finals.map((f) => sql`SUM(${f.value(v)})`)
  return sql`SELECT ${join([...keyItems, ...summed.map((s, i) => sql`${s} AS ${id(finals[i]!.name)}`)])} FROM (${perAccount}) AS ${raw(G)} GROUP BY ${join(keyItems)} HAVING ${join(
    summed.map((s) => sql`${s} <> 0`),
    ' OR ',
  )}`
}
