// The rebuild of the totals tables from the movements (`recompute-totals`, the end of a seed, and `migrate`
// when a layout changed), in bounded pieces, each its own transaction, resumable after an interruption.
//
// One transaction over a whole totals table held every totals row and every movement of a register in
// one write set: at ten million movements about 50 minutes, a temporary table of gigabytes, one Galera
// write set of the whole table, and beyond TiDB's transaction limits. So a table is rebuilt in two phases:
// 1. its month rows, per range of months: delete the range's month rows, insert them again from the
//    movements of the range. A range holds at most `pieceRows` movements (a month holding more is a range
//    of its own: a month row needs every movement of its month);
// 2. its all-time rows (totals.ts), per range of groups (the keys other than `Period`, at most
//    `pieceGroups` groups and `pieceRows` month rows, or one group holding more): delete the range's
//    all-time rows, insert them again as the sums of the month rows, which phase 1 made right.
// Ranges cover every key, so rows of months or groups that no longer have movements are deleted too.
//
// Two processes may rebuild at once (two `migrate`s of one fresh database, through two nodes of a cluster):
// their pieces are the same and rebuilding a piece twice changes nothing; their statements that conflict
// are retried (runInTransaction).
//
// Resumable: the plan (the ranges) and how far it went are kept in `_service_state` (`totals_rebuild`),
// written in the transaction of each piece, so a piece and its record commit together. Run again after an
// interruption, the rebuild goes on with the first piece not done; a piece cut in the middle was rolled
// back whole and runs again.
//
// Writes may go on meanwhile. Each piece is a DELETE then a plain INSERT … SELECT under READ COMMITTED,
// and writes move totals rows by additive upserts under row locks (totals.ts): a write that committed
// before the piece's INSERT is in what it reads; one that did not waits for the piece's row locks (the
// deleted rows, the inserted ones) and adds its change on top after the piece commits. The one case left,
// a write creating a row of the range between the piece's DELETE and INSERT, makes the INSERT meet a
// duplicate key: the piece is rolled back and runs again (as after a deadlock or a lost certification on
// a cluster). Writes between two pieces are kept by the pieces after them. During the rebuild, balances
// read from ranges not rebuilt yet are those from before.
import type { ServiceModel } from '../model/model.js'
import { id, join, raw, sql, type Statement } from '../sql/sql-template.js'
import type { Pool } from './pool.js'
import { databaseOf } from './database.js'
import { ALL_TIME_PERIOD, totalsSources, type TotalsSource } from './totals.js'
import { isDuplicateKey, runInTransaction } from './transaction.js'

/** The `_service_state` entry holding an unfinished rebuild's plan and progress. */
export const TOTALS_REBUILD_MARKER = 'totals_rebuild'

/** Movements per piece of month rows at most, unless one month holds more (then that month alone). */
export const DEFAULT_PIECE_ROWS = 200_000
/** Groups per piece of all-time rows at most (fewer when their month rows pass the piece's rows). */
export const DEFAULT_PIECE_GROUPS = 20_000

/** The first day before any month a movement can have, and the end of the month rows (the all-time row's period). */
const FIRST_PERIOD = '0001-01-01'

/** Months [from, to) of one piece and the movements they hold when planned. */
interface MonthRange {
  readonly from: string
  readonly to: string
  readonly rows: number
}

/** What is left of one table's rebuild. */
interface TableProgress {
  readonly table: string
  readonly months: MonthRange[]
  monthsDone: number
  /** Upper bounds (keys other than Period) of the group ranges; planned when the month rows are done. */
  groupBounds?: unknown[][]
  groupsDone: number
}

interface RebuildPlan {
  readonly version: 1
  readonly tables: TableProgress[]
}

export interface RebuildOptions {
  /** Only these totals tables (migrate's stale ones); every table otherwise. */
  readonly only?: ReadonlySet<string>
  readonly pieceRows?: number
  readonly pieceGroups?: number
  /** Told after each piece committed (a progress bar; a test that interrupts the rebuild). */
  readonly afterPiece?: (piece: RebuiltPiece) => void
}

export interface RebuiltPiece {
  readonly table: string
  readonly kind: 'months' | 'groups'
  /** Movements (months) or month rows (groups) the piece read. */
  readonly rows: number
}

export interface RebuildReport {
  /** Pieces committed by this run (a resumed run counts only its own). */
  readonly pieces: number
  /** The most movements or month rows one piece's transaction read: the bound on a transaction's size. */
  readonly largestPieceRows: number
  /** Whether an unfinished rebuild was found and finished. */
  readonly resumed: boolean
}

/**
 * Rebuilds the totals tables from the movements in pieces (see above), first finishing any rebuild an
 * interruption left, then the tables asked for that it did not cover.
 */
export async function rebuildTotals(pool: Pool, model: ServiceModel, options: RebuildOptions = {}): Promise<RebuildReport> {
  const sources = new Map(totalsSources(model).map((source) => [source.totalsTable, source]))
  const report = { pieces: 0, largestPieceRows: 0, resumed: false }
  const left = await readPlan(pool)
  const wanted = [...sources.keys()].filter((table) => options.only === undefined || options.only.has(table))
  let plan: RebuildPlan
  if (left !== undefined) {
    report.resumed = true
    const covered = new Set(left.tables.map((t) => t.table))
    const more = wanted.filter((table) => !covered.has(table))
    // A table the model no longer has is dropped from the plan; those asked for now are added.
    plan = {
      version: 1,
      tables: [
        ...left.tables.filter((t) => sources.has(t.table)),
        ...(await planTables(
          pool,
          more.map((table) => sources.get(table)!),
          options.pieceRows,
        )),
      ],
    }
  } else {
    plan = {
      version: 1,
      tables: await planTables(
        pool,
        wanted.map((table) => sources.get(table)!),
        options.pieceRows,
      ),
    }
  }
  if (plan.tables.length === 0) return report
  await writePlanAlone(pool, plan)
  const done = (piece: RebuiltPiece) => {
    report.pieces++
    report.largestPieceRows = Math.max(report.largestPieceRows, piece.rows)
    options.afterPiece?.(piece)
  }
  for (const [t, progress] of plan.tables.entries()) {
    const source = sources.get(progress.table)!
    while (progress.monthsDone < progress.months.length) {
      const range = progress.months[progress.monthsDone]!
      const rows = await inPiece(
        pool,
        plan,
        (p) => p.tables[t]!.monthsDone++,
        (run) => rebuildMonths(run, source, range),
      )
      done({ table: progress.table, kind: 'months', rows })
    }
    const bounds = (progress.groupBounds ??= await planGroups(
      pool,
      source,
      options.pieceGroups ?? DEFAULT_PIECE_GROUPS,
      options.pieceRows ?? DEFAULT_PIECE_ROWS,
    ))
    while (progress.groupsDone <= bounds.length) {
      const index = progress.groupsDone
      const rows = await inPiece(
        pool,
        plan,
        (p) => {
          p.tables[t]!.groupBounds = bounds
          p.tables[t]!.groupsDone++
        },
        (run) => rebuildAllTime(run, source, index === 0 ? undefined : bounds[index - 1], bounds[index]),
      )
      done({ table: progress.table, kind: 'groups', rows })
    }
  }
  await runInTransaction(pool, (transaction) =>
    transaction.run(sql`DELETE FROM \`_service_state\` WHERE \`name\` = ${TOTALS_REBUILD_MARKER}`),
  )
  return report
}

type Run = (statement: Statement) => Promise<unknown>

/** How many times a piece runs at most when a concurrent write made one of its rows first (a duplicate key). */
const PIECE_ATTEMPTS = 10

/**
 * One piece in its own transaction, with the plan's progress after it (`advance`) written in it, and kept
 * in memory only once it committed. Retried whole on a deadlock or lost certification (runInTransaction)
 * and on a duplicate key (a write made a row of the range between the piece's DELETE and INSERT).
 * Resolves to the rows the piece read.
 */
async function inPiece(
  pool: Pool,
  plan: RebuildPlan,
  advance: (plan: RebuildPlan) => void,
  piece: (run: Run) => Promise<number>,
): Promise<number> {
  for (let attempt = 1; ; attempt++) {
    try {
      const rows = await runInTransaction(pool, async (transaction) => {
        const read = await piece((statement) => transaction.run(statement))
        const next = JSON.parse(JSON.stringify(plan)) as RebuildPlan
        advance(next)
        await transaction.run(planStatement(next))
        return read
      })
      advance(plan)
      return rows
    } catch (error) {
      if (!isDuplicateKey(error) || attempt >= PIECE_ATTEMPTS) throw error
    }
  }
}

/** Deletes the month rows of the range and inserts them again from its movements; resolves to the movements read. */
async function rebuildMonths(run: Run, source: TotalsSource, range: MonthRange): Promise<number> {
  const table = id(source.totalsTable)
  await run(sql`DELETE FROM ${table} WHERE ${id('Period')} >= ${range.from} AND ${id('Period')} < ${range.to}`)
  const columns = join([...source.keyColumns, ...source.resourceColumns].map((c) => id(c)))
  const filter = sql` AND ${id('Period')} >= ${range.from} AND ${id('Period')} < ${range.to}`
  await run(sql`INSERT INTO ${table} (${columns}) ${source.months(filter)}`)
  return range.rows
}

/** The keys of a group: every key column but Period. */
const groupKeys = (source: TotalsSource) => source.keyColumns.slice(1)

/** `(k1, k2, …) > (v1, v2, …)`, or `<=`: a group's place among the ranges' bounds. */
function compareGroups(source: TotalsSource, operator: '>' | '<=', bound: readonly unknown[]): Statement {
  return sql`(${join(groupKeys(source).map((c) => id(c)))}) ${raw(operator)} (${join(bound.map((value) => sql`${value}`))})`
}

/** Deletes the all-time rows of the groups in (lower, upper] and inserts them again from the month rows; resolves to the month rows read. */
async function rebuildAllTime(run: Run, source: TotalsSource, lower?: readonly unknown[], upper?: readonly unknown[]): Promise<number> {
  const table = id(source.totalsTable)
  const keys = groupKeys(source)
  const inRange = join(
    [
      ...(lower === undefined || keys.length === 0 ? [] : [compareGroups(source, '>', lower)]),
      ...(upper === undefined || keys.length === 0 ? [] : [compareGroups(source, '<=', upper)]),
    ].map((condition) => sql` AND ${condition}`),
    '',
  )
  await run(sql`DELETE FROM ${table} WHERE ${id('Period')} = ${ALL_TIME_PERIOD}${inRange}`)
  const zero = new Set(source.allTimeZeroColumns)
  const values = source.resourceColumns.map((c) => (zero.has(c) ? sql`0 AS ${id(c)}` : sql`SUM(${id(c)}) AS ${id(c)}`))
  // Without group keys there is no GROUP BY, and an aggregate over no rows would still give one row of NULLs.
  const grouping = keys.length > 0 ? sql` GROUP BY ${join(keys.map((c) => id(c)))}` : raw(' HAVING COUNT(*) > 0')
  const columns = join([...source.keyColumns, ...source.resourceColumns].map((c) => id(c)))
  const monthRowsOfRange = sql`FROM ${table} WHERE ${id('Period')} < ${ALL_TIME_PERIOD}${inRange}`
  await run(
    sql`INSERT INTO ${table} (${columns}) SELECT ${join([sql`CAST(${ALL_TIME_PERIOD} AS DATE)`, ...keys.map((c) => id(c)), ...values])} ${monthRowsOfRange}${grouping}`,
  )
  // The month rows read bound the piece (the report's largest piece).
  const counted = (await run(sql`SELECT COUNT(*) AS ${id('rows')} ${monthRowsOfRange}`)) as { rows: number | string }[]
  return Number(counted[0]?.rows ?? 0)
}

/** The month ranges of each table: consecutive months packed up to `pieceRows` movements. */
async function planTables(pool: Pool, sources: readonly TotalsSource[], pieceRows = DEFAULT_PIECE_ROWS): Promise<TableProgress[]> {
  const plans: TableProgress[] = []
  for (const source of sources) {
    const months = await databaseOf(pool).rows<{ month: string; movements: number | string }>(
      sql`SELECT DATE_FORMAT(${id('Period')}, '%Y-%m-01') AS ${id('month')}, COUNT(*) AS ${id('movements')} FROM ${id(source.movementsTable)} WHERE ${id('Active')} = 1 GROUP BY ${id('month')} ORDER BY ${id('month')}`,
    )
    const ranges: MonthRange[] = []
    let from = FIRST_PERIOD
    let rows = 0
    for (const month of months) {
      const count = Number(month.movements)
      if (rows > 0 && rows + count > pieceRows) {
        ranges.push({ from, to: month.month, rows })
        from = month.month
        rows = 0
      }
      rows += count
    }
    // The last range reaches the all-time rows' period: month rows after the last movement's month go too.
    ranges.push({ from, to: ALL_TIME_PERIOD, rows })
    plans.push({ table: source.totalsTable, months: ranges, monthsDone: 0, groupsDone: 0 })
  }
  return plans
}

/** Groups read per page while the group ranges are planned. */
const PLAN_PAGE = 20_000

/**
 * The upper bounds of the group ranges, in key order: a range closes before the group that would take its
 * month rows beyond `pieceRows` or its groups beyond `pieceGroups` (a group holding more month rows than
 * `pieceRows` is a range of its own: its all-time row needs all of them). So a piece of all-time rows reads
 * at most `pieceRows` month rows, as a piece of month rows reads at most `pieceRows` movements, whatever the
 * scale. The ranges are (−∞, b1], (b1, b2], …, (bn, +∞): one piece more than bounds.
 */
async function planGroups(pool: Pool, source: TotalsSource, pieceGroups: number, pieceRows: number): Promise<unknown[][]> {
  const keys = groupKeys(source)
  if (keys.length === 0) return []
  const keyList = join(keys.map((c) => id(c)))
  const bounds: unknown[][] = []
  let groups = 0
  let rows = 0
  let previous: unknown[] | undefined
  for (;;) {
    const after = previous === undefined ? raw('') : sql` AND ${compareGroups(source, '>', previous)}`
    const page = await databaseOf(pool).rows<Record<string, unknown>>(
      sql`SELECT ${keyList}, COUNT(*) AS ${id('month_rows')} FROM ${id(source.totalsTable)} WHERE ${id('Period')} < ${ALL_TIME_PERIOD}${after} GROUP BY ${keyList} ORDER BY ${keyList} LIMIT ${PLAN_PAGE}`,
    )
    for (const group of page) {
      const count = Number(group.month_rows)
      if (groups > 0 && (groups >= pieceGroups || rows + count > pieceRows)) {
        bounds.push(previous!)
        groups = 0
        rows = 0
      }
      groups++
      rows += count
      previous = keys.map((c) => group[c])
    }
    if (page.length < PLAN_PAGE) return bounds
  }
}

async function readPlan(pool: Pool): Promise<RebuildPlan | undefined> {
  const rows = await databaseOf(pool).rows<{ value: string }>(
    sql`SELECT \`value\` FROM \`_service_state\` WHERE \`name\` = ${TOTALS_REBUILD_MARKER}`,
  )
  return rows[0] === undefined ? undefined : (JSON.parse(rows[0].value) as RebuildPlan)
}

function planStatement(plan: RebuildPlan): Statement {
  return sql`REPLACE INTO \`_service_state\` (\`name\`, \`value\`) VALUES (${TOTALS_REBUILD_MARKER}, ${JSON.stringify(plan)})`
}

/**
 * In a transaction of its own, so that it is retried when it conflicts: two processes migrating one database at
 * once (on a cluster, through two nodes) both write the plan.
 */
async function writePlanAlone(pool: Pool, plan: RebuildPlan): Promise<void> {
  await runInTransaction(pool, (transaction) => transaction.run(planStatement(plan)))
}

/** Rebuilds every totals table (or those in `only`) with the default piece sizes. */
export async function recomputeTotals(pool: Pool, model: ServiceModel, only?: ReadonlySet<string>): Promise<RebuildReport> {
  return rebuildTotals(pool, model, { only })
}
