// `BalanceAndTurnovers` of an accumulation register of the Balance kind (service.md §4.2, §4.3,
// decisions.md §6): per group (and period, with a periodicity) the opening balance, the receipts,
// expenses and turnover of the active movements with `StartPeriod ≤ Period ≤ EndPeriod`, and the closing
// balance. The opening side is a balance at StartPeriod and the turnovers of whole months come from the
// totals (accumulation-parts.ts), so a year by months reads totals only.
//
// With a periodicity there is a row per group and period that has movements, each period's opening
// being the balance at its start (the previous period's closing; the first period's start is clamped to
// StartPeriod). A group with a balance at StartPeriod but no movements in the range has one row, at the
// first period (StartPeriod; empty recorder and line), with opening equal to closing — decided here,
// where decisions.md §6 leaves open whether such a group gets a row per period: it gets one, so a year by
// days does not multiply every idle group by 365. Rows whose values are all zero are left out.
//
// SQL: the parts of the opening side carry `_k = 0` and empty period columns, those of the turnovers
// `_k = 1`; summed per (_k, period, group) where parts meet, a running sum over each group's rows in
// period order (a window function, the same in MySQL 8 and MariaDB 10.2+) gives every period's opening.
import type { SqlRunner } from './sql-runner.js'
import { AccumulationReader, balanceParts, combine, turnoverParts, type PartKey, type PartsReader } from './accumulation-parts.js'
import { emptyPeriodValue, isDateTimePeriodColumn, movementColumnsFilledBy, periodColumnsOf } from './period-columns.js'
import type { RegisterTables } from './register-tables.js'
import { column, id, join, raw, sql, type Statement } from '../sql/sql-template.js'
import { periodKeys } from './turnovers.js'
import type { VirtualTableArguments } from './virtual-table-arguments.js'
import type { VirtualTable, VirtualTableCall } from './virtual-table.js'

export type V = (name: string) => Statement

export const balanceAndTurnovers: VirtualTable = {
  name: 'BalanceAndTurnovers',
  grouped: true,
  groupableColumns: (tables: RegisterTables) => tables.dimensions,
  periodColumns: (args: VirtualTableArguments) => periodColumnsOf(args.periodicity),
  conditionColumns: (args: VirtualTableArguments) => movementColumnsFilledBy(args.periodicity),
  async relation(call: VirtualTableCall, run: SqlRunner): Promise<Statement> {
    const reader = new AccumulationReader(call)
    const finals = (resource: string, i: number) => [
      { name: `${resource}OpeningBalance`, value: (v: V) => v(`_o${i}`) },
      { name: `${resource}Receipt`, value: (v: V) => v(`_i${i}`) },
      { name: `${resource}Expense`, value: (v: V) => v(`_e${i}`) },
      { name: `${resource}Turnover`, value: (v: V) => sql`(${v(`_i${i}`)} - ${v(`_e${i}`)})` },
      { name: `${resource}ClosingBalance`, value: (v: V) => sql`(${v(`_o${i}`)} + ${v(`_i${i}`)} - ${v(`_e${i}`)})` },
    ]
    return openingAndTurnovers(reader, reader.tables.resources, call, call.groupColumns, finals, run)
  },
}

/**
 * The rows of a BalanceAndTurnovers call grouped by `group`: per resource `i`, the opening balance
 * (`_o<i>`: the net flow before StartPeriod, or before each period), the receipts (`_i<i>`) and the
 * expenses (`_e<i>`) of the range — for an accounting register Dr and Cr — turned into the result's
 * columns by `finals`. Rows whose finals are all zero are left out.
 */
export async function openingAndTurnovers(
  reader: PartsReader,
  resources: readonly string[],
  call: VirtualTableCall,
  group: readonly string[],
  finalsOf: (resource: string, i: number) => { name: string; value: (v: V) => Statement }[],
  run: SqlRunner,
): Promise<Statement> {
  const { startPeriod: start, endPeriod: end } = call.arguments
  const periods = call.periodColumns
  const kind = (value: 0 | 1): PartKey => ({ name: '_k', value: raw(String(value)), constant: true })
  const values = (side: 'opening' | 'turnover') =>
    resources.flatMap((resource, i) => [
      { name: `_o${i}`, resource, ...(side === 'opening' ? { flow: 'net' as const } : {}) },
      { name: `_i${i}`, resource, ...(side === 'turnover' ? { flow: 'receipt' as const } : {}) },
      { name: `_e${i}`, resource, ...(side === 'turnover' ? { flow: 'expense' as const } : {}) },
    ])
  const openingLayout = {
    constants: [kind(0), ...periods.map((name) => ({ name, value: emptyPeriodValue(name), constant: true }))],
    group,
    values: values('opening'),
  }
  const opening = start === undefined ? [] : await balanceParts(reader, start, openingLayout, run)
  const turnover = turnoverParts(reader, start, end, { constants: [kind(1)], group, values: values('turnover') }, periodKeys(call))
  const finals = resources.flatMap((resource, i) => finalsOf(resource, i))
  if (periods.length === 0) return combine([...opening, ...turnover], group, finals, true)
  return byPeriods([opening, turnover], periods, group, resources.length, finals, start)
}

/**
 * Per (_k, period, group) sums — each side summed on its own, and only when it has several parts (the
 * parts of one side may meet in a group; the two sides never do) — then each period's opening as a
 * running sum, the opening-only rows kept where alone.
 */
function byPeriods(
  sides: readonly (readonly Statement[])[],
  periods: readonly string[],
  group: readonly string[],
  resourceCount: number,
  finals: readonly { name: string; value: (v: V) => Statement }[],
  start: string | undefined,
): Statement {
  const indexes = Array.from({ length: resourceCount }, (_, i) => i)
  const keys = ['_k', ...periods, ...group]
  const sums = indexes.flatMap((i) => [`_o${i}`, `_i${i}`, `_e${i}`])
  const summedSide = (parts: readonly Statement[]) =>
    parts.length === 1
      ? parts[0]!
      : sql`SELECT ${join([...keys.map((k) => column('u', k)), ...sums.map((s) => sql`SUM(${column('u', s)}) AS ${id(s)}`)])} FROM (${join([...parts], ' UNION ALL ')}) AS u GROUP BY ${join(keys.map((k) => column('u', k)))}`
  const aggregated = join(sides.filter((parts) => parts.length > 0).map(summedSide), ' UNION ALL ')

  const partition = group.length === 0 ? raw('') : sql`PARTITION BY ${join(group.map((g) => column('a', g)))} `
  const order = join(['_k', ...periods].map((k) => column('a', k)))
  const running = indexes.map(
    (i) =>
      sql`COALESCE(SUM(${column('a', `_o${i}`)} + ${column('a', `_i${i}`)} - ${column('a', `_e${i}`)}) OVER (${partition}ORDER BY ${order} ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING), 0) + ${column('a', `_o${i}`)} AS ${id(`_open${i}`)}`,
  )
  // The group's row count under the same partition and order as the running sums (another frame only),
  // so that the server sorts the rows once for all the window functions.
  const count = sql`COUNT(*) OVER (${partition}ORDER BY ${order} ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING) AS ${id('_n')}`
  const windowed = sql`SELECT ${join([raw('a.*'), ...running, count])} FROM (${aggregated}) AS a`

  // The opening-only row of a group stands at the first period: StartPeriod (clamped); its recorder and
  // line are empty (period-columns.ts).
  const periodItems = periods.map((name) =>
    !isDateTimePeriodColumn(name) || start === undefined
      ? sql`${column('w', name)} AS ${id(name)}`
      : sql`CASE WHEN ${column('w', '_k')} = 0 THEN CAST(${start} AS DATETIME) ELSE ${column('w', name)} END AS ${id(name)}`,
  )
  // In the finals, a period's opening is the running sum, not the opening side's own sum.
  const v: V = (name) => (name.startsWith('_o') ? column('w', `_open${name.slice(2)}`) : column('w', name))
  const items = [...periodItems, ...group.map((g) => column('w', g)), ...finals.map((f) => sql`${f.value(v)} AS ${id(f.name)}`)]
  const nonZero = join(
    finals.map((f) => sql`${f.value(v)} <> 0`),
    ' OR ',
  )
  return sql`SELECT ${join(items)} FROM (${windowed}) AS w WHERE (${column('w', '_k')} = 1 OR ${column('w', '_n')} = 1) AND (${nonZero})`
}
