// What the commands that work on the database alone do (`migrate`, `seed`, `recompute-totals`, `verify`, `prune-log`; their
// usage is in commands.ts), and the step `serve` shares with them, bringing the schema to the configuration's (src/store/migrate.ts).
import { pruneRequestLog, retentionEnabled } from '../log/request-log-retention.js'
import { loadModel } from '../model/load-model.js'
import type { ServiceModel } from '../model/model.js'
import { readEnvironment } from '../ops/environment.js'
import { seedDemoData, type SeedProgress } from '../seed/seed-data.js'
import { parseDatabaseUrl } from '../store/database-url.js'
import { migrate } from '../store/migrate.js'
import { createPool, ensureDatabase, type Pool } from '../store/pool.js'
import { schemaDifferences } from '../store/schema-check.js'
import { checkTotals, describeTotalsCheck } from '../store/totals-check.js'
import { DEFAULT_PIECE_ROWS, rebuildTotals } from '../store/totals-rebuild.js'
import type { CommandArguments } from '../tools/shared/command-arguments.js'
import { commandOptions } from './command-options.js'

/** The demo data's scale: `--scale`, else SEED_SCALE, else 1. */
export function scaleFrom(options: CommandArguments): number {
  const text = options.value('scale') ?? process.env.SEED_SCALE ?? '1'
  const scale = Number(text)
  if (!Number.isFinite(scale) || scale < 0 || scale > 100_000)
    throw new Error(`SEED_SCALE / --scale must be a number from 0 to 100000 (got ${text})`)
  return scale
}

/** A progress bar for a seed that takes a while, or on a terminal (its package loaded only then: `serve` without one loads none of it). */
export async function progressBar(scale: number): Promise<SeedProgress | undefined> {
  if (scale < 5 && !process.stdout.isTTY) return undefined
  const { default: cliProgress } = await import('cli-progress')
  const bar = new cliProgress.SingleBar(
    { format: 'seeding {label} [{bar}] {percentage}% | {value}/{total} | eta {eta_formatted}', hideCursor: true },
    cliProgress.Presets.shades_classic,
  )
  return {
    start: (total, label) => bar.start(total, 0, { label }),
    advance: (by) => bar.increment(by),
    stop: () => bar.stop(),
  }
}

/** Creates the database when missing and brings its schema to the model's, saying what changed. */
export async function prepareDatabase(model: ServiceModel): Promise<Pool> {
  const address = parseDatabaseUrl()
  await ensureDatabase(address)
  const pool = createPool(address)
  const report = await migrate(pool, model)
  if (report.createdTables.length > 0) console.log(`schema: created ${report.createdTables.length} table(s)`)
  if (report.addedColumns.length > 0) console.log(`schema: added column(s) ${report.addedColumns.join(', ')}`)
  if (report.widenedColumns.length > 0) console.log(`schema: widened ${report.widenedColumns.join(', ')}`)
  for (const warning of report.warnings) console.warn(`schema: ${warning}`)
  return pool
}

/** The model of the configuration the environment names, the environment checked first. */
function configuredModel(): ServiceModel {
  return loadModel(readEnvironment(process.env).configFile)
}

export async function migrateCommand(args: readonly string[]): Promise<number> {
  commandOptions('migrate', args)
  const pool = await prepareDatabase(configuredModel())
  await pool.end()
  return 0
}

export async function seedCommand(args: readonly string[]): Promise<number> {
  const options = commandOptions('seed', args, { values: ['scale'], flags: ['force'] })
  const scale = scaleFrom(options)
  const model = configuredModel()
  const pool = await prepareDatabase(model)
  const started = Date.now()
  const result = await seedDemoData(pool, model, { scale, force: options.flag('force'), progress: await progressBar(scale) })
  console.log(`seed: ${result.message} (${((Date.now() - started) / 1000).toFixed(1)} s)`)
  await pool.end()
  return 0
}

/** `--piece-rows N`: the movements one piece of the totals rebuild reads at most (one month may hold more). */
function pieceRowsFrom(options: CommandArguments): number {
  const text = options.value('piece-rows') ?? String(DEFAULT_PIECE_ROWS)
  const rows = Number(text)
  if (!Number.isInteger(rows) || rows < 1) throw new Error(`--piece-rows must be a whole number of at least 1 (got ${text})`)
  return rows
}

export async function recomputeTotalsCommand(args: readonly string[]): Promise<number> {
  const pieceRows = pieceRowsFrom(commandOptions('recompute-totals', args, { values: ['piece-rows'] }))
  const model = configuredModel()
  const pool = await prepareDatabase(model)
  const started = Date.now()
  const report = await rebuildTotals(pool, model, { pieceRows })
  console.log(
    `totals recomputed from movements${report.resumed ? ' (an interrupted rebuild finished)' : ''}: ${report.pieces} piece(s), the largest ${report.largestPieceRows} rows, ${((Date.now() - started) / 1000).toFixed(1)} s`,
  )
  await pool.end()
  return 0
}

/** Exit statuses of `verify`. */
const TOTALS_EQUAL = 0
const TOTALS_DIFFER = 1
const TOTALS_NOT_CHECKED = 2

/**
 * `verify`: the read-only totals check. No migrate first: a check must not change what it checks. Every
 * failure to check, a wrong argument included, is status 2, so that 1 always means "the totals differ".
 */
export async function verifyCommand(args: readonly string[]): Promise<number> {
  let model: ServiceModel
  try {
    commandOptions('verify', args)
    model = configuredModel()
  } catch (error) {
    console.error(error instanceof Error ? error.message : String(error))
    return TOTALS_NOT_CHECKED
  }
  const pool = createPool(parseDatabaseUrl())
  try {
    const schema = await schemaDifferences(pool, model)
    if (schema.length > 0) {
      console.error(`verify: the database is not at the code's schema (run migrate first):\n  ${schema.join('\n  ')}`)
      return TOTALS_NOT_CHECKED
    }
    const check = await checkTotals(pool, model)
    for (const line of describeTotalsCheck(check)) console.log(line)
    return Object.values(check.differingGroups).some((count) => count > 0) ? TOTALS_DIFFER : TOTALS_EQUAL
  } catch (error) {
    console.error(`verify: the check could not be made: ${error instanceof Error ? error.message : String(error)}`)
    return TOTALS_NOT_CHECKED
  } finally {
    await pool.end()
  }
}

/** `prune-log`: the request log's retention rules applied once, for a timer of the operator's (docs/request-log.md). */
export async function pruneLogCommand(args: readonly string[]): Promise<number> {
  commandOptions('prune-log', args)
  const environment = readEnvironment(process.env)
  if (!retentionEnabled(environment.logRetention))
    throw new Error('prune-log: set REQUEST_LOG_KEEP_DAYS or REQUEST_LOG_KEEP_ROWS to say what the request log keeps')
  const pool = createPool(parseDatabaseUrl(environment.databaseUrl))
  try {
    const result = await pruneRequestLog(pool, environment.logRetention)
    console.log(
      result === undefined
        ? 'prune-log: another process is pruning the request log; nothing done'
        : `prune-log: removed ${result.removed} request-log entries in ${result.chunks} chunk(s)`,
    )
  } finally {
    await pool.end()
  }
  return 0
}
