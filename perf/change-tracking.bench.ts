// The extract side (docs/change-tracking.md, docs/export.md): three figures, each against a baseline measured
// in the same run, on the movements of the bench database (SEED_SCALE 100: about a million, the database
// export-records reads; the ten-million-movement database of `make bench-full` is not measured here yet).
//   1. a delta of about a thousand changed movements (a hundred documents re-posted) through the service,
//      against reading the same rows by key in one request (`Recorder in (…)`, the primary key's prefix):
//      a delta costs its changes, not the set                                              target ≤ 3×;
//   2. `odata-registers export` of every movement to NDJSON, the tool run as a user runs it, against a raw
//      mysql2 stream of the same SQL serialised with JSON.stringify (perf/support/export-server.ts)   ≥ 0.7;
//   3. the change record's cost to batch creates: the write of a change set of 100 catalog creates (the
//      service's own `writeCreates` in `runInTransaction`, 4 at once), with its notes against the same
//      write with the notes dropped before the COMMIT. The whole service does more per create than this
//      transaction, so the notes' share of its throughput is smaller still                     ≥ 0.9.
// Run: node scripts/run-benchmarks.mjs change-tracking   (BENCH_SECONDS for part 3)
import { exportSelectSql } from './support/export-sql.js'
import { fork, spawn, type ChildProcess } from 'node:child_process'
import { rmSync } from 'node:fs'
import http from 'node:http'
import { fileURLToPath } from 'node:url'
import { NO_QUERY_OPTIONS } from '../src/odata/query-options.js'
import type { ServiceRequest } from '../src/service/service-request.js'
import { createServiceContext } from '../src/service/service-context.js'
import { planCreate, writeCreates } from '../src/service/writes/write-object.js'
import { discardRecordedChanges } from '../src/store/change-record.js'
import { runInTransaction } from '../src/store/transaction.js'
import { prepareBenchDatabase, waitForQuietDatabase } from './support/bench-database.js'
import { printResult } from './support/report.js'

const SCALE = Number(process.env.SEED_SCALE ?? 100)
const PORT = 18291
const SET = 'AccumulationRegister_Stock_RecordType'
const ROOT = '/odata/standard.odata/v4/'
const AUTHORIZATION = `Basic ${Buffer.from('bench:bench').toString('base64')}`
const REPEATS = 7
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4)
const MARK = 'bench-change-record'
const OUTPUT = `/tmp/odata-bench-export-${process.pid}.ndjson`

const { model, pool } = await prepareBenchDatabase(SCALE)
const [[{ total }]] = (await pool.query('SELECT COUNT(*) AS total FROM ar_Stock')) as unknown as [[{ total: number }]]
console.log(`  ${Number(total)} movements at SEED_SCALE ${SCALE}`)
const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

const childScript = fileURLToPath(new URL('./support/export-server.js', import.meta.url))
function startChild(args: string[]): Promise<ChildProcess> {
  const child = fork(childScript, args, { stdio: ['ignore', 'inherit', 'inherit', 'ipc'], env: { ...process.env, LOG_LEVEL: 'silent' } })
  return new Promise((resolve, reject) => {
    child.once('message', () => resolve(child))
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code}`)))
  })
}

/** One GET: milliseconds for the whole body, and the body. */
function get(path: string, headers: Record<string, string> = {}): Promise<{ ms: number; body: Buffer }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const request = http.request(
      { host: '127.0.0.1', port: PORT, path, agent: false, headers: { Authorization: AUTHORIZATION, ...headers } },
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

function post(path: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port: PORT, path, method: 'POST', agent: false, headers: { Authorization: AUTHORIZATION } },
      (response) => {
        response.resume()
        response.on('end', () => (response.statusCode === 204 ? resolve() : reject(new Error(`${path}: ${response.statusCode}`))))
      },
    )
    request.on('error', reject)
    request.end()
  })
}

const service = await startChild(['service', String(PORT)])
try {
  // 1. A delta of ~1,000 movements against reading them by key. The tracked read of the whole set gives
  // the delta link (its last bytes); then a hundred receipts are posted again, replacing their movements.
  const recorders = (await pool.query(
    "SELECT Recorder, COUNT(*) AS line_count FROM ar_Stock WHERE Recorder_Type = 'StandardODATA.Document_GoodsReceipt' GROUP BY Recorder LIMIT 100",
  )) as unknown as [{ Recorder: string; line_count: number }[]]
  const keys = recorders[0].map((row) => row.Recorder)
  const changedRows = recorders[0].reduce((sum, row) => sum + Number(row.line_count), 0)
  const tracked = await get(`${ROOT}${SET}?$select=Recorder,LineNumber,Quantity`, { Prefer: 'odata.track-changes' })
  const link = /"@odata\.deltaLink":"([^"]+)"\}$/.exec(tracked.body.subarray(tracked.body.length - 2048).toString())?.[1]
  if (!link) throw new Error('the tracked read ended without a delta link')
  const deltaPath = link.slice(link.indexOf(ROOT))
  for (const key of keys) await post(`${ROOT}Document_GoodsReceipt(${key})/Post`)
  const byKeyPath = `${ROOT}${SET}?$select=Recorder,LineNumber,Quantity&$filter=${encodeURIComponent(`Recorder in (${keys.join(',')})`)}`
  const page = { Prefer: 'odata.maxpagesize=5000' }
  const first = await get(deltaPath, page)
  const shown = (first.body.toString().match(/"@id":/g) ?? []).length
  if (Math.abs(shown - changedRows) > changedRows * 0.05) throw new Error(`the delta shows ${shown} rows, ${changedRows} changed`)
  const deltaTimes: number[] = []
  const keyTimes: number[] = []
  await get(byKeyPath, page)
  for (let i = 0; i < REPEATS; i++) {
    deltaTimes.push((await get(deltaPath, page)).ms)
    keyTimes.push((await get(byKeyPath, page)).ms)
  }
  printResult({
    benchmark: 'delta-of-changes',
    figure: median(deltaTimes),
    unit: 'ms',
    baseline: median(keyTimes),
    baselineName: `the same ${changedRows} rows read by key in one request`,
    target: 1 / 3,
    lowerIsBetter: true,
    extra: { movements: Number(total), changedRows, shown },
  })

  // 2. The export tool against a raw stream of the same SQL (the read pipeline's plan for the set).
  const exportSql = exportSelectSql(model, SET)
  const baselineRowsPerSecond = async () => {
    const child = await startChild(['baseline'])
    const result = await new Promise<{ rows: number; seconds: number }>((resolve) => {
      child.once('message', (message) => resolve(message as { rows: number; seconds: number }))
      child.send({ sql: exportSql })
    })
    return result.rows / result.seconds
  }
  const exportOnce = () =>
    new Promise<number>((resolve, reject) => {
      const started = process.hrtime.bigint()
      const args = [
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
        resolve(Number(summary[1]) / seconds)
      })
    })
  await exportOnce()
  const before = await baselineRowsPerSecond()
  const tool = await exportOnce()
  const after = await baselineRowsPerSecond()
  printResult({
    benchmark: 'export-tool-ndjson',
    figure: tool,
    unit: 'rows/s',
    baseline: (before + after) / 2,
    baselineName: 'raw mysql2 stream + JSON.stringify, same SQL',
    target: 0.7,
    extra: { rows: Number(total) },
  })
} finally {
  service.kill()
  rmSync(OUTPUT, { force: true })
  rmSync(`${OUTPUT}.checkpoint`, { force: true })
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
await pool.query("DELETE FROM _changes WHERE table_name = 'c_Products'")
await pool.end()
