// Register totals: per month and dimension combination, the net change of each resource (accumulation
// registers of the Balance kind) or its Dr and Cr turnovers (accounting registers). Only active
// movements count, as for balances (decisions.md §6).
//
// Both carry more than the months, so that virtual tables (src/virtual) cost what the number of groups
// costs, not the number of movements:
// - each accumulation month row also holds the month's receipts and expenses (`<R>Receipt`,
//   `<R>Expense`), so the turnovers of whole months come from totals (accounting rows hold Dr and Cr);
// - one more row per dimension combination (accounting: per account, extra dimensions and dimensions),
//   at the period ALL_TIME_PERIOD (9999-12-31, never the first day of a month, so it cannot meet a
//   month row), holds the receipts and expenses (Dr and Cr) of all time: the current balance is
//   `<R>Receipt - <R>Expense` (`<R>Dr - <R>Cr`) of that row, one row per group. Its accumulation net
//   columns stay 0, so that the sum of the net column over a group's rows is still the balance.
//
// Two ways to keep them, built from one SQL shape so they cannot disagree:
// - the rebuild (totals-rebuild.ts, in bounded pieces) makes every totals table again from the movements
//   (the seed generator, `cli recompute-totals` and `migrate`, when the layout changed, run it), from
//   the same SELECTs; it is the reference the incremental way must agree with;
// - `totalsDelta` adds (+1) or subtracts (−1) the movements of one recorder, inside the transaction
//   that inserts or deletes them: subtract before the old movements are deleted, add after the new ones
//   are inserted. Each is one `INSERT … SELECT … ON DUPLICATE KEY UPDATE t = t + delta`, so two
//   transactions posting into the same totals row serialise on its row lock and both changes count.
//   Rows are upserted in key order, which keeps lock order the same across transactions (the all-time
//   row of a group comes after its month rows).
//
// A group whose movements are all removed keeps a totals row of zeros: it means the same as no row,
// and a recomputation drops it. Equality of totals is therefore "equal after dropping all-zero rows".
//
// The statements are built with the one SQL builder (src/sql/sql-template.ts); the recorder a delta
// moves by is a placeholder whose value is given per statement run (`values`).
//
// SQL portability: `INSERT … SELECT * FROM (…) AS d … ON DUPLICATE KEY UPDATE c = c + d_c` refers to a
// derived-table column, the form MySQL 8 documents for INSERT … SELECT with aggregates (no deprecated
// `VALUES()`, no MySQL-only row alias) and MariaDB 10.6+ accepts.
import { extDimensionColumns } from '../model/build-model.js'
import type { EntitySetModel, ServiceModel } from '../model/model.js'
import { id, join, raw, sql, Statement } from '../sql/sql-template.js'

const monthStart = (column: string) => sql`CAST(DATE_FORMAT(${id(column)}, '%Y-%m-01') AS DATE)`

/** Which movements a statement reads, beyond the active ones: all of them, or one or several recorders. */
type MovementFilter = Statement

/** Where a totals table gets its rows from: the SELECT of (key columns…, resource sums…) over the movements. */
export interface TotalsSource {
  readonly totalsTable: string
  /** The movements it is made from (`Period`, `Active`, one row per movement). */
  readonly movementsTable: string
  /** Its layout version (TOTALS_LAYOUT_VERSIONS). */
  readonly layoutVersion: number
  /** Columns of the totals table: its key first, then the resource columns. */
  readonly keyColumns: readonly string[]
  readonly resourceColumns: readonly string[]
  /** Resource columns the all-time rows hold 0 in (accumulation: the net columns); the others hold their sum over all time. */
  readonly allTimeZeroColumns: readonly string[]
  /** The grouped SELECT; `filter` is added to every WHERE (` AND Recorder = ? AND Recorder_Type = ?`). */
  select(filter: MovementFilter, sign: 1 | -1): Statement
  /** The month rows alone, over the movements `filter` keeps (` AND Period >= ? AND Period < ?`). */
  months(filter: MovementFilter): Statement
}

/** The period of the all-time row of a totals table (a DATE that is never a month's first day). */
export const ALL_TIME_PERIOD = '9999-12-31'

/**
 * The layout of each kind of totals table, bumped whenever the columns or the meaning of its rows change:
 * `migrate` then recomputes the tables of that kind (and only those: at ten million movements a
 * recomputation takes minutes). Version 1 is the layout from before versions were recorded; accounting
 * version 2 added the all-time rows.
 */
export const TOTALS_LAYOUT_VERSIONS = { accumulation: 2, accounting: 2 } as const

/** The receipt and expense columns of a resource in an accumulation totals table. */
export function receiptColumn(resource: string): string {
  return `${resource}Receipt`
}
export function expenseColumn(resource: string): string {
  return `${resource}Expense`
}

/** The Dr and Cr columns of a resource in an accounting totals table. */
export function debitColumn(resource: string): string {
  return `${resource}Dr`
}
export function creditColumn(resource: string): string {
  return `${resource}Cr`
}

const negate = (sign: 1 | -1) => raw(sign === 1 ? '' : '-')
const allTimePeriod = sql`CAST(${ALL_TIME_PERIOD} AS DATE) AS ${id('Period')}`

/** Month rows: grouped by month and the other keys, over `from`. */
function monthRows(from: Statement, keys: readonly Statement[], monthValues: readonly Statement[]): Statement {
  return sql`SELECT ${join([sql`${monthStart('Period')} AS ${id('Period')}`, ...keys, ...monthValues])} FROM ${from} GROUP BY ${join([monthStart('Period'), ...keys])}`
}

/**
 * Month rows grouped by month and the other keys, then the all-time rows grouped by the other keys: one
 * SELECT each over `from` (made twice, so that each reads the movements with its own filter).
 */
function monthsAndAllTime(
  from: () => Statement,
  keys: readonly Statement[],
  monthValues: readonly Statement[],
  allTimeValues: readonly Statement[],
): Statement {
  const months = monthRows(from(), keys, monthValues)
  // Without other keys there is no GROUP BY, and an aggregate over no rows would still give one row of NULLs.
  const grouping = keys.length > 0 ? sql` GROUP BY ${join([...keys])}` : raw(' HAVING COUNT(*) > 0')
  const allTime = sql`SELECT ${join([allTimePeriod, ...keys, ...allTimeValues])} FROM ${from()}${grouping}`
  return sql`${months} UNION ALL ${allTime}`
}

function accumulationSource(registerSet: EntitySetModel): TotalsSource | undefined {
  const source = registerSet.source
  if (source.type !== 'accumulationRegister' || source.totalsTable === undefined) return undefined
  const dims = source.dimensions.map((d) => id(d))
  const isReceipt = sql`${id('RecordType')} = 'Receipt'`
  const receipt = (r: string) => sql`CASE WHEN ${isReceipt} THEN ${id(r)} ELSE 0 END`
  const expense = (r: string) => sql`CASE WHEN ${isReceipt} THEN 0 ELSE ${id(r)} END`
  // Month rows: net, receipts, expenses of the month. The all-time row: net 0, receipts and expenses of all time.
  const values = (sign: 1 | -1, allTime: boolean) => [
    ...source.resources.map((r) => (allTime ? sql`0 AS ${id(r)}` : sql`${negate(sign)}SUM(${receipt(r)} - ${expense(r)}) AS ${id(r)}`)),
    ...source.resources.flatMap((r) => [
      sql`${negate(sign)}SUM(${receipt(r)}) AS ${id(receiptColumn(r))}`,
      sql`${negate(sign)}SUM(${expense(r)}) AS ${id(expenseColumn(r))}`,
    ]),
  ]
  return {
    totalsTable: source.totalsTable,
    movementsTable: registerSet.table,
    layoutVersion: TOTALS_LAYOUT_VERSIONS.accumulation,
    keyColumns: ['Period', ...source.dimensions],
    resourceColumns: [...source.resources, ...source.resources.flatMap((r) => [receiptColumn(r), expenseColumn(r)])],
    allTimeZeroColumns: source.resources,
    select: (filter, sign) =>
      monthsAndAllTime(
        () => sql`${id(registerSet.table)} WHERE ${id('Active')} = 1${filter}`,
        dims,
        values(sign, false),
        values(sign, true),
      ),
    months: (filter) => monthRows(sql`${id(registerSet.table)} WHERE ${id('Active')} = 1${filter}`, dims, values(1, false)),
  }
}

function accountingSource(model: ServiceModel, registerSet: EntitySetModel): TotalsSource | undefined {
  const source = registerSet.source
  if (source.type !== 'accountingRegister') return undefined
  const recordType = model.entitySetByName.get(source.recordTypeSet)!
  const ext = extDimensionColumns('', source.maxExtDimensions)
  const keyColumns = ['Period', 'Account_Key', ...ext.flatMap((c) => [c.value, c.type]), ...source.dimensions]
  const resourceColumns = source.resources.flatMap((r) => [debitColumn(r), creditColumn(r)])
  // One row per side of each entry: the side's account and extra dimensions under the totals' names, a
  // balanced resource's one value or the side's own value of a non-balanced one in that side's column.
  const side = (s: 'Dr' | 'Cr', filter: MovementFilter) => {
    const sideExt = extDimensionColumns(s, source.maxExtDimensions)
    const resourceValues = source.resources.flatMap((r) => {
      const value = recordType.propertyByName.has(r) ? id(r) : id(`${r}${s}`)
      return s === 'Dr'
        ? [sql`${value} AS ${id(debitColumn(r))}`, sql`0 AS ${id(creditColumn(r))}`]
        : [sql`0 AS ${id(debitColumn(r))}`, sql`${value} AS ${id(creditColumn(r))}`]
    })
    const items = [
      id('Period'),
      sql`${id(`Account${s}_Key`)} AS ${id('Account_Key')}`,
      ...sideExt.flatMap((c, i) => [sql`${id(c.value)} AS ${id(ext[i]!.value)}`, sql`${id(c.type)} AS ${id(ext[i]!.type)}`]),
      ...source.dimensions.map((d) => id(d)),
      ...resourceValues,
    ]
    return sql`SELECT ${join(items)} FROM ${id(registerSet.table)} WHERE ${id('Active')} = 1${filter}`
  }
  const otherKeys = keyColumns.slice(1).map((c) => id(c))
  const sums = (sign: 1 | -1) => resourceColumns.map((c) => sql`${negate(sign)}SUM(${id(c)}) AS ${id(c)}`)
  return {
    totalsTable: source.totalsTable,
    movementsTable: registerSet.table,
    layoutVersion: TOTALS_LAYOUT_VERSIONS.accounting,
    keyColumns,
    resourceColumns,
    allTimeZeroColumns: [],
    select: (filter, sign) =>
      monthsAndAllTime(
        () => sql`(${side('Dr', filter)} UNION ALL ${side('Cr', filter)}) AS ${id('movements')}`,
        otherKeys,
        sums(sign),
        sums(sign),
      ),
    months: (filter) => monthRows(sql`(${side('Dr', filter)} UNION ALL ${side('Cr', filter)}) AS ${id('movements')}`, otherKeys, sums(1)),
  }
}

function totalsSource(model: ServiceModel, registerSet: EntitySetModel): TotalsSource | undefined {
  return accumulationSource(registerSet) ?? accountingSource(model, registerSet)
}

/** The totals source of every register of the model that has totals, in the model's order. */
export function totalsSources(model: ServiceModel): TotalsSource[] {
  return model.entitySets.flatMap((set) => totalsSource(model, set) ?? [])
}

/** Every totals table of the model with the version of its layout. */
export function totalsLayouts(model: ServiceModel): Map<string, number> {
  const layouts = new Map<string, number>()
  for (const set of model.entitySets) {
    const source = totalsSource(model, set)
    if (source) layouts.set(source.totalsTable, source.layoutVersion)
  }
  return layouts
}

/**
 * The statements that rebuild every totals table of the model, or those named in `only` (each a DELETE,
 * then an INSERT … SELECT), whole: the reference the tests compare with. The service rebuilds in bounded
 * pieces (totals-rebuild.ts).
 */
export function recomputeTotalsStatements(model: ServiceModel, only?: ReadonlySet<string>): Statement[] {
  const statements: Statement[] = []
  for (const set of model.entitySets) {
    const source = totalsSource(model, set)
    if (!source || (only !== undefined && !only.has(source.totalsTable))) continue
    const table = id(source.totalsTable)
    const columns = join([...source.keyColumns, ...source.resourceColumns].map((c) => id(c)))
    statements.push(sql`DELETE FROM ${table}`, sql`INSERT INTO ${table} (${columns}) ${source.select(raw(''), 1)}`)
  }
  return statements
}

/** One statement that moves a totals table by the movements of one recorder. */
/** The statement for one recorder (its key and type). */
export type TotalsDelta = (recorder: string, recorderType: string) => Statement

/** Adds the movements of several recorders of one type in one statement (a batch posting what it created). */
export type TotalsDeltaForMany = (recorders: readonly string[], recorderType: string) => Statement

export interface RegisterTotals {
  readonly totalsTable: string
  readonly add: TotalsDelta
  readonly subtract: TotalsDelta
  readonly addMany: TotalsDeltaForMany
}

const registerTotalsCache = new WeakMap<EntitySetModel, RegisterTotals | null>()

/** Stand-ins for the recorder values in a delta's parameters, replaced by the values of each run. */
const RECORDER = Symbol('recorder')
const RECORDER_TYPE = Symbol('recorderType')

function deltaStatement(source: TotalsSource, sign: 1 | -1, filter: MovementFilter): Statement {
  const alias = (i: number) => id(`d${i}`)
  const columns = [...source.keyColumns, ...source.resourceColumns]
  const aliased = columns.map((c, i) => sql`${id(c)} AS ${alias(i)}`)
  const keyCount = source.keyColumns.length
  return sql`INSERT INTO ${id(source.totalsTable)} (${join(columns.map((c) => id(c)))}) SELECT * FROM (SELECT ${join(aliased)} FROM (${source.select(filter, sign)}) AS ${id('grouped')}) AS ${id('d')} ORDER BY ${join(source.keyColumns.map((_, i) => alias(i)))} ON DUPLICATE KEY UPDATE ${join(source.resourceColumns.map((c, i) => sql`${id(c)} = ${id(c)} + ${alias(keyCount + i)}`))}`
}

/** The statement of a run: its text, with the stand-ins among its parameters replaced by the run's values. */
function withRecorder<T>(statement: Statement): (recorder: T, recorderType: string) => Statement {
  return (recorder, recorderType) =>
    new Statement(
      statement.text,
      statement.parameters.map((p) => (p === RECORDER ? recorder : p === RECORDER_TYPE ? recorderType : p)),
    )
}

function delta(source: TotalsSource, sign: 1 | -1): TotalsDelta {
  return withRecorder<string>(
    deltaStatement(source, sign, sql` AND ${id('Recorder')} = ${RECORDER} AND ${id('Recorder_Type')} = ${RECORDER_TYPE}`),
  )
}

function deltaForMany(source: TotalsSource): TotalsDeltaForMany {
  // `IN (?)` with an array: the driver expands it into a list of placeholders' values.
  return withRecorder<readonly string[]>(
    deltaStatement(source, 1, sql` AND ${id('Recorder')} IN (${RECORDER}) AND ${id('Recorder_Type')} = ${RECORDER_TYPE}`),
  )
}

/**
 * The incremental statements of a register's totals (`AccumulationRegister_Stock`, `AccountingRegister_Main`),
 * or undefined for a register without totals (Turnovers kind). Built once per register set.
 */
export function registerTotals(model: ServiceModel, registerSet: EntitySetModel): RegisterTotals | undefined {
  const cached = registerTotalsCache.get(registerSet)
  if (cached !== undefined) return cached ?? undefined
  const source = totalsSource(model, registerSet)
  const totals = source
    ? { totalsTable: source.totalsTable, add: delta(source, 1), subtract: delta(source, -1), addMany: deltaForMany(source) }
    : undefined
  registerTotalsCache.set(registerSet, totals ?? null)
  return totals
}
