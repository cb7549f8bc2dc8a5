// `make soak` (not part of `make test`): the service under mixed concurrent batches for half an hour
// (perf/workloads/soak-mix.yaml through `drive`: creates with Posts in change sets, reads, virtual tables),
// then four checks, printed with their figures and failing the run when one does not hold:
//   1. rows written equal rows expected: every document of a change set answered 200 is there, posted,
//      with its three Goods rows, and no other soak document is;
//   2. the totals equal a recomputation from the movements (cli recompute-totals' own code);
//   3. the request log holds every operation and every batch the driver sent (level `all`);
//   4. the server's memory at the end is within 20 % of its level after the first minute.
// Environment: SOAK_SECONDS (1800), SOAK_DATABASE_URL (default: the local server, database
// odata_soak<TEST_DATABASE_SUFFIX>), SOAK_OUT (the drive report's prefix, .soak/soak).
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, readFileSync } from 'node:fs'
import net from 'node:net'
import mysql from 'mysql2/promise'

const seconds = Number(process.env.SOAK_SECONDS ?? 1800)
const suffix = (process.env.TEST_DATABASE_SUFFIX ?? '').replace(/[^A-Za-z0-9_]/g, '_')
const databaseUrl = process.env.SOAK_DATABASE_URL ?? `mysql://root@127.0.0.1:3306/odata_soak${suffix}`
const out = process.env.SOAK_OUT ?? '.soak/soak'
const DOCUMENTS_PER_CHANGE_SET = 10
const GOODS_PER_DOCUMENT = 3
const MEMORY_TOLERANCE = 0.2

const { createPool } = await import('../build/src/store/pool.js')
const { parseDatabaseUrl } = await import('../build/src/store/database-url.js')
const { recomputeTotals } = await import('../build/src/store/totals.js')
const { loadModel } = await import('../build/src/model/load-model.js')

function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.on('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address()
      server.close(() => resolve(port))
    })
  })
}

function run(args, env, { echo = true } = {}) {
  const child = spawn(process.execPath, ['build/src/cli.js', ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  const keep = (chunk) => {
    output += chunk.toString()
    if (echo) process.stdout.write(chunk)
  }
  child.stdout.on('data', keep)
  child.stderr.on('data', keep)
  return { child, output: () => output, exited: once(child, 'exit').then(([code]) => code) }
}

const address = parseDatabaseUrl(databaseUrl)
const admin = await mysql.createConnection({ host: address.host, port: address.port, user: address.user, password: address.password })
await admin.query(`DROP DATABASE IF EXISTS \`${address.database}\``)
await admin.end()

const port = await freePort()
const serviceEnvironment = {
  DATABASE_URL: databaseUrl,
  PORT: String(port),
  WORKERS: '1',
  SEED_SCALE: '0.2',
  REQUEST_LOG_LEVEL: 'all',
  LOG_LEVEL: 'warn',
}
console.log(`soak: serving on port ${port}, database ${address.database}, ${seconds} s`)
const service = run(['serve'], serviceEnvironment, { echo: false })
while (!/token flavour:/.test(service.output())) {
  if (service.child.exitCode !== null) throw new Error(`the service ended before it served:\n${service.output()}`)
  await new Promise((resolve) => setTimeout(resolve, 200))
}

mkdirSync('.soak', { recursive: true })
const drive = run(
  [
    'drive',
    'perf/workloads/soak-mix.yaml',
    '--url',
    `http://127.0.0.1:${port}/api/v4/`,
    '--token',
    'bench-token',
    '--duration',
    String(seconds),
    '--pid',
    String(service.child.pid),
    '--out',
    out,
  ],
  {},
)
const driveStatus = await drive.exited
const report = JSON.parse(readFileSync(`${out}.json`, 'utf8'))
// The driver's samples end with its run; the last one is the memory at the end.
const samples = report.server?.samples ?? []
service.child.kill('SIGTERM')
await service.exited

const pool = createPool(address, { connectionLimit: 2 })
const count = async (sql) => Number(Object.values((await pool.query(sql))[0][0])[0])
const checks = []
const check = (name, holds, figures) => checks.push({ name, holds, ...figures })

// 1. Rows written = rows expected.
const creates = report.shapes['create-post']
const committedChangeSets = creates.batches - creates.failedBatches
const expectedDocuments = committedChangeSets * DOCUMENTS_PER_CHANGE_SET
const documents = await count("SELECT COUNT(*) FROM d_GoodsReceipt WHERE Comment = 'soak'")
const posted = await count("SELECT COUNT(*) FROM d_GoodsReceipt WHERE Comment = 'soak' AND Posted = 1")
const goods = await count(
  "SELECT COUNT(*) FROM d_GoodsReceipt__Goods g JOIN d_GoodsReceipt d ON d.Ref_Key = g.Ref_Key WHERE d.Comment = 'soak'",
)
check(
  'rows written equal rows expected',
  documents === expectedDocuments && posted === documents && goods === documents * GOODS_PER_DOCUMENT,
  {
    committedChangeSets,
    expectedDocuments,
    documents,
    posted,
    goods,
  },
)

// 2. Totals equal a recomputation.
const totalsTables = ['ar_Stock__totals', 'acr_Main__totals']
const snapshot = async () => {
  const tables = {}
  for (const table of totalsTables) {
    const [rows] = await pool.query({ sql: `SELECT * FROM \`${table}\``, rowsAsArray: true })
    tables[table] = rows.map((row) => JSON.stringify(row)).sort()
  }
  return tables
}
const kept = await snapshot()
await recomputeTotals(pool, loadModel('config/demo.json'))
const recomputed = await snapshot()
check('totals equal a recomputation', JSON.stringify(kept) === JSON.stringify(recomputed), {
  totalsRows: Object.values(kept).reduce((sum, rows) => sum + rows.length, 0),
})

// 3. The request log holds every batch and every operation.
const loggedBatches = await count(
  'SELECT COUNT(*) FROM request_log WHERE `Пакет` IS NOT NULL AND content_id IS NULL AND operations IS NOT NULL',
)
const loggedOperations = await count('SELECT COUNT(*) FROM request_log WHERE `Пакет` IS NOT NULL AND operations IS NULL')
check('the request log holds every operation', loggedBatches === report.totals.batches && loggedOperations === report.totals.operations, {
  batchesSent: report.totals.batches,
  loggedBatches,
  operationsSent: report.totals.operations,
  loggedOperations,
})

// 4. Memory at the end within 20 % of its level after the first minute. A level is the median of a minute's
// samples (one a second): a single sample may catch a collection's peak (a first run read 196.6 MB at second
// 60 between neighbours of 143 to 153 MB, and failed on it though the process stayed flat).
const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted.length === 0 ? undefined : sorted[Math.floor(sorted.length / 2)]
}
const afterFirstMinute = median(samples.filter((sample) => sample.second >= 60 && sample.second < 120).map((sample) => sample.rssMB))
const atEnd = median(samples.filter((sample) => sample.second >= report.seconds - 60).map((sample) => sample.rssMB))
check(
  'memory at the end within 20 % of its level after the first minute',
  afterFirstMinute !== undefined && atEnd !== undefined && Math.abs(atEnd - afterFirstMinute) <= MEMORY_TOLERANCE * afterFirstMinute,
  { rssMBSecondMinuteMedian: afterFirstMinute, rssMBLastMinuteMedian: atEnd, rssMBMax: report.server?.rssMBMax },
)
await pool.end()

const summary = {
  seconds: report.seconds,
  batches: report.totals.batches,
  operations: report.totals.operations,
  operationsPerSecond: Math.round(report.totals.operationsPerSecond),
  failedBatches: report.totals.failedBatches,
  errors: report.errors,
  driveStatus,
  checks,
}
console.log(JSON.stringify(summary, null, 2))
const failed = checks.filter((entry) => !entry.holds)
console.log(
  failed.length === 0
    ? 'soak: every check holds'
    : `soak: ${failed.length} check(s) failed: ${failed.map((entry) => entry.name).join('; ')}`,
)
process.exit(failed.length === 0 ? 0 : 1)
