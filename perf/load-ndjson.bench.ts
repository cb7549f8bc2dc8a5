// `odata-registers load` of 100,000 GoodsReceipt documents of 10 rows each from NDJSON (BENCH_LOAD_DOCUMENTS
// for fewer), posted, each run into a fresh database, against the service in a process of its own; the figure is
// documents per second. The service is measured twice, each time in a process of its own and with its own
// documents: with the request log `all` (the demo configuration's setting: a log row per operation) and
// `off`. The baseline, also into a fresh database, writes the same rows (documents, table parts, movements, totals) straight through
// mysql2 with multi-row INSERTs, one transaction per 50 documents, 4 connections, right after each loader
// run; both ratios are printed (target ≥ 0.5 with the log off). Also reported: the loader's resident memory (sampled
// from /proc), early in the load and at its peak, to show that it streams its input, and its share of a
// core. Multipart by default (the service's fastest intake; BENCH_LOAD_FORMAT=json for the other), 8 change
// sets in flight (BENCH_LOAD_CONCURRENCY): on a busy machine the service waits on MySQL's commits, and 8 in
// flight kept it busier than 4 (ratios of 0.51 against 0.39 in two runs of 5,000 documents). The database is
// BENCH_LOAD_DATABASE_URL, or BENCH_DATABASE_URL's with `_load` added to its name; the port a free one.
import { spawn } from 'node:child_process'
import { startServiceChild } from '../test/support/service-child.js'
import { createServer } from 'node:net'
import { createWriteStream, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { loadModel } from '../src/model/load-model.js'
import { quoteIdentifier as q } from '../src/sql/quote-identifier.js'
import { parseDatabaseUrl } from '../src/store/database-url.js'
import { migrate } from '../src/store/migrate.js'
import { createPool, ensureDatabase } from '../src/store/pool.js'
import { seedDemoData } from '../src/seed/seed-data.js'
import { directDocumentWriter } from './support/direct-document-writer.js'
import { printResult } from './support/report.js'

const DOCUMENTS = Number(process.env.BENCH_LOAD_DOCUMENTS ?? 100_000)
const ROWS = 10
const address = (() => {
  if (process.env.BENCH_LOAD_DATABASE_URL) return parseDatabaseUrl(process.env.BENCH_LOAD_DATABASE_URL)
  const bench = parseDatabaseUrl(process.env.BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306/odata_bench')
  return { ...bench, database: `${bench.database}_load` }
})()

/** A port no other process listens on now. */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}
const model = loadModel('config/demo.json')

/** A fresh database with the demo's catalogs (seed scale 0.1: 100 documents, the catalogs). */
async function freshDatabase(): Promise<void> {
  await closePool()
  const admin = createPool({ ...address, database: undefined as never })
  await admin.query(`DROP DATABASE IF EXISTS ${q(address.database)}`)
  await admin.end()
  await ensureDatabase(address)
  const pool = createPool(address)
  await migrate(pool, model)
  await seedDemoData(pool, model, { scale: 0.1 })
  await pool.end()
}

let openPool: ReturnType<typeof createPool> | undefined
const pool = () => (openPool ??= createPool(address, { connectionLimit: 4 }))
/** Closes the pool, whose connections would point at a dropped database after the next fresh one. */
async function closePool(): Promise<void> {
  await openPool?.end()
  openPool = undefined
}

async function codes(table: string): Promise<{ key: string; code: string }[]> {
  const [rows] = await pool().query(`SELECT Ref_Key, Code FROM ${q(table)} ORDER BY Code`)
  return (rows as { Ref_Key: string; Code: string }[]).map((r) => ({ key: r.Ref_Key, code: r.Code }))
}

const catalogs = async () => ({
  warehouses: await codes('c_Warehouses'),
  products: await codes('c_Products'),
  counterparties: await codes('c_Counterparties'),
  organizations: await codes('c_Организации'),
})
type Catalogs = Awaited<ReturnType<typeof catalogs>>

function documentOf(c: Catalogs, i: number, by: 'code' | 'key'): Record<string, unknown> {
  const pick = <T>(list: T[], n: number) => list[n % list.length]!
  const ref = (item: { key: string; code: string }) => (by === 'code' ? item.code : item.key)
  const suffix = by === 'code' ? '' : '_Key'
  return {
    Number: `L${String(i).padStart(9, '0')}`,
    Date: '2025-06-01T10:00:00Z',
    [`Warehouse${suffix}`]: ref(pick(c.warehouses, i)),
    [`Counterparty${suffix}`]: ref(pick(c.counterparties, i)),
    [`Organization${suffix}`]: ref(pick(c.organizations, i)),
    Comment: 'bench',
    Goods: Array.from({ length: ROWS }, (_, j) => ({
      [`Product${suffix}`]: ref(pick(c.products, i * 7 + j)),
      Quantity: 5,
      Price: 10,
      Amount: 50,
    })),
  }
}

/** The input file of documents 1 to DOCUMENTS. */
async function writeInput(c: Catalogs, path: string): Promise<void> {
  const out = createWriteStream(path)
  for (let i = 1; i <= DOCUMENTS; i++) {
    if (!out.write(`${JSON.stringify(documentOf(c, i, 'code'))}\n`))
      await new Promise<void>((resolve) => out.once('drain', () => resolve()))
  }
  await new Promise<void>((resolve) => out.end(() => resolve()))
}

function rss(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024
  } catch {
    return 0
  }
}

/** User and system CPU seconds of a process so far. */
function cpuSeconds(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return 0
  }
}

async function startService(port: number, requestLog: 'all' | 'off'): Promise<() => void> {
  const service = await startServiceChild('build/src/cli.js', ['serve'], {
    environment: {
      DATABASE_URL: `mysql://${address.user}${address.password ? `:${address.password}` : ''}@${address.host}:${address.port}/${address.database}`,
      PORT: String(port),
      SEED_SCALE: '0.1',
      REQUEST_LOG_LEVEL: requestLog,
      LOG_LEVEL: 'silent',
    },
    // The URLs are printed once the service listens.
    ready: /token flavour/,
    stopWith: 'SIGTERM',
    // BENCH_CPU_PROF=<folder> profiles the service (test/support/service-child.ts).
    benchmark: true,
  })
  return () => void service.stop()
}

async function load(
  input: string,
  work: string,
  port: number,
): Promise<{ documentsPerSecond: number; early: number; peak: number; summary: Record<string, unknown>; cpuShare: number }> {
  const started = process.hrtime.bigint()
  const child = spawn(
    process.execPath,
    [
      'build/src/cli.js',
      'load',
      input,
      '--set',
      'Document_GoodsReceipt',
      '--post',
      '--url',
      `http://127.0.0.1:${port}/api/v4/`,
      '--token',
      'bench-token',
      '--concurrency',
      process.env.BENCH_LOAD_CONCURRENCY ?? '8',
      '--format',
      process.env.BENCH_LOAD_FORMAT ?? 'multipart',
      '--checkpoint',
      join(work, `${port}.checkpoint`),
      '--rejects',
      join(work, `${port}.rejects`),
    ],
    {
      stdio: ['ignore', 'pipe', 'ignore'],
    },
  )
  const samples: { at: number; mb: number }[] = []
  let cpu = 0
  const sampler = setInterval(() => {
    samples.push({ at: Number(process.hrtime.bigint() - started) / 1e9, mb: rss(child.pid!) })
    cpu = cpuSeconds(child.pid!) || cpu
  }, 250)
  let stdout = ''
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve))
  clearInterval(sampler)
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  if (code !== 0) throw new Error(`the load exited with ${code}: ${stdout.slice(-1000)}`)
  const summary = JSON.parse(stdout.trim().split('\n').at(-1)!)
  if (summary.loaded !== DOCUMENTS) throw new Error(`the load did not load every document: ${JSON.stringify(summary)}`)
  const valid = samples.filter((s) => s.mb > 0)
  const early = Math.max(...valid.filter((s) => s.at <= seconds * 0.2).map((s) => s.mb), 0)
  return { documentsPerSecond: DOCUMENTS / seconds, early, peak: Math.max(...valid.map((s) => s.mb)), summary, cpuShare: cpu / seconds }
}

/** The same rows through mysql2: multi-row INSERTs, one transaction per 50 documents, totals upserted. */
async function direct(c: Catalogs): Promise<number> {
  const write = directDocumentWriter(model)
  const perBatch = 50
  let next = 0
  const started = process.hrtime.bigint()
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      const connection = await pool().getConnection()
      try {
        for (;;) {
          const from = next
          next += perBatch
          if (from >= DOCUMENTS) break
          const bodies: Record<string, unknown>[] = []
          for (let i = from + 1; i <= Math.min(from + perBatch, DOCUMENTS); i++) bodies.push(documentOf(c, i, 'key'))
          await write(connection, bodies)
        }
      } finally {
        connection.release()
      }
    }),
  )
  return DOCUMENTS / (Number(process.hrtime.bigint() - started) / 1e9)
}

/** The loader against the service with this request log. */
async function measure(c: Catalogs, work: string, requestLog: 'all' | 'off') {
  const input = join(work, `receipts-${requestLog}.ndjson`)
  await writeInput(c, input)
  const port = await freePort()
  const stop = await startService(port, requestLog)
  try {
    return await load(input, work, port)
  } finally {
    stop()
  }
}

const work = mkdtempSync(join(tmpdir(), 'load-bench-'))
try {
  // Every run, the loader's and the baseline's, starts from the same state: a fresh database of the same
  // shape and size, so that neither side writes into tables the other has already filled. Each loader run
  // is followed by its own baseline, so that a ratio compares two moments of the same load on a shared machine.
  const fresh = async () => {
    await freshDatabase()
    return catalogs()
  }
  const logged = await measure(await fresh(), work, 'all')
  const loggedBaseline = await direct(await fresh())
  const unlogged = await measure(await fresh(), work, 'off')
  const unloggedBaseline = await direct(await fresh())
  const baselineName = 'mysql2 multi-row INSERTs of the same rows, 50 documents a transaction, 4 connections'
  for (const [log, loaded, baseline] of [
    ['all', logged, loggedBaseline],
    ['off', unlogged, unloggedBaseline],
  ] as const) {
    printResult({
      benchmark: `load ndjson (${DOCUMENTS} documents × ${ROWS} rows, posted), request log ${log}`,
      figure: loaded.documentsPerSecond,
      unit: 'documents/s',
      baseline,
      baselineName,
      target: log === 'off' ? 0.5 : undefined,
      extra: {
        loaderMemoryEarlyMB: Math.round(loaded.early),
        loaderMemoryPeakMB: Math.round(loaded.peak),
        batches: loaded.summary.batches,
      },
    })
    console.log(
      `  request log ${log}: the loader used ${Math.round(loaded.cpuShare * 100)}% of a core; memory ${Math.round(loaded.early)} MB in the first fifth of the load, ${Math.round(loaded.peak)} MB at its peak (input ${DOCUMENTS * ROWS} rows)`,
    )
  }
} finally {
  await closePool()
  rmSync(work, { recursive: true, force: true })
}
