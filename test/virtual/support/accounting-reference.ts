// The accounting virtual tables computed in plain TypeScript from the entries, the reference the
// accounting property test holds the service to. Written from decisions.md §6 and the modules' headers:
// an entry is two sides — the debit side counts its value as Dr for the debited account with its extra
// dimensions, the credit side as Cr for the credited one — so the sides are movements of the plain
// reference (reference.ts) with Dr as receipts and Cr as expenses; a balance is Dr − Cr, shown on a side
// by the account's type, per account, then summed over the accounts a row does not name.
import type { Periodicity } from '../../../src/model/virtual-tables.js'
import * as reference from './reference.js'

export interface EntrySideValue {
  readonly account: string
  /** Values of positions 1.. of the account's extra dimensions, with their types. */
  readonly ext: readonly { readonly value: string; readonly type: string }[]
}

export interface RandomEntry {
  readonly recorder: string
  readonly recorderType: string
  readonly line: number
  readonly period: string
  readonly active: boolean
  readonly dr: EntrySideValue
  readonly cr: EntrySideValue
  readonly organization: string
  /** In thousandths. */
  readonly amount: number
  readonly quantityDr: number
  readonly quantityCr: number
}

export interface ChartView {
  /** Account key → type and kinds of its extra dimensions, in order. */
  readonly accounts: ReadonlyMap<string, { readonly type: 'Active' | 'Passive' | 'ActivePassive'; readonly kinds: readonly string[] }>
  readonly maxExt: number
}

const EMPTY = '00000000-0000-0000-0000-000000000000'

/** The extra-dimension columns of a side: by position, or by the kinds chosen. */
function extColumns(
  prefix: '' | 'Balanced',
  chart: ChartView,
  side: EntrySideValue,
  kinds: readonly string[] | undefined,
): Record<string, string> {
  const columns: Record<string, string> = {}
  const count = kinds === undefined ? chart.maxExt : kinds.length
  for (let j = 0; j < count; j++) {
    const position = kinds === undefined ? j : chart.accounts.get(side.account)!.kinds.indexOf(kinds[j]!)
    const value = position < 0 ? undefined : side.ext[position]
    columns[`${prefix}ExtDimension${j + 1}`] = value?.value ?? EMPTY
    columns[`${prefix}ExtDimension${j + 1}_Type`] = value?.type ?? ''
  }
  return columns
}

/** Both sides of every entry as movements: Dr as receipts, Cr as expenses, resources Amount and Quantity. */
export function sides(
  entries: readonly RandomEntry[],
  chart: ChartView,
  kinds: readonly string[] | undefined,
  balancedKinds: readonly string[] | undefined,
): reference.Movement[] {
  return entries.flatMap((e) =>
    (['Dr', 'Cr'] as const).map((s) => {
      const own = s === 'Dr' ? e.dr : e.cr
      const other = s === 'Dr' ? e.cr : e.dr
      return {
        recorder: e.recorder,
        recorderType: e.recorderType,
        line: e.line,
        period: e.period,
        active: e.active,
        recordType: s === 'Dr' ? ('Receipt' as const) : ('Expense' as const),
        dimensions: {
          Account_Key: own.account,
          ...extColumns('', chart, own, kinds),
          BalancedAccount_Key: other.account,
          ...extColumns('Balanced', chart, other, balancedKinds),
          Organization_Key: e.organization,
        },
        resources: { Amount: e.amount, Quantity: s === 'Dr' ? e.quantityDr : e.quantityCr },
      }
    }),
  )
}

const RESOURCES = ['Amount', 'Quantity']

/** The value columns each function gives, per resource of the demo's accounting register. */
export const VALUE_COLUMNS = {
  Balance: RESOURCES.flatMap((r) => [`${r}Balance`, `${r}BalanceDr`, `${r}BalanceCr`]),
  Turnovers: RESOURCES.flatMap((r) => [`${r}Turnover`, `${r}TurnoverDr`, `${r}TurnoverCr`]),
  BalanceAndTurnovers: RESOURCES.flatMap((r) =>
    [
      'OpeningBalance',
      'OpeningBalanceDr',
      'OpeningBalanceCr',
      'Turnover',
      'TurnoverDr',
      'TurnoverCr',
      'ClosingBalance',
      'ClosingBalanceDr',
      'ClosingBalanceCr',
    ].map((s) => `${r}${s}`),
  ),
} as const

function sideOf(chart: ChartView, account: string, balance: number, which: 'Dr' | 'Cr'): number {
  const type = chart.accounts.get(account)?.type ?? 'ActivePassive'
  if (type === 'Active') return which === 'Dr' ? balance : 0
  if (type === 'Passive') return which === 'Dr' ? 0 : -balance
  return which === 'Dr' ? Math.max(balance, 0) : Math.max(-balance, 0)
}

/** Rows made per account summed per the result's keys (one row when it has none), all-zero rows left out. */
function summedOverAccounts(
  rows: reference.Row[],
  keys: readonly string[],
  values: readonly string[],
  accountGrouped: boolean,
): reference.Row[] {
  const nonZero = (row: reference.Row) => values.some((v) => row[v] !== 0)
  if (accountGrouped) return rows
  const groups = new Map<string, reference.Row>()
  for (const row of rows) {
    const key: reference.Row = Object.fromEntries(keys.map((k) => [k, row[k]!]))
    const id = JSON.stringify(key)
    const sum = groups.get(id) ?? { ...key, ...Object.fromEntries(values.map((v) => [v, 0])) }
    for (const v of values) (sum[v] as number) += row[v] as number
    groups.set(id, sum)
  }
  if (keys.length === 0) return [groups.values().next().value ?? Object.fromEntries(values.map((v) => [v, 0]))]
  return [...groups.values()].filter(nonZero)
}

export interface AccountingCall extends reference.Call {
  /** Whether the result's rows name the account (otherwise they are summed over accounts). */
  readonly accountGrouped: boolean
}

export function balance(movements: readonly reference.Movement[], chart: ChartView, call: AccountingCall): reference.Row[] {
  const group = call.accountGrouped ? call.group : ['Account_Key', ...call.group]
  const perAccount = reference.balance(movements, RESOURCES, { ...call, group }).map((row) => {
    const out: reference.Row = Object.fromEntries(call.group.map((g) => [g, row[g]!]))
    for (const r of RESOURCES) {
      const b = row[`${r}Balance`] as number
      out[`${r}Balance`] = b
      out[`${r}BalanceDr`] = sideOf(chart, row.Account_Key as string, b, 'Dr')
      out[`${r}BalanceCr`] = sideOf(chart, row.Account_Key as string, b, 'Cr')
    }
    return out
  })
  return summedOverAccounts(perAccount, call.group, VALUE_COLUMNS.Balance, call.accountGrouped)
}

export function turnovers(movements: readonly reference.Movement[], call: reference.Call): reference.Row[] {
  return reference.turnovers(movements, RESOURCES, true, call).map((row) => {
    const out: reference.Row = {}
    for (const [name, value] of Object.entries(row)) {
      const match = /^(Amount|Quantity)(Receipt|Expense|Turnover)$/.exec(name)
      out[match ? `${match[1]}Turnover${match[2] === 'Receipt' ? 'Dr' : match[2] === 'Expense' ? 'Cr' : ''}` : name] = value
    }
    return out
  })
}

export function balanceAndTurnovers(
  movements: readonly reference.Movement[],
  chart: ChartView,
  periodColumns: readonly string[],
  call: AccountingCall,
): reference.Row[] {
  const group = call.accountGrouped ? call.group : ['Account_Key', ...call.group]
  const perAccount = reference.balanceAndTurnovers(movements, RESOURCES, periodColumns, { ...call, group }).map((row) => {
    const out: reference.Row = Object.fromEntries([...periodColumns, ...call.group].map((g) => [g, row[g]!]))
    for (const r of RESOURCES) {
      const opening = row[`${r}OpeningBalance`] as number
      const closing = row[`${r}ClosingBalance`] as number
      Object.assign(out, {
        [`${r}OpeningBalance`]: opening,
        [`${r}OpeningBalanceDr`]: sideOf(chart, row.Account_Key as string, opening, 'Dr'),
        [`${r}OpeningBalanceCr`]: sideOf(chart, row.Account_Key as string, opening, 'Cr'),
        [`${r}Turnover`]: row[`${r}Turnover`],
        [`${r}TurnoverDr`]: row[`${r}Receipt`],
        [`${r}TurnoverCr`]: row[`${r}Expense`],
        [`${r}ClosingBalance`]: closing,
        [`${r}ClosingBalanceDr`]: sideOf(chart, row.Account_Key as string, closing, 'Dr'),
        [`${r}ClosingBalanceCr`]: sideOf(chart, row.Account_Key as string, closing, 'Cr'),
      })
    }
    return out
  })
  const values = VALUE_COLUMNS.BalanceAndTurnovers
  return summedOverAccounts(perAccount, [...periodColumns, ...call.group], values, call.accountGrouped)
}

export type { Periodicity }
