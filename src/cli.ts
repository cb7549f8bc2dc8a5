#!/usr/bin/env node
// The command line: `serve` (what `make run` ends with), `migrate`, `seed`, `recompute-totals`,
// `check-config`, and three clients of the service over HTTP: the bulk loader `load` (src/tools/load), the load
// driver `drive` (src/tools/drive) and the exporter `export` (src/tools/export). Environment: see src/ops/environment.ts and the README's settings table.
import { existsSync } from 'node:fs'
import cliProgress from 'cli-progress'
import { ConfigurationError } from './model/configuration.js'
import { loadModel } from './model/load-model.js'
import type { ServiceModel } from './model/model.js'
import { startServer } from './http/server.js'
import { gracefulStopper, type GracefulStopper } from './ops/graceful-stop.js'
import { readEnvironment, type ProcessEnvironment } from './ops/environment.js'
import { claimPort, isWorkerProcess, serveAsWorker, startWorkers } from './ops/workers.js'
import { CorsPolicy } from './http/cors.js'
import { seedDemoData, type SeedProgress } from './seed/seed-data.js'
import { createServiceContext } from './service/service-context.js'
import { parseDatabaseUrl } from './store/database-url.js'
import { migrate } from './store/migrate.js'
import { createPool, ensureDatabase, type Pool } from './store/pool.js'
import { recomputeTotals } from './store/totals.js'
import { driveCommand } from './tools/drive/drive-command.js'
import { exportCommand } from './tools/export/export-command.js'
import { loadCommand } from './tools/load/load-command.js'

function configPath(): string {
  if (process.env.CONFIG) return process.env.CONFIG
  return ['config/demo.json', 'config/demo.yaml', 'config/demo.yml'].find((f) => existsSync(f)) ?? 'config/demo.json'
}

function option(args: string[], name: string): string | undefined {
  const index = args.indexOf(name)
  return index >= 0 ? args[index + 1] : undefined
}

function scaleFrom(args: string[]): number {
  const text = option(args, '--scale') ?? process.env.SEED_SCALE ?? '1'
  const scale = Number(text)
  if (!Number.isFinite(scale) || scale < 0 || scale > 100_000)
    throw new Error(`SEED_SCALE / --scale must be a number from 0 to 100000 (got ${text})`)
  return scale
}

function progressBar(scale: number): SeedProgress | undefined {
  if (scale < 5 && !process.stdout.isTTY) return undefined
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

async function prepareDatabase(model: ServiceModel): Promise<Pool> {
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

async function serve(args: string[]): Promise<void> {
  // Every variable is checked before anything else happens (src/ops/environment.ts).
  const environment = readEnvironment(process.env)
  const file = environment.configFile
  const model = loadModel(file)
  if (isWorkerProcess()) return serveOneProcess(model, createPool(parseDatabaseUrl(environment.databaseUrl)), environment, serveAsWorker)
  const pool = await prepareDatabase(model)
  const scale = scaleFrom(args)
  const seed = await seedDemoData(pool, model, { scale, progress: progressBar(scale) })
  console.log(`seed: ${seed.message}`)
  // uWS listens with SO_REUSEPORT: without this check a second service on the port would share it silently.
  const port = await claimPort(environment.host, environment.port)
  let processes = 1
  if (environment.workers === 1) {
    await serveOneProcess(model, pool, { ...environment, port }, (stopper) => {
      for (const signal of ['SIGTERM', 'SIGINT'] as const) process.on(signal, stopper.signal)
    })
  } else {
    await pool.end()
    processes = (await startWorkers(environment.workers, { PORT: String(port) })).count
  }
  const base = `http://${environment.host}:${port}`
  console.log(`\n${model.name} OData service (configuration ${file}; ${processes} process${processes === 1 ? '' : 'es'})`)
  console.log(`  reference flavour (HTTP Basic):  ${base}${model.mounts.reference}/v4/`)
  console.log(`  token flavour:                   ${base}${model.mounts.token}/v4/   (or ${base}${model.mounts.token}/t/<token>/v4/)`)
  console.log(`  operations: ${base}/health, ${base}/ready, ${base}/metrics; administration: <service root>/$admin`)
  if (model.subjects.length > 0) {
    console.log('  credentials:')
    for (const subject of model.subjects) {
      console.log(
        `    ${subject.name}: Basic ${subject.name}:${subject.password ?? '(none)'}, token ${subject.token ?? '(none)'} (profile ${subject.profile.name})`,
      )
    }
  }
  console.log(
    `  try: curl -u ${model.subjects[0]?.name ?? 'user'}:${model.subjects[0]?.password ?? 'password'} ${base}${model.mounts.reference}/v4/$metadata\n`,
  )
}

/** One service process on the pool: the server, and how a stop reaches it (signals, or the primary's word). */
async function serveOneProcess(
  model: ServiceModel,
  pool: Pool,
  environment: ProcessEnvironment,
  stopWhen: (stopper: GracefulStopper) => void,
): Promise<void> {
  const context = createServiceContext(model, pool, process.env)
  const server = await startServer(context, {
    host: environment.host,
    port: environment.port,
    metricsToken: environment.metricsToken,
    corsOrigins: environment.corsOrigins,
    pipelining: environment.pipelining,
  })
  stopWhen(
    gracefulStopper(server, {
      timeoutMs: environment.stopTimeoutSeconds * 1000,
      release: async () => {
        await context.requestLog.flush()
        await pool.end()
      },
    }),
  )
}

async function main(): Promise<void> {
  const [command = 'serve', ...args] = process.argv.slice(2)
  switch (command) {
    case 'serve':
      return serve(args)
    case 'check-config': {
      const environment = readEnvironment(process.env)
      const model = loadModel(environment.configFile)
      // The allowed origins are checked as the server will read them.
      new CorsPolicy(model.configuration.cors, environment.corsOrigins)
      console.log(`${environment.configFile}: valid (${model.entitySets.length} entity sets); environment valid`)
      return
    }
    case 'migrate': {
      const pool = await prepareDatabase(loadModel(configPath()))
      await pool.end()
      return
    }
    case 'seed': {
      const model = loadModel(configPath())
      const pool = await prepareDatabase(model)
      const scale = scaleFrom(args)
      const started = Date.now()
      const result = await seedDemoData(pool, model, { scale, force: args.includes('--force'), progress: progressBar(scale) })
      console.log(`seed: ${result.message} (${((Date.now() - started) / 1000).toFixed(1)} s)`)
      await pool.end()
      return
    }
    case 'recompute-totals': {
      const model = loadModel(configPath())
      const pool = await prepareDatabase(model)
      await recomputeTotals(pool, model)
      console.log('totals recomputed from movements')
      await pool.end()
      return
    }
    case 'load':
      process.exitCode = await loadCommand(args)
      return
    case 'drive':
      process.exitCode = await driveCommand(args)
      return
    case 'export':
      process.exitCode = await exportCommand(args)
      return
    default:
      throw new Error(
        `unknown command ${command}; commands: serve, migrate, seed [--scale N] [--force], recompute-totals, check-config, load, drive, export`,
      )
  }
}

main().catch((error: unknown) => {
  if (error instanceof ConfigurationError) console.error(error.message)
  else if ((error as { code?: string }).code === 'ECONNREFUSED')
    console.error(
      `No MySQL server answers at ${process.env.DATABASE_URL ?? '127.0.0.1:3306'}: start one (make run does) or set DATABASE_URL`,
    )
  else console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
