// The load driver's own cost: the ingest workload (change sets of 50 GoodsReceipt creates of 10 rows and
// their 50 Posts, 4 in flight) driven at the service, then at a bare uWS server answering the canned
// answer of such a batch. The figure is the operations/s the driver sustains against the bare server;
// the baseline is the operations/s the service reaches on the same ingest in the same run (target ≥ 5:
// the driver never hides the service's speed).
import type { DriveReport } from '../src/tools/drive/drive-report.js'
import { runWorkload } from '../src/tools/drive/run-workload.js'
import { workloadFrom } from '../src/tools/drive/workload.js'
import { startBenchmarkServer } from '../test/support/service-child.js'
import { prepareBenchDatabase } from './support/bench-database.js'
import { printResult } from './support/report.js'

const SERVICE_PORT = 18098
const CANNED_PORT = 18099
const SECONDS = Number(process.env.BENCH_DRIVE_SECONDS ?? 8)

function ingest(port: number) {
  return workloadFrom({
    root: `http://127.0.0.1:${port}/api/v4/`,
    headers: { authorization: 'Bearer bench-token' },
    concurrency: 4,
    warmup: 1,
    duration: SECONDS,
    shapes: [
      {
        name: 'ingest',
        kind: 'create',
        set: 'Document_GoodsReceipt',
        documents: 50,
        post: true,
        body: {
          Number: 'DRIVE',
          Date: '2025-06-01T10:00:00Z',
          Comment: 'drive',
          Goods: Array.from({ length: 10 }, () => ({ Quantity: 5, Price: 10, Amount: 50 })),
        },
      },
    ],
  })
}

async function start(script: string, args: string[]): Promise<() => void> {
  const server = await startBenchmarkServer(script, args)
  return () => void server.stop('SIGTERM')
}

const { pool } = await prepareBenchDatabase(1)
await pool.end()
const stopService = await start('bench-server.js', [String(SERVICE_PORT)])
let service: DriveReport
try {
  service = await runWorkload(ingest(SERVICE_PORT))
} finally {
  stopService()
}
const stopCanned = await start('canned-batch-server.js', [String(CANNED_PORT), '100'])
let canned: DriveReport
try {
  canned = await runWorkload(ingest(CANNED_PORT))
} finally {
  stopCanned()
}
if (service.totals.errors > 0 || canned.totals.errors > 0)
  throw new Error(`errors: service ${JSON.stringify(service.errors)}, canned ${JSON.stringify(canned.errors)}`)
printResult({
  benchmark: 'drive overhead (ingest workload against a bare uWS server)',
  figure: canned.totals.operationsPerSecond,
  unit: 'operations/s',
  baseline: service.totals.operationsPerSecond,
  baselineName: 'the service on the same ingest workload',
  target: 5,
  extra: {
    driverCpuPercentAgainstCanned: Math.round(canned.driver.cpuPercent),
    driverCpuPercentAgainstService: Math.round(service.driver.cpuPercent),
    warnings: canned.warnings,
  },
})
console.log(
  `  the driver used ${Math.round(service.driver.cpuPercent)}% of a core against the service, ${Math.round(canned.driver.cpuPercent)}% against the bare server`,
)
