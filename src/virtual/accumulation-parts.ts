// The building blocks of the accumulation register virtual tables: "balance at a moment" and "turnovers
// over a range", each a list of grouped SELECTs (parts) whose UNION ALL, summed per group, is the
// answer. A part reads either the movements or the totals of src/store/totals.ts, so that the cost
// follows the number of groups and months, not the number of movements:
//
//   balance before X   = the all-time totals row                                        (no X)
//                      = totals of the months before X's month + movements [month start, X)
//                      or  all-time row − totals of the months from the next month start
//                          − movements [X, next month start)                        (the cheaper one)
//   turnovers [S, E]   = totals of the whole months inside [S, E] + movements of the partial months
//                        at either edge (periodicities aligned to months, or none)
//                      = movements in [S, E]                                              (otherwise)
//
// Totals serve only when the Condition names nothing but dimensions (totals rows have no recorder or
// line); only active movements count, as in the totals. `Balance(Period=X)` counts `Period < X`;
// turnovers count `S ≤ Period ≤ E` (decisions.md §6). Balance-kind movements sign by RecordType: a
// receipt adds, an expense subtracts.
import { ALL_TIME_PERIOD, expenseColumn, receiptColumn } from '../store/totals.js'
import type { SqlRunner } from './sql-runner.js'
import { addSeconds, isMonthStart, nextPeriodStart, periodStart } from './period-start.js'
import type { AccumulationTables } from './register-tables.js'
import { column, id, join, raw, sql, type Statement } from '../sql/sql-template.js'
import type { VirtualTableCall } from './virtual-table.js'

/** A grouping key of a part: a value per row (grouped) or a constant (not grouped). */
export interface PartKey {
  readonly name: string
  readonly value: Statement
  readonly constant?: boolean
}

/** What a resource contributes: its signed net change, its receipts, or its expenses. */
export type Flow = 'net' | 'receipt' | 'expense'

/** A summed value of a part: the flow of one resource under a name, or a constant 0 under a name. */
export interface PartValue {
  readonly name: string
  readonly resource?: string
  readonly flow?: Flow
  readonly sign?: 1 | -1
}

/** What every part of one call selects: constant keys first, then the group columns, then the values. */
export interface PartLayout {
  readonly constants: readonly PartKey[]
  readonly group: readonly string[]
  readonly values: readonly PartValue[]
}

/** The last moment a DATETIME holds. */
const LAST_SECOND = '9999-12-31 23:59:59'

/** Alias of the relation inside a part. */
const M = 'm'

/** How many months of totals rows one month of movements is worth, in the choice of a balance's side. */
const MOVEMENT_MONTH_COST = 30

function monthOf(stored: string): string {
  return periodStart('Month', stored)
}

function nextMonth(stored: string): string {
  const start = monthOf(stored)
  return start.startsWith('9999-12') ? `${ALL_TIME_PERIOD} 00:00:00` : nextPeriodStart('Month', start)
}

/** Months from month `a` to month `b` (both stored date-times or dates), negative when b is earlier. */
function monthsBetween(a: string, b: string): number {
  return (Number(b.slice(0, 4)) - Number(a.slice(0, 4))) * 12 + Number(b.slice(5, 7)) - Number(a.slice(5, 7))
}

/**
 * What the parts read, for one call: the movements and the totals as FROM items (with the Condition and
 * any other filter of the call applied), and the SQL of a resource's flow in each. An accounting
 * register has its own (accounting-reader.ts): its flows are Dr (as receipts) and Cr (as expenses).
 */
export interface PartsReader {
  /** Totals serve the call (the register keeps them and nothing the call filters or groups by is missing from them). */
  readonly totalsUsable: boolean
  /** The movements as a FROM item; `where` are the conditions the part puts on them (the reader may push them inside). */
  movements(where: readonly Statement[]): Statement
  /** The totals as a FROM item (columns under the result's names, `Period` the month or ALL_TIME_PERIOD). */
  totals(): Statement
  /** The first and last month the totals hold, for choosing a balance's side. */
  totalsRange(run: SqlRunner): Promise<{ first: string | undefined; last: string | undefined }>
  /** A resource's flow per movement row. */
  movementFlow(flow: Flow, resource: string): Statement
  /** A resource's flow per totals row (`allTime`: of the all-time row). */
  totalsFlow(flow: Flow, resource: string, allTime?: boolean): Statement
  /** True when, grouped by these columns, every totals row of one period is a group of its own. */
  totalsRowsAreGroups(group: readonly string[]): boolean
  /** True when each movement is one row of `movements` (so recorder and line identify a row). */
  readonly rowPerMovement: boolean
}

const ranges = new WeakMap<object, Promise<{ first: string | undefined; last: string | undefined }>>()

/** The first and last month a totals table holds (one cheap index read each), once per reader. */
export function totalsRangeOf(
  owner: object,
  totalsTable: string,
  run: SqlRunner,
): Promise<{ first: string | undefined; last: string | undefined }> {
  let range = ranges.get(owner)
  if (!range) {
    const table = id(totalsTable)
    const period = id('Period')
    const query = sql`SELECT (SELECT MIN(${period}) FROM ${table}), (SELECT MAX(${period}) FROM ${table} WHERE ${period} < ${ALL_TIME_PERIOD})`
    range = run(query).then((rows) => {
      const [first, last] = (rows[0] ?? []) as (string | null)[]
      return { first: first ?? undefined, last: last ?? undefined }
    })
    ranges.set(owner, range)
  }
  return range
}

/** Where a part of an accumulation register reads from, with the Condition applied, and the SQL of its values. */
export class AccumulationReader implements PartsReader {
  readonly tables: AccumulationTables
  readonly rowPerMovement = true

  constructor(readonly call: VirtualTableCall) {
    if (call.tables.kind !== 'accumulation') throw new Error(`internal: ${call.register.name} is not an accumulation register`)
    this.tables = call.tables
  }

  get balanceKind(): boolean {
    return this.tables.registerKind === 'Balance'
  }

  /** Totals serve the call: the register keeps them and the Condition names dimensions only. */
  get totalsUsable(): boolean {
    return (
      this.tables.totalsTable !== undefined && (this.call.condition === undefined || this.call.condition.readsOnly(this.tables.dimensions))
    )
  }

  /** The movements as a FROM item (the table, or the rows the Condition keeps); the part applies `where`. */
  movements(): Statement {
    const table = this.tables.records.table
    const condition = this.call.condition
    if (condition === undefined) return id(table)
    const columns = this.tables.records.properties.map((p) => p.column)
    return sql`(${condition.over(table, columns)})`
  }

  totals(): Statement {
    const table = this.tables.totalsTable!
    const condition = this.call.condition
    if (condition === undefined) return id(table)
    const columns = ['Period', ...this.tables.dimensions, ...this.tables.resources.flatMap((r) => [r, receiptColumn(r), expenseColumn(r)])]
    return sql`(${condition.over(table, columns)})`
  }

  totalsRange(run: SqlRunner): Promise<{ first: string | undefined; last: string | undefined }> {
    return totalsRangeOf(this, this.tables.totalsTable!, run)
  }

  /** A totals row is one (month or all time, dimension combination): a group of its own when every dimension groups. */
  totalsRowsAreGroups(group: readonly string[]): boolean {
    return this.tables.dimensions.every((d) => group.includes(d))
  }

  /** A resource's flow per movement row. */
  movementFlow(flow: Flow, resource: string): Statement {
    const value = column(M, resource)
    if (!this.balanceKind) return value
    const receipt = sql`${column(M, 'RecordType')} = 'Receipt'`
    switch (flow) {
      case 'net':
        return sql`CASE WHEN ${receipt} THEN ${value} ELSE -${value} END`
      case 'receipt':
        return sql`CASE WHEN ${receipt} THEN ${value} ELSE 0 END`
      case 'expense':
        return sql`CASE WHEN ${receipt} THEN 0 ELSE ${value} END`
    }
  }

  /** A resource's flow per totals month row (the all-time row has its own: receipts minus expenses). */
  totalsFlow(flow: Flow, resource: string, allTime = false): Statement {
    switch (flow) {
      case 'net':
        return allTime ? sql`${column(M, receiptColumn(resource))} - ${column(M, expenseColumn(resource))}` : column(M, resource)
      case 'receipt':
        return column(M, receiptColumn(resource))
      case 'expense':
        return column(M, expenseColumn(resource))
    }
  }
}

/**
 * One grouped SELECT: `SELECT keys…, SUM(values)… FROM <from> AS m WHERE … GROUP BY keys…`. When each
 * source row is a group of its own (`unique`: all-time totals rows by every dimension, month totals by
 * month and every dimension, movements by record), the rows are taken as they are: no grouping, and a
 * query the optimizer can merge into the one around it and read in index order.
 */
function part(
  from: Statement,
  where: readonly Statement[],
  keys: readonly PartKey[],
  values: readonly Summed[],
  layout: PartLayout,
  unique = false,
): Statement {
  const items = [
    ...keys.map((key) => sql`${key.value} AS ${id(key.name)}`),
    ...layout.values.map((value, i) => sql`${unique ? values[i]!.row : values[i]!.summed} AS ${id(value.name)}`),
  ]
  const grouped = keys.filter((key) => !key.constant)
  const condition = where.length === 0 ? raw('') : sql` WHERE ${join(where, ' AND ')}`
  // Without a GROUP BY an aggregate over no rows still gives a row (of NULLs): leave it out.
  const grouping = unique
    ? raw('')
    : grouped.length > 0
      ? sql` GROUP BY ${join(grouped.map((key) => key.value))}`
      : raw(' HAVING COUNT(*) > 0')
  return sql`SELECT ${join(items)} FROM ${from} AS ${raw(M)}${condition}${grouping}`
}

/** A value of a part, as the sum over a group's rows and as one row's own value. */
interface Summed {
  readonly summed: Statement
  readonly row: Statement
}

function groupKeys(layout: PartLayout): PartKey[] {
  return [...layout.constants, ...layout.group.map((name) => ({ name, value: column(M, name) }))]
}

function summed(layout: PartLayout, flowOf: (value: PartValue) => Statement, sign: 1 | -1 = 1): Summed[] {
  return layout.values.map((value) => {
    if (value.flow === undefined) return { summed: raw('0'), row: raw('0') }
    const flow = flowOf(value)
    return (value.sign ?? 1) * sign === -1
      ? { summed: sql`-SUM(${flow})`, row: sql`-(${flow})` }
      : { summed: sql`SUM(${flow})`, row: sql`(${flow})` }
  })
}

const active = sql`${column(M, 'Active')} = 1`
const periodFrom = (from: string) => sql`${column(M, 'Period')} >= ${from}`
const periodBefore = (to: string) => sql`${column(M, 'Period')} < ${to}`

/** Movements within the bounds, as a part; each is a group of its own when the keys hold its recorder and line. */
function movementPart(
  reader: PartsReader,
  layout: PartLayout,
  keys: readonly PartKey[],
  bounds: readonly Statement[],
  sign: 1 | -1 = 1,
): Statement {
  const values = summed(layout, (value) => reader.movementFlow(value.flow!, value.resource!), sign)
  const byRecord = reader.rowPerMovement && keys.some((key) => key.name === 'Recorder') && keys.some((key) => key.name === 'LineNumber')
  const where = [active, ...bounds]
  return part(reader.movements(where), where, keys, values, layout, byRecord)
}

/**
 * Which way a balance at `at` reads fewer rows, given the first and last month of the totals: 'before'
 * (the months before `at`'s month, then the movements from its start to `at`) or 'after' (the all-time
 * rows, less the months after and the movements from `at` to the next month start). A month of
 * movements counts as MOVEMENT_MONTH_COST months of totals rows.
 */
export function balanceSide(
  at: string,
  range: { readonly first: string | undefined; readonly last: string | undefined },
): 'before' | 'after' {
  const monthStart = monthOf(at)
  // The last month of the calendar has no next month start to read back from: the all-time row
  // (9999-12-31) is not one, and must never stand in for a moment inside its own month.
  if (monthStart.startsWith('9999-12')) return 'before'
  const followingMonth = isMonthStart(at) ? monthStart : nextMonth(at)
  const monthsBefore = range.first === undefined ? 0 : Math.max(0, monthsBetween(range.first, monthStart))
  const monthsAfter = range.last === undefined ? 0 : Math.max(0, monthsBetween(followingMonth, range.last) + 1)
  const seconds = (stored: string) => Date.parse(`${stored.slice(0, 10)}T${stored.slice(11, 19) || '00:00:00'}Z`) / 1000
  const monthLength = seconds(nextMonth(at)) - seconds(monthStart)
  const intoMonth = seconds(at) - seconds(monthStart)
  const before = monthsBefore + (MOVEMENT_MONTH_COST * intoMonth) / monthLength
  // The all-time rows are every group once: about as many as a month's totals rows, a little more.
  const after = 1.5 + monthsAfter + (intoMonth === 0 ? 0 : (MOVEMENT_MONTH_COST * (monthLength - intoMonth)) / monthLength)
  return before <= after ? 'before' : 'after'
}

/**
 * The balance of each group at the moment `at` (movements with `Period < at`; all of them when `at` is
 * undefined), as parts whose values are the layout's `net` flows.
 */
export async function balanceParts(reader: PartsReader, at: string | undefined, layout: PartLayout, run: SqlRunner): Promise<Statement[]> {
  const keys = groupKeys(layout)
  if (!reader.totalsUsable) return [movementPart(reader, layout, keys, at === undefined ? [] : [periodBefore(at)])]
  const totals = reader.totals()
  const allTime = part(
    totals,
    [sql`${column(M, 'Period')} = ${ALL_TIME_PERIOD}`],
    keys,
    summed(layout, (value) => reader.totalsFlow(value.flow!, value.resource!, true)),
    layout,
    reader.totalsRowsAreGroups(layout.group),
  )
  if (at === undefined) return [allTime]

  const monthStart = monthOf(at)
  const followingMonth = isMonthStart(at) ? monthStart : nextMonth(at)
  const side = balanceSide(at, await reader.totalsRange(run))
  const monthParts = (bounds: Statement[], sign: 1 | -1) =>
    part(
      totals,
      bounds,
      keys,
      summed(layout, (value) => reader.totalsFlow(value.flow!, value.resource!), sign),
      layout,
    )
  if (side === 'before') {
    const parts = [monthParts([periodBefore(monthStart.slice(0, 10))], 1)]
    if (monthStart < at) parts.push(movementPart(reader, layout, keys, [periodFrom(monthStart), periodBefore(at)]))
    return parts
  }
  const parts = [allTime, monthParts([periodFrom(followingMonth.slice(0, 10)), periodBefore(ALL_TIME_PERIOD)], -1)]
  if (at < followingMonth) parts.push(movementPart(reader, layout, keys, [periodFrom(at), periodBefore(followingMonth)], -1))
  return parts
}

/**
 * The turnovers of each group and period over [start, end] (either bound open), as parts whose values
 * are the layout's `receipt`/`expense` (or, for a Turnovers-kind register, `net`) flows. `periodKeys`
 * gives the period columns' values per movement and, when the periodicity is aligned to months, per
 * totals month (undefined otherwise).
 */
export function turnoverParts(
  reader: PartsReader,
  start: string | undefined,
  end: string | undefined,
  layout: PartLayout,
  periodKeys: (on: 'movements' | 'totals') => readonly PartKey[] | undefined,
): Statement[] {
  const movementKeys = [...layout.constants, ...periodKeys('movements')!, ...groupKeys({ ...layout, constants: [] })]
  const totalsPeriodKeys = reader.totalsUsable ? periodKeys('totals') : undefined
  const inRange = (from: string | undefined, through: string | undefined) => [
    ...(from === undefined ? [] : [periodFrom(from)]),
    ...(through === undefined ? [] : [sql`${column(M, 'Period')} <= ${through}`]),
  ]
  if (totalsPeriodKeys === undefined) return [movementPart(reader, layout, movementKeys, inRange(start, end))]
  // A start inside the last month of the calendar has no next month start: nothing there is a whole month.
  if (start !== undefined && !isMonthStart(start) && start.startsWith('9999-12'))
    return [movementPart(reader, layout, movementKeys, inRange(start, end))]

  // Whole months inside [start, end]: from the first month start at or after `start` to the month
  // start after the last whole month (stored periods are whole seconds: `≤ end` is `< end + 1 s`).
  const wholeFrom = start === undefined ? undefined : isMonthStart(start) ? start : nextMonth(start)
  const afterEnd = end === undefined || end >= LAST_SECOND ? undefined : addSeconds(end, 1)
  const wholeTo =
    end === undefined ? undefined : afterEnd === undefined ? monthOf(end) : isMonthStart(afterEnd) ? afterEnd : monthOf(afterEnd)
  if (wholeFrom !== undefined && wholeTo !== undefined && wholeFrom >= wholeTo)
    return [movementPart(reader, layout, movementKeys, inRange(start, end))]

  const totalsKeys = [...layout.constants, ...totalsPeriodKeys, ...groupKeys({ ...layout, constants: [] })]
  const totalsBounds = [
    ...(wholeFrom === undefined ? [] : [periodFrom(wholeFrom.slice(0, 10))]),
    periodBefore(wholeTo === undefined ? ALL_TIME_PERIOD : wholeTo.slice(0, 10)),
  ]
  // A totals row is one month of one dimension combination: by month and every dimension, a group of its own.
  const unique = totalsPeriodKeys.length === 1 && totalsPeriodKeys[0]!.name === 'MonthPeriod' && reader.totalsRowsAreGroups(layout.group)
  const parts = [
    part(
      reader.totals(),
      totalsBounds,
      totalsKeys,
      summed(layout, (value) => reader.totalsFlow(value.flow!, value.resource!)),
      layout,
      unique,
    ),
  ]
  if (start !== undefined && start < wholeFrom!)
    parts.push(movementPart(reader, layout, movementKeys, [periodFrom(start), periodBefore(wholeFrom!)]))
  if (end !== undefined && wholeTo! <= end) parts.push(movementPart(reader, layout, movementKeys, inRange(wholeTo, end)))
  return parts
}

/**
 * The parts combined: one part as it is, several as their UNION ALL summed per group. `finals` are the
 * result's value columns as expressions of the parts' summed values (`v(name)`); with `nonZero`, groups
 * whose final values are all 0 are left out.
 */
export function combine(
  parts: readonly Statement[],
  keys: readonly string[],
  finals: readonly { name: string; value: (v: (name: string) => Statement) => Statement }[],
  nonZero: boolean,
): Statement {
  const U = 'u'
  const keyItems = keys.map((key) => column(U, key))
  if (parts.length === 1 && keys.length > 0) {
    const v = (name: string) => column(U, name)
    const values = finals.map((f) => sql`${f.value(v)} AS ${id(f.name)}`)
    const filter = nonZero
      ? sql` WHERE ${join(
          finals.map((f) => sql`${f.value(v)} <> 0`),
          ' OR ',
        )}`
      : raw('')
    return sql`SELECT ${join([...keyItems, ...values])} FROM (${parts[0]!}) AS ${raw(U)}${filter}`
  }
  const union = join([...parts], ' UNION ALL ')
  if (keys.length === 0) {
    // One total row, also when nothing counts: the groups of nothing are one empty group.
    const v = (name: string) => sql`COALESCE(SUM(${column(U, name)}), 0)`
    return sql`SELECT ${join(finals.map((f) => sql`${f.value(v)} AS ${id(f.name)}`))} FROM (${union}) AS ${raw(U)}`
  }
  const v = (name: string) => sql`SUM(${column(U, name)})`
  const values = finals.map((f) => sql`${f.value(v)} AS ${id(f.name)}`)
  const having = nonZero
    ? sql` HAVING ${join(
        finals.map((f) => sql`${f.value(v)} <> 0`),
        ' OR ',
      )}`
    : raw('')
  return sql`SELECT ${join([...keyItems, ...values])} FROM (${union}) AS ${raw(U)} GROUP BY ${join(keyItems)}${having}`
}
