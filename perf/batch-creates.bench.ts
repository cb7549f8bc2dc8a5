// The cost per operation of `$batch`: single-row catalog creates (Catalog_Products) in change sets of 100,
// as JSON and as multipart, 4 clients sending one batch after another for a fixed time. The figure is
// operations per second. Two baselines, in the same run:
//   - a bare uWS handler doing the same work (perf/support/bare-create-server.ts: read the body,
//     JSON.parse, one multi-row INSERT in a transaction, the same answer), measured before and after the
//     service, in the same process tree;                                          target ≥ 0.7
//   - the same rows inserted straight through mysql2, 100 per multi-row INSERT and transaction, 4 connections
//     (issue 28: the service ÷ mysql2 with the log off                            target ≥ 0.45).
// The service runs in three processes of its own: with the request log `off` (the service's default level,
// decisions.md §8), which is the bare handler's work and the figure the targets apply to; with it at `all`
// (the demo configuration's level), where each operation also writes a log row in the change set's
// transaction: the log's cost, ÷ the service at `off`                             target ≥ 0.8;
// and with the log `off` and without the change record's notes (BENCH_CHANGE_RECORD=off): the notes' cost,
// the service ÷ this one                                                           target ≥ 0.9.
// Besides the light client (bodies built before the clock starts, answers counted by a substring), a real
// client runs against the service and the bare handler alike: it builds each batch as it sends it and
// parses every answer (JSON.parse, or the tools' multipart reader, which parses each part's JSON): the
// service ÷ the bare handler, log off                                              target ≥ 0.8.
// BENCH_ROUNDS repeats the measurements; each ratio printed is the median of the rounds' ratios.
// Also printed: each server's CPU time per operation (process.cpuUsage of each server, read over IPC
// around its runs) and, when the database runs on this machine, the database server's
// (perf/support/database-cpu.ts). The service logs in as `bench` (no rate rules).
// Run: node scripts/run-benchmarks.mjs batch-creates   (BENCH_SECONDS, BENCH_CPU_PROF=<folder> for profiles,
// BENCH_FORMATS=json or multipart for one format only, BENCH_ROUNDS)
import { randomBytes, randomUUID } from 'node:crypto'
import http from 'node:http'
import { buildBatchBody, buildJsonBatch, buildMultipartBatch, type BuiltBatch, type OperationSpec } from '../src/tools/shared/batch-body.js'
import { createPool, type Pool } from '../src/store/pool.js'
import { readBatchAnswer } from '../src/tools/shared/batch-answer.js'
import { benchAddress, prepareBenchDatabase, waitForQuietDatabase } from './support/bench-database.js'
import { databaseCpuReader } from './support/database-cpu.js'
import { freePorts } from './support/free-port.js'
import { postBatch } from './support/post-batch.js'
import { printResult } from './support/report.js'
import { type ServiceChild, startBenchmarkServer } from '../test/support/service-child.js'

const CLIENTS = 4
const OPERATIONS = 100
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4)
/** Rounds of every measurement, one after the other; each ratio printed is the median of its rounds. */
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 1))
const MARK = 'bench-create'
const FORMATS = (process.env.BENCH_FORMATS ?? 'json,multipart').split(',') as ('json' | 'multipart')[]
// Ports from the system, not fixed ones: a fixed port would be shared with the same benchmark run beside this one.
const [SERVICE_PORT, BARE_PORT, LOGGED_SERVICE_PORT, UNTRACKED_SERVICE_PORT] = await freePorts(4)

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

/** What a client does with the answer: `light` counts the 201s in the text; `real` parses it as a client must. */
type Client = 'light' | 'real'

async function post(agent: http.Agent, port: number, built: BuiltBatch, client: Client): Promise<void> {
  const answer = await postBatch(port, built.body, built.contentType, agent)
  let created: number
  if (client === 'real') {
    // JSON.parse of the answer, or a multipart reader that parses each part's JSON (the tools' own).
    const answers = readBatchAnswer(answer.contentType, answer.body)
    created = answers.filter((part) => part.status === 201 && typeof part.body === 'object').length
  } else
    created =
      answer.body.toString().split(built.contentType.startsWith('application/json') ? '"status":201' : 'HTTP/1.1 201 Created').length - 1
  if (answer.statusCode !== 200 || created !== OPERATIONS)
    throw new Error(`batch failed: ${answer.statusCode} ${answer.body.subarray(0, 300).toString()}`)
}

/** A batch as a client builds it when it sends it: the items made, then the body written (the tools' own writer). */
function batchNow(kind: 'json' | 'multipart'): BuiltBatch {
  const operations = Array.from({ length: OPERATIONS }, (_, i) => ({
    id: String(i + 1),
    method: 'POST',
    url: 'Catalog_Products',
    body: item(),
    atomicityGroup: 'g',
  }))
  return buildBatchBody(operations, kind)
}

interface Measured {
  readonly operationsPerSecond: number
  readonly cpuPerOperation: number
  readonly databaseCpuPerOperation: number | undefined
}

/**
 * Operations per second and CPU microseconds per operation of the server on `port`. The `light` client sends
 * bodies built before the clock starts; the `real` client builds each batch as it sends it and parses every answer.
 */
async function measure(
  server: ServiceChild,
  port: number,
  kind: 'json' | 'multipart',
  seconds: number,
  client: Client = 'light',
): Promise<Measured> {
  const bodies = client === 'light' ? Array.from({ length: Math.ceil(seconds * 600) + CLIENTS }, () => batch(kind)) : []
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
      while (process.hrtime.bigint() < deadline && (client === 'real' || next < bodies.length)) {
        await post(agent, port, client === 'real' ? batchNow(kind) : bodies[next++]!, client)
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

const service = await startBenchmarkServer('bench-server.js', [String(SERVICE_PORT)], { REQUEST_LOG_LEVEL: 'off' })
const loggedService = await startBenchmarkServer('bench-server.js', [String(LOGGED_SERVICE_PORT)], { REQUEST_LOG_LEVEL: 'all' })
const untrackedService = await startBenchmarkServer('bench-server.js', [String(UNTRACKED_SERVICE_PORT)], {
  REQUEST_LOG_LEVEL: 'off',
  BENCH_CHANGE_RECORD: 'off',
})
const bare = await startBenchmarkServer('bare-create-server.js', [String(BARE_PORT)])
const directPool = createPool(benchAddress(), { connectionLimit: CLIENTS })

/**
 * One round of a format: every server measured once, one after the other. Each ratio's two sides are
 * measured next to each other (the service between the one without notes and the one with the log), and
 * every other round in the opposite order, so that a machine growing busier or quieter favours neither side.
 */
async function round(kind: 'json' | 'multipart', index: number) {
  const forwards = index % 2 === 0
  const mysql = await direct(directPool, SECONDS)
  const bareBefore = await measure(bare, BARE_PORT, kind, SECONDS)
  const first = forwards
    ? await measure(untrackedService, UNTRACKED_SERVICE_PORT, kind, SECONDS)
    : await measure(loggedService, LOGGED_SERVICE_PORT, kind, SECONDS)
  const measured = await measure(service, SERVICE_PORT, kind, SECONDS)
  const last = forwards
    ? await measure(loggedService, LOGGED_SERVICE_PORT, kind, SECONDS)
    : await measure(untrackedService, UNTRACKED_SERVICE_PORT, kind, SECONDS)
  const [untracked, logged] = forwards ? [first, last] : [last, first]
  const realFirst = forwards
    ? await measure(service, SERVICE_PORT, kind, SECONDS, 'real')
    : await measure(bare, BARE_PORT, kind, SECONDS, 'real')
  const realLast = forwards
    ? await measure(bare, BARE_PORT, kind, SECONDS, 'real')
    : await measure(service, SERVICE_PORT, kind, SECONDS, 'real')
  const [realService, realBare] = forwards ? [realFirst, realLast] : [realLast, realFirst]
  const bareAfter = await measure(bare, BARE_PORT, kind, SECONDS)
  const baseline = (bareBefore.operationsPerSecond + bareAfter.operationsPerSecond) / 2
  return {
    mysql,
    bareBefore,
    bareAfter,
    measured,
    logged,
    untracked,
    realService,
    realBare,
    baseline,
    ratio: measured.operationsPerSecond / baseline,
    ratioToMysql2: measured.operationsPerSecond / mysql,
    loggedRatio: logged.operationsPerSecond / baseline,
    loggedRatioToLogOff: logged.operationsPerSecond / measured.operationsPerSecond,
    changeRecordRatio: measured.operationsPerSecond / untracked.operationsPerSecond,
    realClientRatio: realService.operationsPerSecond / realBare.operationsPerSecond,
  }
}

type Round = Awaited<ReturnType<typeof round>>

const median = (values: readonly number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
const µs = (value: number | undefined) => (value === undefined ? 'n/a' : `${value.toFixed(1)} µs`)

try {
  for (const kind of FORMATS) {
    await measure(service, SERVICE_PORT, kind, 1) // warm-up
    await measure(loggedService, LOGGED_SERVICE_PORT, kind, 1)
    await measure(untrackedService, UNTRACKED_SERVICE_PORT, kind, 1)
    await measure(service, SERVICE_PORT, kind, 1, 'real')
    await measure(bare, BARE_PORT, kind, 1, 'real')
    await measure(bare, BARE_PORT, kind, 1)
  }
  await direct(directPool, 1)
  for (const kind of FORMATS) {
    const rounds: Round[] = []
    for (let r = 0; r < ROUNDS; r++) rounds.push(await round(kind, r))
    const figure = (pick: (r: Round) => number) => median(rounds.map(pick))
    const all = (pick: (r: Round) => number) => rounds.map((r) => pick(r).toFixed(2)).join(', ')
    const cpu = (pick: (r: Round) => Measured) => mean(rounds.map((r) => pick(r).cpuPerOperation))
    const databaseCpu = (pick: (r: Round) => Measured) => {
      const values = rounds.map((r) => pick(r).databaseCpuPerOperation)
      return values.some((value) => value === undefined) ? undefined : mean(values as number[])
    }
    const extra = {
      rounds: ROUNDS,
      mysql2OperationsPerSecond: figure((r) => r.mysql),
      ratioToMysql2: figure((r) => r.ratioToMysql2),
      ratioToMysql2Runs: rounds.map((r) => r.ratioToMysql2),
      serviceCpuMicrosecondsPerOperation: cpu((r) => r.measured),
      bareCpuMicrosecondsPerOperation: mean(rounds.map((r) => (r.bareBefore.cpuPerOperation + r.bareAfter.cpuPerOperation) / 2)),
      serviceDatabaseCpuMicrosecondsPerOperation: databaseCpu((r) => r.measured),
      bareDatabaseCpuMicrosecondsPerOperation: databaseCpu((r) => r.bareBefore),
      ratioRuns: rounds.map((r) => r.ratio),
      bareRuns: rounds.flatMap((r) => [r.bareBefore.operationsPerSecond, r.bareAfter.operationsPerSecond]),
      loggedOperationsPerSecond: figure((r) => r.logged.operationsPerSecond),
      loggedRatio: figure((r) => r.loggedRatio),
      loggedRatioToLogOff: figure((r) => r.loggedRatioToLogOff),
      loggedRatioToLogOffRuns: rounds.map((r) => r.loggedRatioToLogOff),
      loggedCpuMicrosecondsPerOperation: cpu((r) => r.logged),
      loggedDatabaseCpuMicrosecondsPerOperation: databaseCpu((r) => r.logged),
      untrackedOperationsPerSecond: figure((r) => r.untracked.operationsPerSecond),
      changeRecordRatio: figure((r) => r.changeRecordRatio),
      changeRecordRatioRuns: rounds.map((r) => r.changeRecordRatio),
      untrackedCpuMicrosecondsPerOperation: cpu((r) => r.untracked),
      untrackedDatabaseCpuMicrosecondsPerOperation: databaseCpu((r) => r.untracked),
      realClientServiceOperationsPerSecond: figure((r) => r.realService.operationsPerSecond),
      realClientBareOperationsPerSecond: figure((r) => r.realBare.operationsPerSecond),
      realClientRatio: figure((r) => r.realClientRatio),
      realClientRatioRuns: rounds.map((r) => r.realClientRatio),
    }
    printResult({
      benchmark: `batch-creates ${kind}`,
      figure: figure((r) => r.measured.operationsPerSecond),
      unit: 'operations/s',
      baseline: figure((r) => r.baseline),
      baselineName: 'bare uWS handler, same work; request log off',
      target: 0.7,
      extra: { ...extra, ratioMedian: figure((r) => r.ratio) },
    })
    const runs = ROUNDS > 1 ? (values: string) => ` (rounds: ${values})` : () => ''
    console.log(`  ${kind}: ${ROUNDS} round(s); each figure is the median of the rounds' ratios${runs(all((r) => r.ratio))}`)
    console.log(
      `  ${kind}: with a real client (each batch built as it is sent, every answer parsed): service ` +
        `${extra.realClientServiceOperationsPerSecond.toFixed(0)}, bare handler ${extra.realClientBareOperationsPerSecond.toFixed(0)} ` +
        `operations/s, ratio ${extra.realClientRatio.toFixed(2)} (target ≥ 0.8)${runs(all((r) => r.realClientRatio))}`,
    )
    console.log(
      `  ${kind}: the change record's cost: the service ÷ the same service without its notes ` +
        `(${extra.untrackedOperationsPerSecond.toFixed(0)} operations/s) ${extra.changeRecordRatio.toFixed(2)} (target ≥ 0.9)` +
        `${runs(all((r) => r.changeRecordRatio))}; CPU per operation without them ${µs(extra.untrackedCpuMicrosecondsPerOperation)}`,
    )
    console.log(
      `  ${kind}: with the request log at \`all\` (a row per operation): ${extra.loggedOperationsPerSecond.toFixed(0)} operations/s, ` +
        `÷ the same service with the log off ${extra.loggedRatioToLogOff.toFixed(2)} (target ≥ 0.8)${runs(all((r) => r.loggedRatioToLogOff))}, ` +
        `÷ the bare handler ${extra.loggedRatio.toFixed(2)}; CPU per operation: service ${µs(extra.loggedCpuMicrosecondsPerOperation)}, ` +
        `database server ${µs(extra.loggedDatabaseCpuMicrosecondsPerOperation)}`,
    )
    console.log(
      `  ${kind}: ratio to mysql2 multi-row INSERTs (${extra.mysql2OperationsPerSecond.toFixed(0)} operations/s) ` +
        `${extra.ratioToMysql2.toFixed(2)} (target ≥ 0.45)${runs(all((r) => r.ratioToMysql2))}; CPU per operation: ` +
        `service ${µs(extra.serviceCpuMicrosecondsPerOperation)}, bare handler ${µs(extra.bareCpuMicrosecondsPerOperation)}; ` +
        `database server with the service ${µs(extra.serviceDatabaseCpuMicrosecondsPerOperation)}, with the bare handler ` +
        `${µs(extra.bareDatabaseCpuMicrosecondsPerOperation)}`,
    )
  }
} finally {
  await Promise.all([service.stop(), loggedService.stop(), untrackedService.stop(), bare.stop()])
  await directPool.end()
  await cleanUp()
  await pool.end()
}
