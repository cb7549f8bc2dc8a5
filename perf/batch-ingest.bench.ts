// Ingest through $batch: one change set of 50 document creates (10 table rows each) and their 50 Posts
// (100 operations, the default limit), as multipart and as JSON, with 4 parallel clients. The figure is
// table rows per second; the baseline writes the same rows (documents, table parts, movements, totals)
// straight through mysql2 with multi-row INSERTs in one transaction per batch, in the same run
// (target ≥ 0.5).
//
// Also measured in the same run: the intake's share of the end-to-end time, its time per batch (read in
// this process from bodies like the ones sent, in 64 KB chunks) against the wall time per batch of the
// throughput run, that is the server's timeline per batch (the goal is under 5 %).
import { buildJsonBatch, buildMultipartBatch, type BuiltBatch, type OperationSpec } from '../src/tools/shared/batch-body.js'
import type { BatchIntake } from '../src/batch/intake/batch-intake.js'
import { createJsonIntake } from '../src/batch/intake/json/json-intake.js'
import { createMultipartIntake } from '../src/batch/intake/multipart/multipart-intake.js'
import { loadModel } from '../src/model/load-model.js'
import { createPool } from '../src/store/pool.js'
import { startBenchmarkServer } from '../test/support/service-child.js'
import { benchAddress, prepareBenchDatabase } from './support/bench-database.js'
import { directDocumentWriter } from './support/direct-document-writer.js'
import { postBatch } from './support/post-batch.js'
import { printResult } from './support/report.js'

const CLIENTS = 4
const DOCUMENTS_PER_BATCH = 50
const ROWS_PER_DOCUMENT = 10
const BATCHES_PER_CLIENT = Number(process.env.BENCH_BATCHES ?? 6)
const PORT = 18095
const CHUNK_BYTES = 64 * 1024

const { pool } = await prepareBenchDatabase(1)
const [warehouses] = await pool.query('SELECT Ref_Key FROM c_Warehouses')
const [products] = await pool.query('SELECT Ref_Key FROM c_Products')
const [counterparties] = await pool.query('SELECT Ref_Key FROM c_Counterparties')
const [organizations] = await pool.query('SELECT Ref_Key FROM `c_Организации`')
const keys = (rows: unknown) => (rows as { Ref_Key: string }[]).map((r) => r.Ref_Key)
const catalog = {
  warehouses: keys(warehouses),
  products: keys(products),
  counterparties: keys(counterparties),
  organizations: keys(organizations),
}
let serial = 0

function documentBody(): Record<string, unknown> {
  serial++
  const pick = (list: string[]) => list[serial % list.length]!
  return {
    Number: `B${String(serial).padStart(10, '0')}`,
    Date: '2025-06-01T10:00:00Z',
    Warehouse_Key: pick(catalog.warehouses),
    Counterparty_Key: pick(catalog.counterparties),
    Organization_Key: pick(catalog.organizations),
    Comment: 'bench',
    Goods: Array.from({ length: ROWS_PER_DOCUMENT }, (_, i) => ({
      Product_Key: catalog.products[(serial * 7 + i) % catalog.products.length],
      Quantity: 5,
      Price: 10,
      Amount: 50,
    })),
  }
}

function batchOperations(): OperationSpec[] {
  const creates: OperationSpec[] = []
  const posts: OperationSpec[] = []
  for (let i = 1; i <= DOCUMENTS_PER_BATCH; i++) {
    creates.push({
      id: String(i),
      method: 'POST',
      url: 'Document_GoodsReceipt',
      headers: { 'Content-Type': 'application/json' },
      body: documentBody() as never,
      atomicityGroup: 'g',
    })
    posts.push({ id: `p${i}`, method: 'POST', url: `$${i}/Post`, atomicityGroup: 'g' })
  }
  return [...creates, ...posts]
}

async function post(port: number, body: Buffer, contentType: string): Promise<number | undefined> {
  const answer = await postBatch(port, body, contentType, false)
  const text = answer.body.toString()
  if (answer.statusCode !== 200 || /"status":4\d\d|HTTP\/1\.1 [45]\d\d/.test(text))
    throw new Error(`batch failed: ${answer.statusCode} ${text.slice(0, 300)}`)
  return answer.statusCode
}

/** Rows per second and wall milliseconds per batch through the server on `port`. */
async function ingest(format: 'multipart' | 'json', port = PORT): Promise<{ rowsPerSecond: number; msPerBatch: number }> {
  const bodies = Array.from({ length: CLIENTS * BATCHES_PER_CLIENT }, () =>
    format === 'json' ? buildJsonBatch(batchOperations()) : buildMultipartBatch(batchOperations()),
  )
  const started = process.hrtime.bigint()
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      for (let b = 0; b < BATCHES_PER_CLIENT; b++) {
        const built = bodies[client * BATCHES_PER_CLIENT + b]!
        await post(port, built.body, built.contentType)
      }
    }),
  )
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  return {
    rowsPerSecond: (CLIENTS * BATCHES_PER_CLIENT * DOCUMENTS_PER_BATCH * ROWS_PER_DOCUMENT) / seconds,
    msPerBatch: (seconds * 1000) / (CLIENTS * BATCHES_PER_CLIENT),
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]!
}

/** The intake's median time for one batch of this benchmark's kind, pushed in 64 KB chunks as the endpoint does. */
function intakeMilliseconds(format: 'multipart' | 'json'): number {
  const bodies: BuiltBatch[] = Array.from({ length: 20 }, () =>
    format === 'json' ? buildJsonBatch(batchOperations()) : buildMultipartBatch(batchOperations()),
  )
  const create = (built: BuiltBatch): BatchIntake =>
    format === 'json' ? createJsonIntake({}) : createMultipartIntake({ boundary: built.boundary! })
  const read = (built: BuiltBatch): void => {
    const intake = create(built)
    for (let offset = 0; offset < built.body.length; offset += CHUNK_BYTES) intake.push(built.body.subarray(offset, offset + CHUNK_BYTES))
    intake.end().release()
  }
  for (let warmUp = 0; warmUp < 10; warmUp++) for (const built of bodies) read(built)
  const times: number[] = []
  for (let round = 0; round < 10; round++) {
    for (const built of bodies) {
      const started = process.hrtime.bigint()
      read(built)
      times.push(Number(process.hrtime.bigint() - started) / 1e6)
    }
  }
  return median(times)
}

/** The same rows straight through mysql2: one transaction per batch, multi-row INSERTs, totals upserted. */
async function directThroughput(): Promise<number> {
  const write = directDocumentWriter(loadModel('config/demo.json'))
  const direct = createPool(benchAddress(), { connectionLimit: CLIENTS })
  const started = process.hrtime.bigint()
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const connection = await direct.getConnection()
      try {
        for (let b = 0; b < BATCHES_PER_CLIENT; b++) {
          const bodies: Record<string, unknown>[] = []
          for (let d = 0; d < DOCUMENTS_PER_BATCH; d++) bodies.push(documentBody())
          await write(connection, bodies)
        }
      } finally {
        connection.release()
      }
    }),
  )
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  await direct.end()
  return (CLIENTS * BATCHES_PER_CLIENT * DOCUMENTS_PER_BATCH * ROWS_PER_DOCUMENT) / seconds
}

/** The server in a child process with a subject of its own, so its rate rules do not throttle the run. */
async function startServer(port: number): Promise<() => void> {
  const server = await startBenchmarkServer('bench-server.js', [String(port)])
  return () => void server.stop('SIGTERM')
}

const stop = await startServer(PORT)
try {
  await ingest('json') // warm-up
  const baseline = await directThroughput()
  const multipart = await ingest('multipart')
  const json = await ingest('json')
  const baselineName = 'mysql2 multi-row INSERTs, one transaction per batch'
  printResult({ benchmark: 'batch-ingest multipart', figure: multipart.rowsPerSecond, unit: 'rows/s', baseline, baselineName, target: 0.5 })
  printResult({ benchmark: 'batch-ingest json', figure: json.rowsPerSecond, unit: 'rows/s', baseline, baselineName, target: 0.5 })
  for (const [format, endToEnd] of [
    ['multipart', multipart],
    ['json', json],
  ] as const) {
    const intakeMs = intakeMilliseconds(format)
    const share = intakeMs / endToEnd.msPerBatch
    console.log(
      `intake share (${format}): ${intakeMs.toFixed(3)} ms of ${endToEnd.msPerBatch.toFixed(1)} ms per batch = ${(100 * share).toFixed(2)} % (goal < 5 %: ${share < 0.05 ? 'met' : 'NOT met'})`,
    )
  }
} finally {
  stop()
  await pool.end()
}
