// The service's CPU time per operation of `$batch`, by build: what a server spends on JSON change sets of 100
// single-row catalog creates (Catalog_Products), 4 clients, a fixed number of batches per round (not a fixed
// time, so a slower round does the same work), the rounds alternating between the servers. On a two-core
// machine that the client and MariaDB share with the server, throughput ratios move with the machine's load
// far more than this figure does, and they follow it: the server's CPU per operation is what decides them.
// Servers, each a child process of its own with the request log `off`:
//   - this build's service, with the change record's notes and without them (BENCH_CHANGE_RECORD=off);
//   - the bare uWS handler (perf/support/bare-create-server.ts), the floor;
//   - the service of every other build named in BENCH_COMPARE_BUILDS (comma-separated folders holding a
//     checkout of another commit built with `make build`, its node_modules beside it): its
//     build/perf/support/bench-server.js, notes off where that build has the switch. This is how a rise is
//     found in the history (docs/performance.md: the service without its notes against the code before the
//     change record).
// Printed per server: CPU µs per operation in each round (user and system time of the process, from
// process.cpuUsage over IPC) and their mean; then each server's mean ÷ this build's without notes.
// Run: node scripts/run-benchmarks.mjs batch-cpu   (BENCH_BATCHES per round, default 150; BENCH_ROUNDS,
// default 3; BENCH_COMPARE_BUILDS; BENCH_CPU_PROF=<folder> for profiles of every server)
import http from 'node:http'
import path from 'node:path'
import type { BuiltBatch } from '../src/tools/shared/batch-body.js'
import { type ServiceChild, startBenchmarkServer, startServiceChild } from '../test/support/service-child.js'
import { prepareBenchDatabase, waitForQuietDatabase } from './support/bench-database.js'
import { catalogCreateBatch } from './support/catalog-create-batch.js'
import { freePorts } from './support/free-port.js'
import { postBatch } from './support/post-batch.js'

const CLIENTS = 4
const OPERATIONS = 100
const BATCHES = Math.max(10, Number(process.env.BENCH_BATCHES ?? 150))
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const MARK = 'bench-cpu'
const COMPARED = (process.env.BENCH_COMPARE_BUILDS ?? '')
  .split(',')
  .map((folder) => folder.trim())
  .filter((folder) => folder !== '')

const { pool } = await prepareBenchDatabase(1)
const cleanUp = () => pool.query('DELETE FROM `c_Products` WHERE `Article` = ?', [MARK])
await cleanUp()
await waitForQuietDatabase(pool)

const batch = (): BuiltBatch => catalogCreateBatch(OPERATIONS, MARK)

async function post(agent: http.Agent, port: number, built: BuiltBatch): Promise<void> {
  const answer = await postBatch(port, built.body, built.contentType, agent)
  const body = answer.body.toString()
  // Every create answered, or the round measured something else than the work it claims.
  if (answer.statusCode !== 200 || body.split('"status":201').length - 1 !== OPERATIONS)
    throw new Error(`batch failed: ${answer.statusCode} ${body.slice(0, 300)}`)
}

/** CPU µs per operation of `server` while it answers `batches` batches (bodies built before its clock starts). */
async function cpuPerOperation(server: ServiceChild, port: number, batches: number): Promise<number> {
  const bodies = Array.from({ length: batches }, batch)
  const agent = new http.Agent({ keepAlive: true, maxSockets: CLIENTS })
  let next = 0
  const before = await server.cpu()
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      while (next < bodies.length) await post(agent, port, bodies[next++]!)
    }),
  )
  const cpu = (await server.cpu()) - before
  agent.destroy()
  return cpu / (batches * OPERATIONS)
}

interface Measured {
  readonly name: string
  readonly server: ServiceChild
  readonly port: number
  readonly rounds: number[]
}

const ports = await freePorts(3 + COMPARED.length)
const servers: Measured[] = []
const start = async (name: string, started: (port: number) => Promise<ServiceChild>) => {
  const port = ports[servers.length]!
  servers.push({ name, server: await started(port), port, rounds: [] })
}
try {
  await start('this build, without notes', (port) =>
    startBenchmarkServer('bench-server.js', [String(port)], { REQUEST_LOG_LEVEL: 'off', BENCH_CHANGE_RECORD: 'off' }),
  )
  await start('this build, with notes', (port) => startBenchmarkServer('bench-server.js', [String(port)], { REQUEST_LOG_LEVEL: 'off' }))
  await start('bare handler', (port) => startBenchmarkServer('bare-create-server.js', [String(port)]))
  for (const folder of COMPARED)
    await start(folder, (port) =>
      startServiceChild(path.resolve(folder, 'build/perf/support/bench-server.js'), [String(port)], {
        environment: { REQUEST_LOG_LEVEL: 'off', BENCH_CHANGE_RECORD: 'off' },
        ready: 'message',
        stopWith: 'message',
        benchmark: true,
      }),
    )
  // Warm-up: every server compiles its hot paths before the first round counts.
  for (const s of servers) await cpuPerOperation(s.server, s.port, 20)
  for (let round = 0; round < ROUNDS; round++) for (const s of servers) s.rounds.push(await cpuPerOperation(s.server, s.port, BATCHES))
  const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length
  const reference = mean(servers[0]!.rounds)
  console.log(`batch-cpu: JSON change sets of ${OPERATIONS} creates, ${CLIENTS} clients, ${BATCHES} batches a round, log off`)
  for (const s of servers)
    console.log(
      `  ${s.name}: CPU per operation ${s.rounds.map((value) => value.toFixed(1)).join(', ')} µs (mean ${mean(s.rounds).toFixed(1)}; ÷ this build without notes ${(mean(s.rounds) / reference).toFixed(2)})`,
    )
} finally {
  for (const s of servers) await s.server.stop()
  await cleanUp()
  await pool.end()
}
