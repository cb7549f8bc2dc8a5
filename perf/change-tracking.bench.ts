// The extract side (docs/change-tracking.md, docs/export.md): three figures, each against a baseline measured
// in the same run:
//   1. a delta of about a thousand changed movements (a hundred documents re-posted) through the service,
//      against reading the same rows by key in one request (`Recorder in (…)`, the primary key's prefix):
//      a delta costs its changes, not the set                                              target ≤ 3×.
//      The target is for ten million movements: `make bench-full` (BENCH_FULL=1) measures it on the
//      database of SEED_SCALE 1000 (CHANGE_BENCH_DATABASE_URL, by default odata_bench_1000, the one
//      perf/virtual-tables.bench.ts uses, seeded once when missing, about 40 minutes; CHANGE_BENCH_SCALE
//      for another scale); `make bench` on the
//      bench database at SEED_SCALE 100 (about a million), and its line says so;
//   2. `odata-registers export` of every movement (about a million, SEED_SCALE 100) to NDJSON, the tool run
//      as a user runs it, against a raw mysql2 stream of the same SQL serialised with JSON.stringify
//      (perf/support/export-server.ts); both read from the same server state and write the same rows  ≥ 0.7;
//   3. the change record's cost to batch creates: the write of a change set of 100 catalog creates (the
//      service's own `writeCreates` in `runInTransaction`, 4 at once), with its notes against the same
//      write with the notes dropped before the COMMIT. The whole service does more per create than this
//      transaction, so the notes' share of its throughput is smaller still                     ≥ 0.9.
// Run: node scripts/run-benchmarks.mjs change-tracking   (BENCH_SECONDS for part 3; CHANGE_BENCH_ONLY=delta,
// export or record runs only those parts; BENCH_CPU_PROF=<folder> profiles the service and the export tool)
import { exportSelectSql } from './support/export-sql.js'
import { spawn, type ChildProcess } from 'node:child_process'
import { rmSync } from 'node:fs'
import http from 'node:http'
import { NO_QUERY_OPTIONS } from '../src/odata/query-options.js'
import type { ServiceRequest } from '../src/service/service-request.js'
import { createServiceContext } from '../src/service/service-context.js'
import { planCreate, writeCreates } from '../src/service/writes/write-object.js'
import { discardRecordedChanges } from '../src/store/change-record.js'
import { runInTransaction } from '../src/store/transaction.js'
import { readSeedMarker, seedDemoData } from '../src/seed/seed-data.js'
import { parseDatabaseUrl } from '../src/store/database-url.js'
import { migrate } from '../src/store/migrate.js'
import { createPool, ensureDatabase } from '../src/store/pool.js'
import { startBenchmarkServer } from '../test/support/service-child.js'
import { prepareBenchDatabase, waitForQuietDatabase } from './support/bench-database.js'
import { printResult } from './support/report.js'
import { sizeServerMemory } from './support/server-memory.js'

const SCALE = Number(process.env.SEED_SCALE ?? 100)
const FULL = process.env.BENCH_FULL === '1'
const DELTA_SCALE = FULL ? Number(process.env.CHANGE_BENCH_SCALE ?? 1000) : SCALE
const DELTA_DATABASE_URL = process.env.CHANGE_BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306/odata_bench_1000'
const ONLY = (process.env.CHANGE_BENCH_ONLY ?? '').split(',').filter((part) => part !== '')
const wanted = (part: string) => ONLY.length === 0 || ONLY.includes(part)
const PORT = 18291
const DELTA_PORT = 18292
const SET = 'AccumulationRegister_Stock_RecordType'
const ROOT = '/odata/standard.odata/v4/'
const AUTHORIZATION = `Basic ${Buffer.from('bench:bench').toString('base64')}`
const REPEATS = 7
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4)
const MARK = 'bench-change-record'
const OUTPUT = `/tmp/odata-bench-export-${process.pid}.ndjson`

const { model, pool } = await prepareBenchDatabase(SCALE)
const [[{ total }]] = (await pool.query('SELECT COUNT(*) AS total FROM ar_Stock')) as unknown as [[{ total: number }]]
console.log(
  `  ${Number(total)} movements at SEED_SCALE ${SCALE}${FULL && wanted('delta') ? `; the delta at SEED_SCALE ${DELTA_SCALE}` : ''}`,
)
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

// BENCH_CPU_PROF: the service under `node --cpu-prof` (the shared child starter's rule), and the exporter too.
const PROFILE = process.env.BENCH_CPU_PROF
const profileFlags = PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${PROFILE}`] : []
async function startChild(args: string[], environment: Record<string, string> = {}): Promise<ChildProcess> {
  return (await startBenchmarkServer('export-server.js', args, { LOG_LEVEL: 'silent', ...environment })).child
}

/** Stops a child started by startChild and waits for it (and its profile) to be gone. */
function stopChild(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null) return resolve()
    child.once('exit', () => resolve())
    child.send('exit')
    setTimeout(() => child.kill(), 10_000).unref()
  })
}

/** One GET: milliseconds for the whole body, and the body. */
function get(port: number, path: string, headers: Record<string, string> = {}): Promise<{ ms: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const request = http.request(
      { host: '127.0.0.1', port, path, agent: false, headers: { Authorization: AUTHORIZATION, ...headers } },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => {
          const body = Buffer.concat(chunks)
          if (response.statusCode !== 200 && response.statusCode !== 204)
            return reject(new Error(`${path}: ${response.statusCode} ${body.subarray(0, 300).toString()}`))
          resolve({ ms: Number(process.hrtime.bigint() - started) / 1e6, body })
        })
      },
    )
    request.on('error', reject)
    request.end()
  })
}

function post(port: number, path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path, method: 'POST', agent: false, headers: { Authorization: AUTHORIZATION } },
      (response) => {
        response.resume()
        response.on('end', () => (response.statusCode === 204 ? resolve() : reject(new Error(`${path}: ${response.statusCode}`))))
      },
    )
    request.on('error', reject)
    request.end()
  })
}

/** The delta link that ends a tracked read of the whole set, following its pages (a big page each). */
async function deltaLinkOfWholeRead(port: number): Promise<string> {
  let path = `${ROOT}${SET}?$select=Recorder,LineNumber,Quantity`
  for (;;) {
    const { body } = await get(port, path, { Prefer: 'odata.track-changes,odata.maxpagesize=200000' })
    const end = body.subarray(Math.max(0, body.length - 2048)).toString()
    const delta = /"@odata\.deltaLink":"([^"]+)"\}$/.exec(end)?.[1]
    if (delta) return delta.slice(delta.indexOf(ROOT))
    const next = /"@odata\.nextLink":"([^"]+)"\}$/.exec(end)?.[1]
    if (!next) throw new Error('the tracked read ended without a delta link')
    path = next.slice(next.indexOf(ROOT))
  }
}

/**
 * 1. A delta of ~1,000 movements against reading them by key, on the database `pool` reads and the service
 * at `port` serves. The tracked read of the whole set gives the delta link; then a hundred receipts are
 * posted again, replacing their movements.
 */
async function measureDelta(port: number, deltaPool: typeof pool, scale: number): Promise<void> {
  const [[{ movements }]] = (await deltaPool.query('SELECT COUNT(*) AS movements FROM ar_Stock')) as unknown as [[{ movements: number }]]
  const recorders = (await deltaPool.query(
    "SELECT Recorder, COUNT(*) AS line_count FROM ar_Stock WHERE Recorder_Type = 'StandardODATA.Document_GoodsReceipt' GROUP BY Recorder LIMIT 100",
  )) as unknown as [{ Recorder: string; line_count: number }[]]
  const keys = recorders[0].map((row) => row.Recorder)
  const changedRows = recorders[0].reduce((sum, row) => sum + Number(row.line_count), 0)
  const deltaPath = await deltaLinkOfWholeRead(port)
  for (const key of keys) await post(port, `${ROOT}Document_GoodsReceipt(${key})/Post`)
  const byKeyPath = `${ROOT}${SET}?$select=Recorder,LineNumber,Quantity&$filter=${encodeURIComponent(`Recorder in (${keys.join(',')})`)}`
  const page = { Prefer: 'odata.maxpagesize=5000' }
  const first = await get(port, deltaPath, page)
  const shown = (first.body.toString().match(/"@id":/g) ?? []).length
  if (Math.abs(shown - changedRows) > changedRows * 0.05) throw new Error(`the delta shows ${shown} rows, ${changedRows} changed`)
  const byKey = await get(port, byKeyPath, page)
  const read = (byKey.body.toString().match(/"LineNumber":/g) ?? []).length
  if (read !== changedRows) throw new Error(`the read by key shows ${read} rows, ${changedRows} changed`)
  const deltaTimes: number[] = []
  const keyTimes: number[] = []
  for (let i = 0; i < REPEATS; i++) {
    deltaTimes.push((await get(port, deltaPath, page)).ms)
    keyTimes.push((await get(port, byKeyPath, page)).ms)
  }
  if (scale < 1000)
    console.log(
      `  NOTE: the delta ran over ${Number(movements)} movements (SEED_SCALE ${scale}), not the ten million the target is set for; \`make bench-full\` measures that`,
    )
  printResult({
    benchmark: 'delta-of-changes',
    figure: median(deltaTimes),
    unit: 'ms',
    baseline: median(keyTimes),
    baselineName: `the same ${changedRows} rows read by key in one request`,
    target: 1 / 3,
    lowerIsBetter: true,
    extra: { movements: Number(movements), seedScale: scale, changedRows, shown, deltaTimes, keyTimes },
  })
}

if (wanted('delta')) {
  if (FULL) {
    // The ten-million-movement database of perf/virtual-tables.bench.ts, seeded once when missing.
    const address = parseDatabaseUrl(DELTA_DATABASE_URL)
    await ensureDatabase(address)
    const deltaPool = createPool(address)
    await migrate(deltaPool, model)
    const marker = await readSeedMarker(deltaPool)
    if (!marker || marker.scale < DELTA_SCALE) {
      console.log(`  ${await sizeServerMemory(deltaPool)}`)
      console.log(`  seeding ${address.database} at scale ${DELTA_SCALE} (about 40 minutes) …`)
      await seedDemoData(deltaPool, model, { scale: DELTA_SCALE, force: marker !== undefined })
    }
    const service = await startChild(['service', String(DELTA_PORT)], { BENCH_DATABASE_URL: DELTA_DATABASE_URL })
    try {
      await measureDelta(DELTA_PORT, deltaPool, (await readSeedMarker(deltaPool))?.scale ?? DELTA_SCALE)
    } finally {
      await stopChild(service)
      await deltaPool.end()
    }
  } else {
    const service = await startChild(['service', String(PORT)])
    try {
      await measureDelta(PORT, pool, SCALE)
    } finally {
      await stopChild(service)
    }
  }
}

// 2. The export tool against a raw stream of the same SQL (the read pipeline's plan for the set). The tool
// runs first, then the baseline, then the tool again: the figure is the better of the tool's runs against
// the baseline's, so a burst of other work on the shared machine does not decide it.
if (wanted('export')) {
  const service = await startChild(['service', String(PORT)])
  try {
    const exportSql = exportSelectSql(model, SET)
    const baseline = async () => {
      const child = await startChild(['baseline'])
      const result = await new Promise<{ rows: number; seconds: number }>((resolve) => {
        child.once('message', (message) => resolve(message as { rows: number; seconds: number }))
        child.send({ sql: exportSql })
      })
      if (result.rows !== Number(total)) throw new Error(`the baseline read ${result.rows} rows, the set has ${total}`)
      return result.rows / result.seconds
    }
    const exportOnce = () =>
      new Promise<number>((resolve, reject) => {
        const started = process.hrtime.bigint()
        const args = [
          ...profileFlags,
          'build/src/cli.js',
          'export',
          '--set',
          SET,
          '--output',
          OUTPUT,
          '--url',
          `http://127.0.0.1:${PORT}${ROOT}`,
          '--user',
          'bench:bench',
        ]
        const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'ignore'] })
        let stdout = ''
        child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
        child.on('close', (code) => {
          const seconds = Number(process.hrtime.bigint() - started) / 1e9
          const summary = /"rows":(\d+)/.exec(stdout)
          if (code !== 0 || !summary) return reject(new Error(`export exited ${code}: ${stdout}`))
          if (Number(summary[1]) !== Number(total)) return reject(new Error(`the export wrote ${summary[1]} rows, the set has ${total}`))
          resolve(Number(summary[1]) / seconds)
        })
      })
    const tools: number[] = []
    const baselines: number[] = []
    tools.push(await exportOnce())
    baselines.push(await baseline())
    tools.push(await exportOnce())
    baselines.push(await baseline())
    printResult({
      benchmark: 'export-tool-ndjson',
      figure: Math.max(...tools),
      unit: 'rows/s',
      baseline: Math.max(...baselines),
      baselineName: 'raw mysql2 stream + JSON.stringify, same SQL',
      target: 0.7,
      extra: { rows: Number(total), tools, baselines },
    })
  } finally {
    await stopChild(service)
    rmSync(OUTPUT, { force: true })
    rmSync(`${OUTPUT}.checkpoint`, { force: true })
  }
}

if (!wanted('record')) {
  await pool.end()
  process.exit(0)
}
// 3. The notes' cost to a change set of 100 creates, 4 writers at once, with and without, alternately.
const context = createServiceContext(model, pool)
const products = model.entitySetByName.get('Catalog_Products')!
const subject = model.subjects.find((s) => s.name === 'bench')!
let serial = 0
function changeSet() {
  return Array.from({ length: 100 }, () => {
    serial++
    const request: ServiceRequest = {
      method: 'POST',
      path: { kind: 'collection', set: products, count: false } as unknown as ServiceRequest['path'],
      query: NO_QUERY_OPTIONS,
      headers: new Map([['content-type', 'application/json']]),
      body: Buffer.from(JSON.stringify({ Code: `N${String(serial).padStart(10, '0')}`, Description: `Bench ${serial}`, Article: MARK })),
      subject,
      flavour: 'token',
      serviceRoot: 'http://127.0.0.1/api/v4/',
    }
    return planCreate(context, request, products)
  })
}
async function createsPerSecond(notes: boolean): Promise<number> {
  const deadline = Date.now() + SECONDS * 1000
  let creates = 0
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (Date.now() < deadline) {
        const plans = changeSet()
        await runInTransaction(pool, async (transaction) => {
          await writeCreates(transaction, model, plans)
          if (!notes) discardRecordedChanges(transaction)
        })
        creates += plans.length
      }
    }),
  )
  return creates / SECONDS
}
await waitForQuietDatabase(pool)
await createsPerSecond(true)
const withNotes: number[] = []
const without: number[] = []
for (let i = 0; i < 2; i++) {
  withNotes.push(await createsPerSecond(true))
  without.push(await createsPerSecond(false))
}
const average = (values: readonly number[]) => values.reduce((a, b) => a + b, 0) / values.length
printResult({
  benchmark: 'change-record-cost',
  figure: average(withNotes),
  unit: 'creates/s',
  baseline: average(without),
  baselineName: 'the same change sets of 100 creates without their notes',
  target: 0.9,
  extra: { withNotes, without },
})
await pool.query('DELETE FROM c_Products WHERE Article = ?', [MARK])
await pool.query("DELETE FROM _change_notes WHERE table_name = 'c_Products'")
await pool.end()
