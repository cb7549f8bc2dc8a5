// The cost per operation of `$batch`: single-row catalog creates (Catalog_Products) in change sets of 100,
// as JSON and as multipart, 4 clients sending one batch after another for a fixed time. The figure is
// operations per second. Two baselines, in the same run:
//   - a bare uWS handler doing the same work (perf/support/bare-create-server.ts: read the body,
//     JSON.parse, one multi-row INSERT in a transaction, the same answer), measured before and after the
//     service, in the same process tree;                                          target ≥ 0.7
//   - the same rows inserted straight through mysql2, 100 per multi-row INSERT and transaction, 4 connections.
// The service is measured twice, each in a process of its own: with the request log `off` (the service's
// default level, decisions.md §8), which is the bare handler's work and the figure the target applies to; and
// with it at `all` (the demo configuration's level), where each operation also writes a log row in the
// change set's transaction, which the bare handler does not: that line says what the log costs.
// Also printed: each server's CPU time per operation (process.cpuUsage of each server, read over IPC
// around its runs) and, when the database runs on this machine, the database server's
// (perf/support/database-cpu.ts). The service logs in as `bench` (no rate rules).
// Run: node scripts/run-benchmarks.mjs batch-creates   (BENCH_SECONDS, BENCH_CPU_PROF=<folder> for profiles,
// BENCH_FORMATS=json or multipart for one format only)
import { randomBytes, randomUUID } from 'node:crypto'
import http from 'node:http'
import { buildJsonBatch, buildMultipartBatch, type BuiltBatch, type OperationSpec } from '../src/tools/shared/batch-body.js'
import { createPool, type Pool } from '../src/store/pool.js'
import { benchAddress, prepareBenchDatabase, waitForQuietDatabase } from './support/bench-database.js'
import { databaseCpuReader } from './support/database-cpu.js'
import { printResult } from './support/report.js'
import { startServerProcess, type ServerProcess } from './support/server-process.js'

const CLIENTS = 4
const OPERATIONS = 100
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4)
const MARK = 'bench-create'
const FORMATS = (process.env.BENCH_FORMATS ?? 'json,multipart').split(',') as ('json' | 'multipart')[]
const SERVICE_PORT = 18141
const BARE_PORT = 18142
const LOGGED_SERVICE_PORT = 18143

const { pool } = await prepareBenchDatabase(1)
const cleanUp = () => pool.query('DELETE FROM `c_Products` WHERE `Article` = ?', [MARK])
const databaseCpu = databaseCpuReader(benchAddress().host)
await cleanUp()
// The rows an earlier run deleted are purged first, or this run would measure the purge as much as its own work.
await waitForQuietDatabase(pool)

let serial = 0
function item(): Record<string, string> {
  serial++
  return { Code: `K${String(serial).padStart(10, '0')}`, Description: `Bench item ${serial}`, Article: MARK, Unit: 'pcs' }
}

function batch(format: 'json' | 'multipart'): BuiltBatch {
  const operations: OperationSpec[] = Array.from({ length: OPERATIONS }, (_, i) => ({
    id: String(i + 1),
    method: 'POST',
    url: 'Catalog_Products',
    headers: { 'Content-Type': 'application/json' },
    body: item(),
    atomicityGroup: 'g',
  }))
  return format === 'json' ? buildJsonBatch(operations) : buildMultipartBatch(operations)
}

function post(agent: http.Agent, port: number, built: BuiltBatch): Promise<void> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      {
        host: '127.0.0.1',
        port,
        method: 'POST',
        path: '/api/v4/$batch',
        agent,
        headers: { Authorization: 'Bearer bench-token', 'Content-Type': built.contentType, 'Content-Length': built.body.length },
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (c: Buffer) => chunks.push(c))
        response.on('end', () => {
          const text = Buffer.concat(chunks).toString()
          const created = text.split(format(built) === 'json' ? '"status":201' : 'HTTP/1.1 201 Created').length - 1
          if (response.statusCode !== 200 || created !== OPERATIONS)
            reject(new Error(`batch failed: ${response.statusCode} ${text.slice(0, 300)}`))
          else resolve()
        })
      },
    )
    request.on('error', reject)
    request.end(built.body)
  })
}

const format = (built: BuiltBatch) => (built.boundary === undefined ? 'json' : 'multipart')

/** Operations per second and CPU microseconds per operation of the server on `port`. */
async function measure(
  server: ServerProcess,
  port: number,
  kind: 'json' | 'multipart',
  seconds: number,
): Promise<{ operationsPerSecond: number; cpuPerOperation: number; databaseCpuPerOperation: number | undefined }> {
  const bodies = Array.from({ length: Math.ceil(seconds * 600) + CLIENTS }, () => batch(kind))
  let next = 0
  let operations = 0
  // Connections of its own: uWS closes a keep-alive connection idle for 10 s, as between two measurements.
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS })
  const cpuBefore = await server.cpu()
  const databaseBefore = databaseCpu?.()
  const started = process.hrtime.bigint()
  const deadline = started + BigInt(Math.round(seconds * 1e9))
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (process.hrtime.bigint() < deadline && next < bodies.length) {
        await post(agent, port, bodies[next++]!)
        operations += OPERATIONS
      }
    }),
  )
  const elapsed = Number(process.hrtime.bigint() - started) / 1e9
  const cpu = (await server.cpu()) - cpuBefore
  const databaseAfter = databaseCpu?.()
  agent.destroy()
  return {
    operationsPerSecond: operations / elapsed,
    cpuPerOperation: cpu / operations,
    databaseCpuPerOperation:
      databaseBefore === undefined || databaseAfter === undefined ? undefined : (databaseAfter - databaseBefore) / operations,
  }
}

/** The same rows straight through mysql2: 4 connections, one transaction and one multi-row INSERT per 100. */
async function direct(direct: Pool, seconds: number): Promise<number> {
  const batches = Array.from({ length: Math.ceil(seconds * 600) + CLIENTS }, () => {
    const versions = randomBytes(8 * OPERATIONS)
    return Array.from({ length: OPERATIONS }, (_, i) => {
      const b = item()
      return [randomUUID(), versions.toString('base64', 8 * i, 8 * i + 8), 0, b.Code, b.Description, b.Article, b.Unit]
    })
  })
  let next = 0
  let operations = 0
  const started = process.hrtime.bigint()
  const deadline = started + BigInt(Math.round(seconds * 1e9))
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const connection = await direct.getConnection()
      try {
        while (process.hrtime.bigint() < deadline && next < batches.length) {
          // Taken before the first await: the other clients move `next` while this one waits.
          const batch = batches[next++]!
          await connection.beginTransaction()
          await connection.query(
            'INSERT INTO `c_Products` (`Ref_Key`, `DataVersion`, `DeletionMark`, `Code`, `Description`, `Article`, `Unit`) VALUES ?',
            [batch],
          )
          await connection.commit()
          operations += OPERATIONS
        }
      } finally {
        connection.release()
      }
    }),
  )
  return operations / (Number(process.hrtime.bigint() - started) / 1e9)
}

const service = await startServerProcess('./bench-server.js', [String(SERVICE_PORT)], { REQUEST_LOG_LEVEL: 'off' })
const loggedService = await startServerProcess('./bench-server.js', [String(LOGGED_SERVICE_PORT)], { REQUEST_LOG_LEVEL: 'all' })
const bare = await startServerProcess('./bare-create-server.js', [String(BARE_PORT)])
const directPool = createPool(benchAddress(), { connectionLimit: CLIENTS })
try {
  for (const kind of FORMATS) {
    await measure(service, SERVICE_PORT, kind, 1) // warm-up
    await measure(loggedService, LOGGED_SERVICE_PORT, kind, 1)
    await measure(bare, BARE_PORT, kind, 1)
  }
  await direct(directPool, 1)
  const mysql = await direct(directPool, SECONDS)
  for (const kind of FORMATS) {
    const bareBefore = await measure(bare, BARE_PORT, kind, SECONDS)
    const measured = await measure(service, SERVICE_PORT, kind, SECONDS)
    const logged = await measure(loggedService, LOGGED_SERVICE_PORT, kind, SECONDS)
    const bareAfter = await measure(bare, BARE_PORT, kind, SECONDS)
    const baseline = (bareBefore.operationsPerSecond + bareAfter.operationsPerSecond) / 2
    const bareCpu = (bareBefore.cpuPerOperation + bareAfter.cpuPerOperation) / 2
    const bareDatabaseCpu =
      bareBefore.databaseCpuPerOperation === undefined || bareAfter.databaseCpuPerOperation === undefined
        ? undefined
        : (bareBefore.databaseCpuPerOperation + bareAfter.databaseCpuPerOperation) / 2
    const extra = {
      mysql2OperationsPerSecond: mysql,
      ratioToMysql2: measured.operationsPerSecond / mysql,
      serviceCpuMicrosecondsPerOperation: measured.cpuPerOperation,
      bareCpuMicrosecondsPerOperation: bareCpu,
      serviceDatabaseCpuMicrosecondsPerOperation: measured.databaseCpuPerOperation,
      bareDatabaseCpuMicrosecondsPerOperation: bareDatabaseCpu,
      bareRuns: [bareBefore.operationsPerSecond, bareAfter.operationsPerSecond],
      loggedOperationsPerSecond: logged.operationsPerSecond,
      loggedRatio: logged.operationsPerSecond / baseline,
      loggedCpuMicrosecondsPerOperation: logged.cpuPerOperation,
      loggedDatabaseCpuMicrosecondsPerOperation: logged.databaseCpuPerOperation,
    }
    printResult({
      benchmark: `batch-creates ${kind}`,
      figure: measured.operationsPerSecond,
      unit: 'operations/s',
      baseline,
      baselineName: 'bare uWS handler, same work; request log off',
      target: 0.7,
      extra,
    })
    console.log(
      `  ${kind}: ratio to mysql2 multi-row INSERTs (${mysql.toFixed(0)} operations/s) ${extra.ratioToMysql2.toFixed(2)}; ` +
        `CPU per operation: service ${measured.cpuPerOperation.toFixed(1)} µs, bare handler ${bareCpu.toFixed(1)} µs`,
    )
    if (measured.databaseCpuPerOperation !== undefined && bareDatabaseCpu !== undefined)
      console.log(
        `  ${kind}: database server CPU per operation: with the service ${measured.databaseCpuPerOperation.toFixed(1)} µs, ` +
          `with the bare handler ${bareDatabaseCpu.toFixed(1)} µs`,
      )
    console.log(
      `  ${kind}: with the request log at \`all\` (a row per operation): ${logged.operationsPerSecond.toFixed(0)} operations/s, ` +
        `ratio ${extra.loggedRatio.toFixed(2)}; CPU per operation: service ${logged.cpuPerOperation.toFixed(1)} µs` +
        (logged.databaseCpuPerOperation === undefined ? '' : `, database server ${logged.databaseCpuPerOperation.toFixed(1)} µs`),
    )
  }
} finally {
  await Promise.all([service.stop(), loggedService.stop(), bare.stop()])
  await directPool.end()
  await cleanUp()
  await pool.end()
}
