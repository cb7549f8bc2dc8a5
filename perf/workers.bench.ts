// WORKERS=2 against WORKERS=1: the service as `cli.js serve` runs it (SO_REUSEPORT, src/ops/workers.ts),
// GET by key (requests per second, 32 keep-alive connections) and ingest (table rows per second through
// `$batch`: 4 clients, change sets of 25 document creates with 10 rows each and their Posts), each with
// one process, two processes, and one again, in the same run. The figure is two processes; the baseline
// the mean of the two one-process runs. The load client runs on the same two cores as the service and
// MySQL, so the ratio is what a second process gains on a host that is also its own client.
import http from 'node:http'
import { buildJsonBatch, type OperationSpec } from '../src/tools/shared/batch-body.js'
import { startServiceChild } from '../test/support/service-child.js'
import { prepareBenchDatabase, benchAddress } from './support/bench-database.js'
import { runLoad } from './support/load-client.js'
import { printResult } from './support/report.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const PORT = 18097
const CLIENTS = 4
const BATCHES_PER_CLIENT = Number(process.env.BENCH_BATCHES ?? 5)
const DOCUMENTS = 25
const ROWS = 10

const { pool } = await prepareBenchDatabase(1)
const column = async (table: string) =>
  ((await pool.query(`SELECT Ref_Key FROM \`${table}\` ORDER BY Ref_Key`))[0] as { Ref_Key: string }[]).map((row) => row.Ref_Key)
const products = await column('c_Products')
const warehouses = await column('c_Warehouses')
const counterparties = await column('c_Counterparties')
const organizations = await column('c_Организации')
await pool.end()

const authorization = `Basic ${Buffer.from('bench:bench').toString('base64')}`
const keyRequests = products.map((key) =>
  Buffer.from(
    `GET /odata/standard.odata/v4/Catalog_Products(guid'${key}') HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\nAccept: application/json\r\n\r\n`,
  ),
)

let serial = 0
function batchBody(): Buffer {
  const operations: OperationSpec[] = []
  for (let i = 1; i <= DOCUMENTS; i++) {
    serial++
    const pick = (list: string[]) => list[serial % list.length]!
    const body = {
      Number: `W${process.pid}-${serial}`,
      Date: '2025-07-01T10:00:00Z',
      Warehouse_Key: pick(warehouses),
      Counterparty_Key: pick(counterparties),
      Organization_Key: pick(organizations),
      Goods: Array.from({ length: ROWS }, (_, row) => ({
        Product_Key: products[(serial * 7 + row) % products.length],
        Quantity: 5,
        Price: 10,
        Amount: 50,
      })),
    }
    operations.push({
      id: String(i),
      method: 'POST',
      url: 'Document_GoodsReceipt',
      headers: { 'Content-Type': 'application/json' },
      body: body as never,
      atomicityGroup: 'g',
    })
  }
  for (let i = 1; i <= DOCUMENTS; i++) operations.push({ id: `p${i}`, method: 'POST', url: `$${i}/Post`, atomicityGroup: 'g' })
  return buildJsonBatch(operations).body
}

function postBatch(body: Buffer): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port: PORT,
        method: 'POST',
        path: '/api/v4/$batch',
        headers: {
          Authorization: 'Bearer bench-token',
          'Content-Type': 'application/json',
          'OData-MaxVersion': '4.01',
          'Content-Length': body.length,
        },
        agent: false,
      },
      (response) => {
        let text = ''
        response.on('data', (chunk: Buffer) => (text += chunk.toString()))
        response.on('end', () =>
          response.statusCode === 200 && !/"status":[45]\d\d/.test(text)
            ? resolve()
            : reject(new Error(`batch: ${response.statusCode} ${text.slice(0, 300)}`)),
        )
      },
    )
    request.on('error', reject)
    request.end(body)
  })
}

async function withService<T>(workers: number, work: () => Promise<T>): Promise<T> {
  const address = benchAddress()
  const service = await startServiceChild('build/src/cli.js', ['serve'], {
    environment: {
      WORKERS: String(workers),
      PORT: String(PORT),
      SEED_SCALE: '1',
      LOG_LEVEL: 'warn',
      DATABASE_URL: `mysql://${address.user}${address.password ? `:${address.password}` : ''}@${address.host}:${address.port}/${address.database}`,
    },
    // The URLs are printed once every process listens.
    ready: /token flavour:/,
    stopWith: 'SIGTERM',
  })
  try {
    return await work()
  } finally {
    await service.stop()
  }
}

async function keyReads(workers: number): Promise<number> {
  return withService(workers, async () => {
    await runLoad({ port: PORT, connections: 32, seconds: 1, request: (i) => keyRequests[i % keyRequests.length]! })
    const result = await runLoad({ port: PORT, connections: 32, seconds: SECONDS, request: (i) => keyRequests[i % keyRequests.length]! })
    if (Object.keys(result.statuses).some((status) => status !== '200'))
      throw new Error(`unexpected statuses ${JSON.stringify(result.statuses)}`)
    return result.requestsPerSecond
  })
}

async function ingest(workers: number): Promise<number> {
  return withService(workers, async () => {
    await postBatch(batchBody())
    const bodies = Array.from({ length: CLIENTS * BATCHES_PER_CLIENT }, batchBody)
    const started = process.hrtime.bigint()
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, client) => {
        for (let b = 0; b < BATCHES_PER_CLIENT; b++) await postBatch(bodies[client * BATCHES_PER_CLIENT + b]!)
      }),
    )
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    return (CLIENTS * BATCHES_PER_CLIENT * DOCUMENTS * ROWS) / seconds
  })
}

const readsOne = await keyReads(1)
const readsTwo = await keyReads(2)
const readsOneAgain = await keyReads(1)
printResult({
  benchmark: 'workers-get-by-key',
  figure: readsTwo,
  unit: 'requests/s',
  baseline: (readsOne + readsOneAgain) / 2,
  baselineName: 'WORKERS=1, same run',
  extra: { readsOne, readsOneAgain },
})

const ingestOne = await ingest(1)
const ingestTwo = await ingest(2)
const ingestOneAgain = await ingest(1)
printResult({
  benchmark: 'workers-ingest',
  figure: ingestTwo,
  unit: 'table rows/s',
  baseline: (ingestOne + ingestOneAgain) / 2,
  baselineName: 'WORKERS=1, same run',
  extra: { ingestOne, ingestOneAgain },
})
