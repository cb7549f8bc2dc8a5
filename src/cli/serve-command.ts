// `odata-registers serve` (what `make run` ends with): the environment checked, the schema brought to the
// configuration's, the demo data seeded into an empty database, then one process or WORKERS processes
// serving, and a banner with the service roots, the credentials and a first request to try.
import path from 'node:path'
import { startListener } from '../pipelining/start-listener.js'
import { startRetention } from '../log/request-log-retention.js'
import { PACKAGED_CONFIGURATION_FILE } from '../model/default-configuration.js'
import { loadModel } from '../model/load-model.js'
import type { ServiceModel } from '../model/model.js'
import { readEnvironment, type ProcessEnvironment } from '../ops/environment.js'
import { gracefulStopper, type GracefulStopper } from '../ops/graceful-stop.js'
import { claimPort, isWorkerProcess, serveAsWorker, startWorkers } from '../ops/workers.js'
import { seedDemoData } from '../seed/seed-data.js'
import { createServiceContext } from '../service/service-context.js'
import { parseDatabaseUrl } from '../store/database-url.js'
import { createPool, type Pool } from '../store/pool.js'
import { commandOptions } from './command-options.js'
import { prepareDatabase, progressBar, scaleFrom } from './database-commands.js'

export async function serveCommand(args: readonly string[]): Promise<undefined> {
  const options = commandOptions('serve', args, { values: ['scale'] })
  await serve(scaleFrom(options))
  return undefined
}

async function serve(scale: number): Promise<void> {
  // Every variable is checked before anything else happens (src/ops/environment.ts).
  const environment = readEnvironment(process.env)
  const file = environment.configFile
  const model = loadModel(file)
  if (isWorkerProcess()) return serveOneProcess(model, createPool(parseDatabaseUrl(environment.databaseUrl)), environment, serveAsWorker)
  const pool = await prepareDatabase(model)
  const seed = await seedDemoData(pool, model, { scale, progress: await progressBar(scale) })
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
  console.log(banner(model, file, `http://${environment.host}:${port}`, processes))
}

/** What an operator reads when the service is up: where it answers, who may call it, one request to try. */
function banner(model: ServiceModel, file: string, base: string, processes: number): string {
  const lines = [
    '',
    `${model.name} OData service (configuration ${file}; ${processes} process${processes === 1 ? '' : 'es'})`,
    `  reference flavour (HTTP Basic):  ${base}${model.mounts.reference}/v4/`,
    `  token flavour:                   ${base}${model.mounts.token}/v4/   (or ${base}${model.mounts.token}/t/<token>/v4/)`,
    `  operations: ${base}/health, ${base}/ready, ${base}/metrics; administration: <service root>/$admin`,
  ]
  if (!isDemoConfiguration(file)) {
    const subjects = model.subjects.map((subject) => `${subject.name} (profile ${subject.profile.name})`).join(', ')
    lines.push(
      `  subjects: ${subjects || 'none'}`,
      `  try: curl -u '<subject>:<password>' '${base}${model.mounts.reference}/v4/$metadata'`,
      '',
    )
    return lines.join('\n')
  }
  if (model.subjects.length > 0) {
    lines.push("  credentials (the demo configuration's; another configuration's are never printed):")
    for (const subject of model.subjects)
      lines.push(
        `    ${subject.name}: Basic ${subject.name}:${subject.password ?? '(none)'}, token ${subject.token ?? '(none)'} (profile ${subject.profile.name})`,
      )
  }
  // Quoted: a shell would otherwise take `$metadata` for a variable and drop it.
  const user = `${model.subjects[0]?.name ?? 'user'}:${model.subjects[0]?.password ?? 'password'}`
  lines.push(`  try: curl -u ${user} '${base}${model.mounts.reference}/v4/$metadata'`, '')
  return lines.join('\n')
}

/**
 * The demo configuration's credentials are public (the README lists them) and printed at start to get a
 * newcomer going; any other configuration's are secrets, which a start banner would leave in every log
 * that collects the process's output.
 */
function isDemoConfiguration(file: string): boolean {
  return path.resolve(file) === PACKAGED_CONFIGURATION_FILE
}

/** One service process on the pool: the server, and how a stop reaches it (signals, or the primary's word). */
async function serveOneProcess(
  model: ServiceModel,
  pool: Pool,
  environment: ProcessEnvironment,
  stopWhen: (stopper: GracefulStopper) => void,
): Promise<void> {
  const context = createServiceContext(model, pool, process.env)
  const server = await startListener(context, {
    host: environment.host,
    port: environment.port,
    metricsToken: environment.metricsToken,
    corsOrigins: environment.corsOrigins,
    pipelining: environment.pipelining,
  })
  // Every process prunes in turn (one at a time: src/log/request-log-retention.ts).
  const stopRetention = startRetention(pool, environment.logRetention)
  stopWhen(
    gracefulStopper(server, {
      timeoutMs: environment.stopTimeoutSeconds * 1000,
      release: async () => {
        stopRetention()
        await context.requestLog.flush()
        await pool.end()
      },
    }),
  )
}
