// The totals rebuild (`recompute-totals`, the end of a seed, `migrate` for a changed layout) at about ten
// million movements in each register (SEED_SCALE 1000), in bounded pieces (src/store/totals-rebuild.ts)
// against the way it was before: one transaction over every totals table, a DELETE and an INSERT … SELECT
// from all the movements (the statements of `recomputeTotalsStatements`, the tests' reference), measured in
// the same run. Two figures, each "pieces / one transaction":
//   1. the rebuild's time (the pieces are run before and after the one transaction, and their mean taken,
//      so that neither side alone meets a cold buffer pool);
//   2. its largest transaction, in rows read: the movements (or month rows) one transaction reads, which
//      bounds its undo, its locks and its Galera write set. Also with `--piece-rows` a quarter of the
//      default: the largest piece follows the setting, or the largest month when one month holds more.
// After the last rebuild `verify`'s check (checkTotals) must find no difference, or the benchmark fails.
//
// The database: TOTALS_BENCH_DATABASE_URL (default mysql://root@127.0.0.1:3306/odata_bench_1000, the one the
// virtual-tables benchmark reads), seeded at TOTALS_BENCH_SCALE (default 1000). `make bench` does not seed
// ten million movements: without them this benchmark says so in one line and counts as skipped (exit code
// 3). `make bench-full` (BENCH_FULL=1) seeds it once, resumably, and runs it. A smaller scale (100, 300) is
// seeded without BENCH_FULL: it takes minutes, not most of an hour.
// Run: node scripts/run-benchmarks.mjs totals-rebuild
import { checkTotals } from '../src/store/totals-check.js'
import { DEFAULT_PIECE_ROWS, rebuildTotals, type RebuildReport } from '../src/store/totals-rebuild.js'
import { recomputeTotalsStatements, totalsSources } from '../src/store/totals.js'
import { runInTransaction } from '../src/store/transaction.js'
import { openBigBenchDatabase } from './support/big-bench-database.js'
import { printResult } from './support/report.js'

const DATABASE_URL = process.env.TOTALS_BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306/odata_bench_1000'
const SCALE = Number(process.env.TOTALS_BENCH_SCALE ?? 1000)
/** Scales seeded only by `make bench-full`: ten million movements take most of an hour. */
const BIG_SCALE = 1000

const { pool, model, scale } = await openBigBenchDatabase('totals-rebuild', DATABASE_URL, SCALE, { seedAlwaysBelow: BIG_SCALE })

const scalar = async (sql: string) => Number(((await pool.query({ sql, rowsAsArray: true }))[0] as unknown[][])[0]![0])
let movements = 0
let largestMonth = 0
for (const source of totalsSources(model)) {
  movements += await scalar(`SELECT COUNT(*) FROM \`${source.movementsTable}\` WHERE Active = 1`)
  largestMonth = Math.max(
    largestMonth,
    await scalar(
      `SELECT COALESCE(MAX(n), 0) FROM (SELECT COUNT(*) AS n FROM \`${source.movementsTable}\` WHERE Active = 1 GROUP BY DATE_FORMAT(Period, '%Y-%m')) AS months`,
    ),
  )
}
console.log(`  scale ${scale}: ${movements} active movements in every register together, the largest month of one register ${largestMonth}`)

async function totalsAreRight(after: string): Promise<void> {
  const check = await checkTotals(pool, model)
  if (check.differences.length > 0) {
    console.log(`totals-rebuild: after ${after} the totals differ from a recomputation: ${JSON.stringify(check.differences.slice(0, 3))}`)
    await pool.end()
    process.exit(1)
  }
}

/** The rebuild as it was: one transaction, a DELETE and an INSERT … SELECT of all the movements per table. */
async function oneTransaction(): Promise<number> {
  const started = performance.now()
  await runInTransaction(
    pool,
    async (transaction) => {
      for (const statement of recomputeTotalsStatements(model)) await transaction.run(statement)
    },
    { attempts: 1 },
  )
  return (performance.now() - started) / 1000
}

interface PiecesRun {
  readonly seconds: number
  readonly report: RebuildReport
  /** The largest piece of month rows (movements read) and of all-time rows (month rows read). */
  readonly largest: { months: number; groups: number }
}

async function inPieces(pieceRows: number): Promise<PiecesRun> {
  const largest = { months: 0, groups: 0 }
  const started = performance.now()
  const report = await rebuildTotals(pool, model, {
    pieceRows,
    afterPiece: (piece) => (largest[piece.kind] = Math.max(largest[piece.kind], piece.rows)),
  })
  const seconds = (performance.now() - started) / 1000
  console.log(
    `  in pieces of at most ${pieceRows} rows: ${seconds.toFixed(1)} s, ${report.pieces} pieces, the largest ${report.largestPieceRows} rows (month rows: ${largest.months} movements; all-time rows: ${largest.groups} month rows)`,
  )
  return { seconds, report, largest }
}

const first = await inPieces(DEFAULT_PIECE_ROWS)
const whole = await oneTransaction()
console.log(`  one transaction: ${whole.toFixed(1)} s, ${movements} movements read`)
const second = await inPieces(DEFAULT_PIECE_ROWS)
const smaller = await inPieces(DEFAULT_PIECE_ROWS / 4)
// The check reads every movement and every totals row (minutes at a million movements): once, at the end.
await totalsAreRight('the last rebuild in pieces')
await pool.end()

const pieces = (first.seconds + second.seconds) / 2
const largest = Math.max(first.report.largestPieceRows, second.report.largestPieceRows)
const extra = { scale, movements, largestMonth, pieces: second.report.pieces }
printResult({
  benchmark: `totals rebuild time at scale ${scale}, in pieces of ${DEFAULT_PIECE_ROWS} (mean of two)`,
  figure: pieces,
  unit: 's',
  baseline: whole,
  baselineName: 'one transaction over every totals table',
  lowerIsBetter: true,
  extra,
})
printResult({
  benchmark: `totals rebuild's largest transaction at scale ${scale}, in pieces of ${DEFAULT_PIECE_ROWS}`,
  figure: largest,
  unit: 'rows read',
  baseline: movements,
  baselineName: 'one transaction over every totals table',
  lowerIsBetter: true,
  extra,
})
printResult({
  benchmark: `totals rebuild's largest transaction at scale ${scale}, in pieces of ${DEFAULT_PIECE_ROWS / 4}`,
  figure: smaller.report.largestPieceRows,
  unit: 'rows read',
  baseline: movements,
  baselineName: 'one transaction over every totals table',
  lowerIsBetter: true,
  extra: { ...extra, seconds: smaller.seconds, pieces: smaller.report.pieces, largestMonthPiece: smaller.largest.months },
})
// A piece of month rows reads at most --piece-rows movements, or one month's when that month holds more;
// a piece of all-time rows reads the month rows of DEFAULT_PIECE_GROUPS groups, whatever the movements.
for (const run of [second, smaller]) {
  const pieceRows = run === second ? DEFAULT_PIECE_ROWS : DEFAULT_PIECE_ROWS / 4
  if (run.largest.months > Math.max(pieceRows, largestMonth)) {
    console.log(
      `totals-rebuild: a piece read ${run.largest.months} movements, more than max(--piece-rows ${pieceRows}, the largest month ${largestMonth})`,
    )
    process.exit(1)
  }
}
