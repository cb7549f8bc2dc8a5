// The long cluster tests (`make cluster-test`, which starts a three-node Galera cluster and stops it after):
// - two processes migrating one fresh database at once, through two nodes: the schema is made once;
// - two service processes, each preferring another node, post change sets into the same register keys:
//   certification conflicts happen and never reach a client; totals equal a recomputation on every node;
// - a node killed (kill -9) in the middle of the batches and started again: no partial change set on any
//   node, every acknowledged change set present, clients see 503 with Retry-After or a retried success,
//   never a 500;
// - node 1 killed (kill -9) at seeded kill points, each statement of a change set's path (kill-points.ts):
//   never a 500, a 503 only where a COMMIT's outcome is unknown, every set applied once;
// - Repeatability-Request-ID and If-None-Match: * keep a request sent to two nodes applied exactly once;
// - a setting changed through one node is served by the process on another.
// Run alone (not by the default suite: its file name does not end in .test.js); the nodes are shared.
import { blockSize } from '../../src/limits/rate-limiter.js'
import { spawn } from 'node:child_process'
import t, { type Test } from 'tap'
import { loadModel } from '../../src/model/load-model.js'
import { rawRequest } from '../support/test-service.js'
import {
  catalogKeys,
  clusterCommand,
  clusterUrl,
  conflictCounters,
  dropDatabase,
  ensureCluster,
  freshDatabase,
  NODE_PORTS,
  nodeConnection,
  nodeState,
  sleep,
  startServiceProcess,
  type ServiceProcess,
} from './cluster-support.js'
import { applied, expectedMovement, planBatches, runClients, type PlannedBatch } from './posting-clients.js'
import { clientComplaints, KILL_POINTS, killRounds, notCommittedAtFirstSending, outcomeMayBeUnknown } from './kill-points.js'
import { startServer } from '../../src/http/server.js'
import { createServiceContext } from '../../src/service/service-context.js'
import { parseDatabaseUrl } from '../../src/store/database-url.js'
import { createPool } from '../../src/store/pool.js'
import { startStatementCuttingProxy } from '../support/statement-cutting-proxy.js'

const cluster = ensureCluster(3)
if (cluster.unavailable !== undefined) {
  t.plan(0, `Galera cluster tests skipped: ${cluster.unavailable}`)
} else {
  t.teardown(() => cluster.stop())
  const model = loadModel('config/demo.json')

  /** Checks of every node after a run of posting clients. */
  const checkNodes = async (t: Test, database: string, batches: readonly PlannedBatch[], nodes: readonly number[]) => {
    const expected = expectedMovement(batches)
    // Each sending counts its operations when the rate rules run; a change set is sent at least once.
    const sent = batches.reduce((sum, batch) => sum + batch.answers.length * batch.documents.length * 2, 0)
    const once = batches.reduce((sum, batch) => sum + batch.documents.length * 2, 0)
    const states = []
    for (const node of nodes) {
      const state = await nodeState(node, database, model)
      states.push(state)
      t.equal(state.documents, expected.documents, `node ${node}: every document of every change set, none twice`)
      t.equal(state.postedDocuments, expected.documents, `node ${node}: every document posted (no create without its Post)`)
      t.equal(state.goodsRows, expected.rows, `node ${node}: every table row`)
      t.equal(state.movements, expected.rows, `node ${node}: one movement per row`)
      t.same(state.totals, state.recomputed, `node ${node}: totals equal a recomputation from the movements`)
      // Reserved in blocks per process and window (src/limits/rate-limiter.ts): at most two blocks each beyond
      // what was sent, in every window the run reached (a run slowed by a node's restart spans several), and
      // one more per reservation whose COMMIT's answer a kill lost (counted, not held: the next request reserves again).
      const spare = (2 * 2 * state.rateWindows + 2) * blockSize({ operations: 6000, per: 60 })
      t.ok(
        state.rateOperations >= once && state.rateOperations <= sent + spare,
        `node ${node}: the rate counters hold the operations of both processes (${state.rateOperations}; ${once} to ${sent} and two blocks per process and window expected, ${state.rateWindows} window(s))`,
      )
    }
    for (const [index, state] of states.entries()) {
      if (index === 0) continue
      t.same(state.totals, states[0]!.totals, `node ${nodes[index]} holds the same totals as node ${nodes[0]}`)
      t.equal(state.batchLogEntries, states[0]!.batchLogEntries, `node ${nodes[index]} holds the same request log as node ${nodes[0]}`)
    }
  }

  t.test('two processes migrating a fresh database at once through two nodes make the schema once', async (t) => {
    const database = await freshDatabase('migrate')
    t.teardown(() => dropDatabase(database))
    const migrate = (order: number[]) =>
      new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = spawn(process.execPath, ['build/src/cli.js', 'migrate'], {
          env: { ...process.env, DATABASE_URL: clusterUrl(database, order), LOG_LEVEL: 'silent' },
        })
        let output = ''
        child.stdout.on('data', (c: Buffer) => (output += c.toString()))
        child.stderr.on('data', (c: Buffer) => (output += c.toString()))
        child.on('exit', (code) => resolve({ code, output }))
      })
    const results = await Promise.all([migrate([1, 2, 3]), migrate([2, 3, 1])])
    t.same(
      results.map((r) => r.code),
      [0, 0],
      `both migrations succeeded: ${results.map((r) => r.output.trim().split('\n').pop()).join(' / ')}`,
    )
    const tables = []
    for (const node of [1, 2, 3]) {
      const connection = await nodeConnection(node, database)
      await connection.query('SET SESSION wsrep_sync_wait = 1')
      const [rows] = (await connection.query(
        'SELECT TABLE_NAME AS name, COUNT(*) AS columns FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() GROUP BY TABLE_NAME ORDER BY TABLE_NAME',
      )) as unknown as [{ name: string; columns: number }[]]
      const [markers] = (await connection.query("SELECT COUNT(*) AS n FROM _service_state WHERE name = 'totals_layout'")) as unknown as [
        { n: number }[],
      ]
      await connection.end()
      tables.push(rows.map((r) => `${r.name}:${r.columns}`))
      t.equal(Number(markers[0]!.n), 1, `node ${node}: one totals layout marker`)
    }
    t.ok(tables[0]!.length > 20, `the schema has its ${tables[0]!.length} tables`)
    t.same(tables[1], tables[0], 'node 2 has the schema of node 1')
    t.same(tables[2], tables[0], 'node 3 has the schema of node 1')
  })

  const startPair = async (name: string): Promise<{ database: string; processes: ServiceProcess[] }> => {
    const database = await freshDatabase(name)
    const processes = [await startServiceProcess(database, [1, 2, 3]), await startServiceProcess(database, [2, 3, 1])]
    return { database, processes }
  }

  t.test('two processes on two nodes post change sets into the same register keys', async (t) => {
    const { database, processes } = await startPair('conflicts')
    t.teardown(async () => {
      for (const p of processes) await p.stop()
      await dropDatabase(database)
    })
    const keys = await catalogKeys(database)
    const conflictsBefore = (await conflictCounters(1)) + (await conflictCounters(2))
    const clients = planBatches({ clients: 4, batchesPerClient: 8, documentsPerBatch: 5, rowsPerDocument: 3 })
    await runClients(keys, clients, (client) => processes[client % 2]!.port)
    const conflicts = (await conflictCounters(1)) + (await conflictCounters(2)) - conflictsBefore
    t.ok(conflicts > 0, `the nodes met ${conflicts} certification conflicts or brute-force aborts`)
    const batches = clients.flat()
    t.same(
      batches
        .filter((batch) => batch.answers.length !== 1 || batch.answers[0]!.kind !== 'committed')
        .map(
          (batch) =>
            `${batch.client}/${batch.index}: ${batch.answers.map((a) => `${a.kind} ${a.statuses.join(',')} ${a.detail}`).join('; ')}`,
        ),
      [],
      'every change set committed at its first sending: each conflict was retried whole inside the service',
    )
    await checkNodes(t, database, batches, [1, 2, 3])
  })

  t.test('a node killed (kill -9) in the middle of the batches, then started again', async (t) => {
    const { database, processes } = await startPair('failover')
    t.teardown(async () => {
      for (const p of processes) await p.stop()
      await dropDatabase(database)
    })
    const keys = await catalogKeys(database)
    const clients = planBatches({ clients: 4, batchesPerClient: 12, documentsPerBatch: 5, rowsPerDocument: 3 })
    let answered = 0
    let killed: Promise<void> | undefined
    const killAndRestart = async () => {
      // Node 1 is the first process's preferred node, and a peer of the second one's.
      t.ok(clusterCommand('kill', '1').ok, 'node 1 killed')
      await sleep(3000)
      const restarted = await new Promise<{ code: number | null; output: string }>((resolve) => {
        const child = spawn('bash', ['scripts/galera-cluster.sh', 'start-node', '1'])
        let output = ''
        child.stdout.on('data', (c: Buffer) => (output += c.toString()))
        child.stderr.on('data', (c: Buffer) => (output += c.toString()))
        child.on('exit', (code) => resolve({ code, output }))
      })
      t.equal(restarted.code, 0, `node 1 started again and rejoined: ${restarted.output.trim()}`)
    }
    await runClients(keys, clients, (client) => processes[client % 2]!.port, {
      onSent: () => {
        answered++
        if (answered === 8) killed = killAndRestart()
      },
    })
    await killed
    const batches = clients.flat()
    const answers = batches.flatMap((batch) => batch.answers)
    const unavailable = answers.filter((answer) => answer.kind === 'retry')
    t.comment(
      `${answers.length} answers to ${batches.length} change sets: ${unavailable.length} times 503, ${answers.filter((a) => a.kind === 'present').length} found present when sent again`,
    )
    t.same(
      answers.filter((answer) => answer.kind === 'failed').map((answer) => `${answer.statuses.join(',')} ${answer.detail}`),
      [],
      'no answer was a 500 or another failure: only successes, 503 to retry, or 412 for a set applied before',
    )
    t.same(
      unavailable.filter((answer) => !/^\d+$/.test(answer.retryAfter ?? '')).map((answer) => answer.detail),
      [],
      'every 503 carries Retry-After',
    )
    t.same(
      batches
        .filter((batch) => !applied(batch))
        .map((batch) => `${batch.client}/${batch.index}: ${batch.answers.map((a) => a.kind).join(',')}`),
      [],
      'every change set was acknowledged in the end',
    )
    await checkNodes(t, database, batches, [1, 2, 3])
  })

  t.test('node 1 killed (kill -9) at seeded kill points: every statement of a change set, the pool, the rate counters', async (t) => {
    // The service in this process, its pool listing node 1 through a proxy that runs `kill -9` on node 1 at
    // the round's statement (test/cluster/kill-points.ts), then nodes 2 and 3. One client per round: the only
    // transaction in flight is the one the kill lands in. Node 1 is started again after each round.
    const seed = Number(process.env.KILL_POINT_SEED ?? 20261127)
    const rounds = killRounds(seed, Number(process.env.CLUSTER_KILL_ROUNDS ?? KILL_POINTS.length))
    const database = await freshDatabase('kill_points')
    const setup = await startServiceProcess(database, [2, 3, 1])
    await setup.stop()
    const proxy = await startStatementCuttingProxy({ host: '127.0.0.1', port: NODE_PORTS[0]! })
    t.teardown(async () => {
      await proxy.close()
      await dropDatabase(database)
    })
    const keys = await catalogKeys(database)
    const everyBatch: PlannedBatch[] = []
    for (const [index, round] of rounds.entries()) {
      const pool = createPool(
        {
          ...parseDatabaseUrl(clusterUrl(database, [1, 2, 3])),
          hosts: [{ host: '127.0.0.1', port: proxy.port }, ...[2, 3].map((node) => ({ host: '127.0.0.1', port: NODE_PORTS[node - 1]! }))],
        },
        { connectionLimit: 4, connectTimeout: 2000 },
      )
      const server = await startServer(createServiceContext(model, pool), { host: '127.0.0.1', port: 0 })
      proxy.dropConnections()
      await sleep(100)
      let cutAt: string | undefined
      void proxy
        .killAt({ at: round.point.at, cut: round.cut, skip: round.skip, onCut: () => void clusterCommand('kill', '1') })
        .then((statement) => (cutAt = statement))
      const clients = planBatches({ clients: 1, batchesPerClient: 4, documentsPerBatch: 2, rowsPerDocument: 2, firstIndex: index * 4 })
      try {
        await runClients(keys, clients, () => server.port, { maxAttempts: 40 })
      } finally {
        proxy.disarm()
        server.close()
        await pool.end()
      }
      const name = `round ${index + 1} (seed ${seed}): ${round.describe()}`
      if (cutAt !== undefined) {
        const restarted = clusterCommand('start-node', '1')
        t.ok(restarted.ok, `${name}: node 1 started again (${restarted.output.split('\n').pop()})`)
      }
      t.ok(cutAt !== undefined, `${name}: node 1 was killed at ${cutAt?.slice(0, 60) ?? '(no such statement came)'}`)
      const batches = clients.flat()
      everyBatch.push(...batches)
      t.same(clientComplaints(batches), [], `${name}: no 500, every 503 with Retry-After, every change set acknowledged`)
      if (!outcomeMayBeUnknown(round))
        t.same(notCommittedAtFirstSending(batches), [], `${name}: nothing can have committed: run again on the next node, no 503`)
    }
    const expected = expectedMovement(everyBatch)
    for (const node of [1, 2, 3]) {
      const state = await nodeState(node, database, model)
      t.equal(state.documents, expected.documents, `node ${node}: every document of every change set, none twice`)
      t.equal(state.postedDocuments, expected.documents, `node ${node}: every document posted`)
      t.equal(state.movements, expected.rows, `node ${node}: one movement per row`)
      t.same(state.totals, state.recomputed, `node ${node}: totals equal a recomputation from the movements`)
    }
  })

  t.test('Repeatability-Request-ID and If-None-Match: * sent to two nodes apply a request once', async (t) => {
    const { database, processes } = await startPair('repeat')
    t.teardown(async () => {
      for (const p of processes) await p.stop()
      await dropDatabase(database)
    })
    const auth = { Authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}`, 'Content-Type': 'application/json' }
    const root = '/odata/standard.odata/v4/'
    const warehouses = async (node: number, where: string) => {
      const connection = await nodeConnection(node, database)
      await connection.query('SET SESSION wsrep_sync_wait = 1')
      const [rows] = (await connection.query(`SELECT COUNT(*) AS n FROM c_Warehouses WHERE ${where}`)) as unknown as [{ n: number }[]]
      await connection.end()
      return Number(rows[0]!.n)
    }
    // One after the other: sent to the first process (node 1), repeated to the second (node 2).
    const body = JSON.stringify({ Code: 'R-1', Description: 'Repeated once' })
    const headers = { ...auth, 'Repeatability-Request-ID': 'cluster-repeat-1', 'Repeatability-First-Sent': new Date().toUTCString() }
    const firstAnswer = await rawRequest(processes[0]!.port, 'POST', `${root}Catalog_Warehouses`, { headers, body })
    const repeated = await rawRequest(processes[1]!.port, 'POST', `${root}Catalog_Warehouses`, { headers, body })
    t.equal(firstAnswer.status, 201)
    t.equal(repeated.status, 201)
    t.equal(repeated.headers['repeatability-result'], 'accepted', 'the other node replays the kept response')
    t.equal(repeated.json().Ref_Key, firstAnswer.json().Ref_Key, 'the same entity')
    // At the same moment, to both processes, several times.
    for (let round = 0; round < 6; round++) {
      const description = `Concurrent ${round}`
      const sameBody = JSON.stringify({ Code: `C-${round}`, Description: description })
      const sameHeaders = {
        ...auth,
        'Repeatability-Request-ID': `cluster-concurrent-${round}`,
        'Repeatability-First-Sent': new Date().toUTCString(),
      }
      const answers = await Promise.all(
        processes.map((p) => rawRequest(p.port, 'POST', `${root}Catalog_Warehouses`, { headers: sameHeaders, body: sameBody })),
      )
      t.same(
        answers.map((a) => a.status),
        [201, 201],
        `round ${round}: both copies answered 201 (${answers.map((a) => a.text.slice(0, 120)).join(' / ')})`,
      )
      t.equal(answers[0]!.json().Ref_Key, answers[1]!.json().Ref_Key, `round ${round}: one entity for both`)
      const key = `3c3c3c3c-0000-4000-8000-${String(round).padStart(12, '0')}`
      const keyed = JSON.stringify({ Ref_Key: key, Code: `K-${round}`, Description: 'If-None-Match' })
      const created = await Promise.all(
        processes.map((p) =>
          rawRequest(p.port, 'POST', `${root}Catalog_Warehouses`, { headers: { ...auth, 'If-None-Match': '*' }, body: keyed }),
        ),
      )
      t.same(
        created.map((a) => a.status).sort(),
        [201, 412],
        `round ${round}: If-None-Match: * on two nodes at once: one 201, one 412 (${created.map((a) => a.text.slice(0, 120)).join(' / ')})`,
      )
      for (const node of [1, 2, 3]) {
        t.equal(
          await warehouses(node, `Description = '${description}'`),
          1,
          `round ${round}, node ${node}: the repeated request applied once`,
        )
        t.equal(await warehouses(node, `Ref_Key = '${key}'`), 1, `round ${round}, node ${node}: the keyed create applied once`)
      }
    }
    for (const node of [1, 2, 3])
      t.equal(await warehouses(node, "Description = 'Repeated once'"), 1, `node ${node}: the repeated request applied once`)
  })

  t.test('a setting changed through one node is served by the process on another', async (t) => {
    const { database, processes } = await startPair('settings')
    t.teardown(async () => {
      for (const p of processes) await p.stop()
      await dropDatabase(database)
    })
    const auth = { Authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}`, 'Content-Type': 'application/json' }
    const address = '/odata/standard.odata/v4/$settings'
    const changed = await rawRequest(processes[0]!.port, 'PATCH', address, {
      headers: auth,
      body: JSON.stringify({ maxBatchOperations: 42 }),
    })
    t.ok(changed.status < 300, `changed through the first process (${changed.status})`)
    // Processes read the settings again every two seconds (README, Settings).
    let seen: unknown
    for (let attempt = 0; attempt < 20 && seen !== 42; attempt++) {
      await sleep(250)
      seen = (await rawRequest(processes[1]!.port, 'GET', address, { headers: auth })).json().settings.maxBatchOperations
    }
    t.equal(seen, 42, 'the process on the other node serves the new value')
  })
}
