// GET of one catalog item by key: requests per second of the whole service against a bare uWS handler
// that runs the same mysql2 query and answers the same bytes, measured in the same run (target ≥ 0.5).
import { fork, type ChildProcess } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { runLoad } from './support/load-client.js'
import { prepareBenchDatabase } from './support/bench-database.js'
import { printResult } from './support/report.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const CONNECTIONS = 32

const { pool } = await prepareBenchDatabase(1)
const [rows] = await pool.query('SELECT Ref_Key FROM c_Products ORDER BY Code')
const keys = (rows as { Ref_Key: string }[]).map((r) => r.Ref_Key)
await pool.end()
const authorization = `Basic ${Buffer.from('bench:bench').toString('base64')}`
const requests = keys.map((key) =>
  Buffer.from(`GET /odata/standard.odata/v4/Catalog_Products(guid'${key}') HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\nAccept: application/json\r\n\r\n`),
)

async function measure(mode: 'service' | 'bare', port: number): Promise<number> {
  const child: ChildProcess = fork(fileURLToPath(new URL('./support/key-read-servers.js', import.meta.url)), [mode, String(port)], { stdio: 'inherit' })
  await new Promise((resolve) => child.once('message', resolve))
  await new Promise((resolve) => setTimeout(resolve, 300))
  try {
    await runLoad({ port, connections: CONNECTIONS, seconds: 1, request: (i) => requests[i % requests.length]! }) // warm-up
    const result = await runLoad({ port, connections: CONNECTIONS, seconds: SECONDS, request: (i) => requests[i % requests.length]! })
    if (Object.keys(result.statuses).some((s) => s !== '200')) throw new Error(`${mode}: unexpected statuses ${JSON.stringify(result.statuses)}`)
    return result.requestsPerSecond
  } finally {
    child.kill()
  }
}

const bare = await measure('bare', 18091)
const service = await measure('service', 18092)
const bareAgain = await measure('bare', 18093)
const baseline = (bare + bareAgain) / 2
printResult({ benchmark: 'get-by-key', figure: service, unit: 'requests/s', baseline, baselineName: 'bare uWS + same mysql2 query', target: 0.5 })
