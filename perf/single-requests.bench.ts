// Single requests, 50 keep-alive connections, each against a bare uWS handler running the same SQL and
// answering the same bytes, measured before and after the service in the same run (target ≥ 0.85, issue 28,
// with the request log at the demo configuration's level `all`):
//   - GET of one catalog item by key (perf/support/key-read-servers.ts: the same SELECT);
//   - POST of one catalog item (perf/support/bare-create-server.ts: the same transaction and INSERT). The bare
//     handler sends its three statements one at a time, as a handler written by hand does; the service sends its
//     four (with the change record's note) as two packets (src/store/transaction.ts).
// Also printed: each server's CPU time per request (process.cpuUsage, over IPC), and the database server's
// when it runs on this machine (perf/support/database-cpu.ts). The service is asked as
// `bench` (a profile without rate rules). The service runs twice, without and with the request-serialising
// front (HTTP_PIPELINING=serialize), measured alternately (off, on, on, off) between the two bare runs; the
// front's cost is printed as the ratio on/off.
// Run: node scripts/run-benchmarks.mjs single-requests   (BENCH_SECONDS, BENCH_CPU_PROF=<folder> for profiles)
import { benchAddress, prepareBenchDatabase, waitForQuietDatabase } from './support/bench-database.js'
import { databaseCpuReader } from './support/database-cpu.js'
import { freePorts } from './support/free-port.js'
import { runLoad } from './support/load-client.js'
import { printResult } from './support/report.js'
import { type ServiceChild, startBenchmarkServer } from '../test/support/service-child.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 4)
const CONNECTIONS = 50
const MARK = 'bench-single'
// Ports from the system, not fixed ones: a fixed port would be shared with the same benchmark run beside this one.
const [SERVICE_PORT, BARE_READ_PORT, BARE_CREATE_PORT, FRONTED_PORT] = await freePorts(4)

const { pool } = await prepareBenchDatabase(1)
const [rows] = await pool.query('SELECT Ref_Key FROM c_Products WHERE Article <> ? ORDER BY Code LIMIT 1000', [MARK])
const keys = (rows as { Ref_Key: string }[]).map((r) => r.Ref_Key)
const cleanUp = () => pool.query('DELETE FROM `c_Products` WHERE `Article` = ?', [MARK])
const databaseCpu = databaseCpuReader(benchAddress().host)
await cleanUp()
await waitForQuietDatabase(pool) // what an earlier run deleted, purged before this one measures

const basic = `Basic ${Buffer.from('bench:bench').toString('base64')}`
const reads = keys.map((key) =>
  Buffer.from(
    `GET /odata/standard.odata/v4/Catalog_Products(guid'${key}') HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${basic}\r\nAccept: application/json\r\n\r\n`,
  ),
)
let serial = 0
function create(): Buffer {
  serial++
  const body = JSON.stringify({
    Code: `S${String(serial).padStart(10, '0')}`,
    Description: `Bench item ${serial}`,
    Article: MARK,
    Unit: 'pcs',
  })
  return Buffer.from(
    `POST /api/v4/Catalog_Products HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer bench-token\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
}

interface Measured {
  readonly requestsPerSecond: number
  readonly cpuPerRequest: number
  /** NaN when the database server's CPU time cannot be read here. */
  readonly databaseCpuPerRequest: number
}

async function measure(
  server: ServiceChild,
  port: number,
  request: (i: number) => Buffer,
  status: number,
  seconds = SECONDS,
): Promise<Measured> {
  const before = await server.cpu()
  const databaseBefore = databaseCpu?.() ?? Number.NaN
  const result = await runLoad({ port, connections: CONNECTIONS, seconds, request })
  const cpu = (await server.cpu()) - before
  const databaseAfter = databaseCpu?.() ?? Number.NaN
  if (Object.keys(result.statuses).some((s) => Number(s) !== status))
    throw new Error(`port ${port}: unexpected statuses ${JSON.stringify(result.statuses)}`)
  return {
    requestsPerSecond: result.requestsPerSecond,
    cpuPerRequest: cpu / result.requests,
    databaseCpuPerRequest: (databaseAfter - databaseBefore) / result.requests,
  }
}

/** Bare; the service without the front, with it, with it, without it; bare again: each figure against the mean bare run. */
async function compare(
  name: string,
  bareServer: [ServiceChild, number],
  plain: [ServiceChild, number],
  fronted: [ServiceChild, number],
  request: (i: number) => Buffer,
  status: number,
): Promise<void> {
  await measure(...bareServer, request, status, 1) // warm-up
  await measure(...plain, request, status, 1)
  await measure(...fronted, request, status, 1)
  const bareBefore = await measure(...bareServer, request, status)
  const plainRuns = [await measure(...plain, request, status)]
  const frontedRuns = [await measure(...fronted, request, status), await measure(...fronted, request, status)]
  plainRuns.push(await measure(...plain, request, status))
  const bareAfter = await measure(...bareServer, request, status)
  const baseline = (bareBefore.requestsPerSecond + bareAfter.requestsPerSecond) / 2
  const bareCpu = (bareBefore.cpuPerRequest + bareAfter.cpuPerRequest) / 2
  const bareDatabaseCpu = (bareBefore.databaseCpuPerRequest + bareAfter.databaseCpuPerRequest) / 2
  const mean = (runs: Measured[], of: keyof Measured) => runs.reduce((sum, run) => sum + run[of], 0) / runs.length
  for (const [label, runs] of [
    ['', plainRuns],
    [' (serialising front)', frontedRuns],
  ] as const) {
    const cpu = mean(runs, 'cpuPerRequest')
    const databaseCpuPerRequest = mean(runs, 'databaseCpuPerRequest')
    printResult({
      benchmark: `${name}${label}`,
      figure: mean(runs, 'requestsPerSecond'),
      unit: 'requests/s',
      baseline,
      baselineName: 'bare uWS handler, same SQL',
      target: 0.85,
      extra: {
        connections: CONNECTIONS,
        runs: runs.map((run) => run.requestsPerSecond),
        serviceCpuMicrosecondsPerRequest: cpu,
        bareCpuMicrosecondsPerRequest: bareCpu,
        ...(Number.isNaN(databaseCpuPerRequest)
          ? {}
          : { serviceDatabaseCpuMicrosecondsPerRequest: databaseCpuPerRequest, bareDatabaseCpuMicrosecondsPerRequest: bareDatabaseCpu }),
        bareRuns: [bareBefore.requestsPerSecond, bareAfter.requestsPerSecond],
      },
    })
    console.log(`  CPU per request: service${label} ${cpu.toFixed(1)} µs, bare handler ${bareCpu.toFixed(1)} µs`)
    if (!Number.isNaN(databaseCpuPerRequest))
      console.log(
        `  database server CPU per request: with the service${label} ${databaseCpuPerRequest.toFixed(1)} µs, with the bare handler ${bareDatabaseCpu.toFixed(1)} µs`,
      )
  }
  printResult({
    benchmark: `${name} front on/off`,
    figure: mean(frontedRuns, 'requestsPerSecond'),
    unit: 'requests/s',
    baseline: mean(plainRuns, 'requestsPerSecond'),
    baselineName: 'the service without the front',
    extra: { cpuRatio: mean(frontedRuns, 'cpuPerRequest') / mean(plainRuns, 'cpuPerRequest') },
  })
}

const servers = await Promise.all([
  startBenchmarkServer('key-read-servers.js', ['service', String(SERVICE_PORT)]),
  startBenchmarkServer('key-read-servers.js', ['bare', String(BARE_READ_PORT)]),
  startBenchmarkServer('bare-create-server.js', [String(BARE_CREATE_PORT)]),
  startBenchmarkServer('key-read-servers.js', ['service-serialize', String(FRONTED_PORT)]),
])
const [service, bareRead, bareCreate, fronted] = servers
try {
  const plain: [ServiceChild, number] = [service!, SERVICE_PORT]
  const withFront: [ServiceChild, number] = [fronted!, FRONTED_PORT]
  await compare('single-requests get-by-key', [bareRead!, BARE_READ_PORT], plain, withFront, (i) => reads[i % reads.length]!, 200)
  await compare('single-requests post-catalog-item', [bareCreate!, BARE_CREATE_PORT], plain, withFront, () => create(), 201)
} finally {
  await Promise.all(servers.map((s) => s.stop()))
  await cleanUp()
  await pool.end()
}
