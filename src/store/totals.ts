// Register totals: per month and dimension combination, the net change of each resource (accumulation
// registers of the Balance kind) or its Dr and Cr turnovers (accounting registers). Only active
// movements count, as for balances (decisions.md §6).
//
// Accumulation totals carry more than the net change, so that virtual tables (src/virtual) cost what
// the number of groups costs, not the number of movements:
// - each month row also holds the month's receipts and expenses (`<R>Receipt`, `<R>Expense`), so the
//   turnovers of whole months come from totals;
// - one more row per dimension combination, at the period ALL_TIME_PERIOD (9999-12-31, never the first
//   day of a month, so it cannot meet a month row), holds the receipts and expenses of all time: the
//   current balance is `<R>Receipt - <R>Expense` of that row, one row per group. Its net columns stay
//   0, so that the sum of the net column over a group's rows is still the balance, as before.
//
// Two ways to keep them, built from one SQL shape so they cannot disagree:
// - `recomputeTotals` rebuilds every totals table from the movements (the seed generator, `cli
//   recompute-totals` and `migrate`, when the layout changed, run it); it is the reference the
//   incremental way must agree with;
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
// SQL portability: `INSERT … SELECT * FROM (…) AS d … ON DUPLICATE KEY UPDATE c = c + d_c` refers to a
// derived-table column, the form MySQL 8 documents for INSERT … SELECT with aggregates (no deprecated
// `VALUES()`, no MySQL-only row alias) and MariaDB 10.6+ accepts.
import { extDimensionColumns } from '../model/build-model.js'
import type { EntitySetModel, ServiceModel } from '../model/model.js'
import { quoteIdentifier as q } from '../sql/quote-identifier.js'
import type { Pool } from './pool.js'
import { runInTransaction } from './transaction.js'

const MONTH_START = (column: string) => `CAST(DATE_FORMAT(${q(column)}, '%Y-%m-01') AS DATE)`

/** Where a totals table gets its rows from: the SELECT of (group columns…, resource sums…) over the movements. */
interface TotalsSource {
  readonly totalsTable: string
  /** Its layout version (TOTALS_LAYOUT_VERSIONS). */
  readonly layoutVersion: number
  /** Columns of the totals table: its key first, then the resource columns. */
  readonly keyColumns: readonly string[]
  readonly resourceColumns: readonly string[]
  /** The grouped SELECT; `filter` is added to every WHERE (`AND Recorder = ? AND Recorder_Type = ?`). */
  select(filter: string, sign: 1 | -1): string
  /** How many times the filter's placeholders appear in `select` (the accounting SELECT has two sides). */
  readonly filterRepeats: number
}

/** The period of the all-time row of an accumulation totals table (a DATE that is never a month's first day). */
export const ALL_TIME_PERIOD = '9999-12-31'

/**
 * The layout of each kind of totals table, bumped whenever the columns or the meaning of its rows change:
 * `migrate` then recomputes the tables of that kind (and only those: at ten million movements a
 * recomputation takes minutes). Version 1 is the layout from before versions were recorded.
 */
export const TOTALS_LAYOUT_VERSIONS = { accumulation: 2, accounting: 1 } as const

/** The receipt and expense columns of a resource in an accumulation totals table. */
export function receiptColumn(resource: string): string {
  return `${resource}Receipt`
}
export function expenseColumn(resource: string): string {
  return `${resource}Expense`
}

function accumulationSource(registerSet: EntitySetModel): TotalsSource | undefined {
  const source = registerSet.source
  if (source.type !== 'accumulationRegister' || source.totalsTable === undefined) return undefined
  const dims = source.dimensions.map(q)
  const negate = (sign: 1 | -1) => (sign === 1 ? '' : '-')
  const receipt = (r: string) => `CASE WHEN ${q('RecordType')} = 'Receipt' THEN ${q(r)} ELSE 0 END`
  const expense = (r: string) => `CASE WHEN ${q('RecordType')} = 'Receipt' THEN 0 ELSE ${q(r)} END`
  // Month rows: net, receipts, expenses of the month. The all-time row: net 0, receipts and expenses of all time.
  const values = (sign: 1 | -1, allTime: boolean) => [
    ...source.resources.map((r) => (allTime ? `0 AS ${q(r)}` : `${negate(sign)}SUM(${receipt(r)} - ${expense(r)}) AS ${q(r)}`)),
    ...source.resources.flatMap((r) => [`${negate(sign)}SUM(${receipt(r)}) AS ${q(receiptColumn(r))}`, `${negate(sign)}SUM(${expense(r)}) AS ${q(expenseColumn(r))}`]),
  ]
  const from = (filter: string) => ` FROM ${q(registerSet.table)} WHERE ${q('Active')} = 1${filter}`
  return {
    totalsTable: source.totalsTable,
    layoutVersion: TOTALS_LAYOUT_VERSIONS.accumulation,
    keyColumns: ['Period', ...source.dimensions],
    resourceColumns: [...source.resources, ...source.resources.flatMap((r) => [receiptColumn(r), expenseColumn(r)])],
    filterRepeats: 2,
    select: (filter, sign) =>
      `SELECT ${[`${MONTH_START('Period')} AS ${q('Period')}`, ...dims, ...values(sign, false)].join(', ')}${from(filter)} GROUP BY ${[MONTH_START('Period'), ...dims].join(', ')}` +
      ` UNION ALL SELECT ${[`CAST('${ALL_TIME_PERIOD}' AS DATE) AS ${q('Period')}`, ...dims, ...values(sign, true)].join(', ')}${from(filter)}` +
      // Without dimensions there is no GROUP BY, and an aggregate over no rows would still give one row of NULLs.
      (dims.length > 0 ? ` GROUP BY ${dims.join(', ')}` : ' HAVING COUNT(*) > 0'),
  }
}

function accountingSource(model: ServiceModel, registerSet: EntitySetModel): TotalsSource | undefined {
  const source = registerSet.source
  if (source.type !== 'accountingRegister') return undefined
  const recordType = model.entitySetByName.get(source.recordTypeSet)!
  const ext = extDimensionColumns('', source.maxExtDimensions)
  const dims = source.dimensions.map(q)
  const keyColumns = ['Period', 'Account_Key', ...ext.flatMap((c) => [c.value, c.type]), ...source.dimensions]
  const resourceColumns = source.resources.flatMap((r) => [`${r}Dr`, `${r}Cr`])
  const side = (s: 'Dr' | 'Cr', filter: string) => {
    const sideExt = extDimensionColumns(s, source.maxExtDimensions)
    const resourceValues = source.resources.flatMap((r) => {
      const balanced = recordType.propertyByName.has(r)
      const value = balanced ? q(r) : q(`${r}${s}`)
      return s === 'Dr' ? [`${value} AS ${q(`${r}Dr`)}`, `0 AS ${q(`${r}Cr`)}`] : [`0 AS ${q(`${r}Dr`)}`, `${value} AS ${q(`${r}Cr`)}`]
    })
    return (
      `SELECT ${MONTH_START('Period')} AS ${q('Period')}, ${q(`Account${s}_Key`)} AS ${q('Account_Key')}, ` +
      sideExt.flatMap((c, i) => [`${q(c.value)} AS ${q(ext[i]!.value)}`, `${q(c.type)} AS ${q(ext[i]!.type)}`]).join(', ') +
      (sideExt.length > 0 ? ', ' : '') +
      [...dims, ...resourceValues].join(', ') +
      ` FROM ${q(registerSet.table)} WHERE ${q('Active')} = 1${filter}`
    )
  }
  const groupColumns = keyColumns.map(q)
  return {
    totalsTable: source.totalsTable,
    layoutVersion: TOTALS_LAYOUT_VERSIONS.accounting,
    keyColumns,
    resourceColumns,
    filterRepeats: 2,
    select: (filter, sign) =>
      `SELECT ${[...groupColumns, ...resourceColumns.map((c) => `${sign === 1 ? '' : '-'}SUM(${q(c)}) AS ${q(c)}`)].join(', ')} ` +
      `FROM (${side('Dr', filter)} UNION ALL ${side('Cr', filter)}) AS movements GROUP BY ${groupColumns.join(', ')}`,
  }
}

function totalsSource(model: ServiceModel, registerSet: EntitySetModel): TotalsSource | undefined {
  return accumulationSource(registerSet) ?? accountingSource(model, registerSet)
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
 * then an INSERT … SELECT).
 */
export function recomputeTotalsStatements(model: ServiceModel, only?: ReadonlySet<string>): string[] {
  const statements: string[] = []
  for (const set of model.entitySets) {
    const source = totalsSource(model, set)
    if (!source || (only !== undefined && !only.has(source.totalsTable))) continue
    statements.push(`DELETE FROM ${q(source.totalsTable)}`)
    statements.push(`INSERT INTO ${q(source.totalsTable)} (${[...source.keyColumns, ...source.resourceColumns].map(q).join(', ')}) ${source.select('', 1)}`)
  }
  return statements
}

/** Rebuilds all totals (or the tables named in `only`) in one transaction. */
export async function recomputeTotals(pool: Pool, model: ServiceModel, only?: ReadonlySet<string>): Promise<void> {
  // Retried whole when a concurrent write (another process, another node of a cluster) wins a conflict.
  await runInTransaction(pool, async (transaction) => {
    for (const statement of recomputeTotalsStatements(model, only)) await transaction.run(statement)
  })
}

/** One statement that moves a totals table by the movements of one recorder. */
export interface TotalsDelta {
  readonly sql: string
  /** Placeholder values for (recorder, recorderType). */
  values(recorder: string, recorderType: string): unknown[]
}

/** Adds the movements of several recorders of one type in one statement (a batch posting what it created). */
export interface TotalsDeltaForMany {
  readonly sql: string
  values(recorders: readonly string[], recorderType: string): unknown[]
}

export interface RegisterTotals {
  readonly totalsTable: string
  readonly add: TotalsDelta
  readonly subtract: TotalsDelta
  readonly addMany: TotalsDeltaForMany
}

const registerTotalsCache = new WeakMap<EntitySetModel, RegisterTotals | null>()

function deltaSql(source: TotalsSource, sign: 1 | -1, filter: string): string {
  const alias = (i: number) => q(`d${i}`)
  const columns = [...source.keyColumns, ...source.resourceColumns]
  const aliased = columns.map((c, i) => `${q(c)} AS ${alias(i)}`)
  const keyCount = source.keyColumns.length
  return (
    `INSERT INTO ${q(source.totalsTable)} (${columns.map(q).join(', ')}) ` +
    `SELECT * FROM (SELECT ${aliased.join(', ')} FROM (${source.select(filter, sign)}) AS grouped) AS d ` +
    `ORDER BY ${source.keyColumns.map((_, i) => alias(i)).join(', ')} ` +
    `ON DUPLICATE KEY UPDATE ${source.resourceColumns.map((c, i) => `${q(c)} = ${q(c)} + ${alias(keyCount + i)}`).join(', ')}`
  )
}

function delta(source: TotalsSource, sign: 1 | -1): TotalsDelta {
  const sql = deltaSql(source, sign, ` AND ${q('Recorder')} = ? AND ${q('Recorder_Type')} = ?`)
  const repeats = source.filterRepeats
  return { sql, values: (recorder, recorderType) => Array.from({ length: repeats }, () => [recorder, recorderType]).flat() }
}

function deltaForMany(source: TotalsSource): TotalsDeltaForMany {
  // `IN (?)` with an array: the driver expands it into a list of placeholders' values.
  const sql = deltaSql(source, 1, ` AND ${q('Recorder')} IN (?) AND ${q('Recorder_Type')} = ?`)
  const repeats = source.filterRepeats
  return { sql, values: (recorders, recorderType) => Array.from({ length: repeats }, () => [recorders, recorderType]).flat() }
}

/**
 * The incremental statements of a register's totals (`AccumulationRegister_Stock`, `AccountingRegister_Main`),
 * or undefined for a register without totals (Turnovers kind). Built once per register set.
 */
export function registerTotals(model: ServiceModel, registerSet: EntitySetModel): RegisterTotals | undefined {
  const cached = registerTotalsCache.get(registerSet)
  if (cached !== undefined) return cached ?? undefined
  const source = totalsSource(model, registerSet)
  const totals = source ? { totalsTable: source.totalsTable, add: delta(source, 1), subtract: delta(source, -1), addMany: deltaForMany(source) } : undefined
  registerTotalsCache.set(registerSet, totals ?? null)
  return totals
}
