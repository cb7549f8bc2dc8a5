// The short slice of the kill-point test that `make test` runs without a cluster (the long one, with a
// Galera node really killed: test/cluster/failover.cluster.ts): the service's pool lists two "nodes", two
// proxies in front of the one MariaDB server; at a seeded kill point (test/cluster/kill-points.ts) the
// first proxy cuts the statement, every connection through it, and refuses new ones for a while, as a node
// killed with kill -9. Each round posts change sets, one client, through a fresh service (a new pool and rate limiter,
// so that connections, readiness checks and rate counter reservations happen in it); afterwards no client
// was answered 500, every 503 carried Retry-After (only a COMMIT cut after it ran may give one: elsewhere
// nothing can have committed, and the set runs again on the next node), every change set was applied exactly once, and the
// totals equal a recomputation from the movements (checkTotals, the `verify` command's check).
//
// KILL_POINT_SEED picks the rounds (a failure names its seed and round), KILL_POINT_ROUNDS how many run
// (one per kill point by default).
import t from 'tap'
import { startServer } from '../../src/http/server.js'
import { loadModel } from '../../src/model/load-model.js'
import { seedDemoData } from '../../src/seed/seed-data.js'
import { createServiceContext } from '../../src/service/service-context.js'
import { migrate } from '../../src/store/migrate.js'
import { createPool } from '../../src/store/pool.js'
import { checkTotals } from '../../src/store/totals-check.js'
import { startStatementCuttingProxy } from '../support/statement-cutting-proxy.js'
import { createTestDatabase } from '../support/test-database.js'
import { catalogKeysFrom, sleep } from './cluster-support.js'
import { clientComplaints, KILL_POINTS, killRounds, notCommittedAtFirstSending, outcomeMayBeUnknown } from './kill-points.js'
import { expectedMovement, planBatches, runClients, type PlannedBatch } from './posting-clients.js'

const seed = Number(process.env.KILL_POINT_SEED ?? 20261126)
const rounds = killRounds(seed, Number(process.env.KILL_POINT_ROUNDS ?? KILL_POINTS.length))
const model = loadModel('config/demo.json')
const database = await createTestDatabase('kill_points')
await migrate(database.pool, model)
await seedDemoData(database.pool, model, { scale: 0 })
const keys = await catalogKeysFrom(database.pool)
const target = { host: database.address.host, port: database.address.port }
const dying = await startStatementCuttingProxy(target)
const peer = await startStatementCuttingProxy(target)
t.teardown(async () => {
  await dying.close()
  await peer.close()
  await database.drop()
})

const count = async (statement: string) => {
  const [rows] = await database.pool.query(statement)
  return Number(Object.values((rows as Record<string, unknown>[])[0]!)[0])
}

const everyBatch: PlannedBatch[] = []
for (const [index, round] of rounds.entries()) {
  t.test(`seed ${seed}, round ${index + 1}: ${round.describe()}`, async (t) => {
    const pool = createPool(
      {
        ...database.address,
        hosts: [
          { host: '127.0.0.1', port: dying.port },
          { host: '127.0.0.1', port: peer.port },
        ],
      },
      { connectionLimit: 4, connectTimeout: 2000 },
    )
    const server = await startServer(createServiceContext(model, pool), { host: '127.0.0.1', port: 0 })
    // The connection the start made is dropped, so that the round's requests connect (and check the node) anew.
    dying.dropConnections()
    await sleep(100)
    const killed = dying.killAt({ at: round.point.at, cut: round.cut, skip: round.skip, downMs: round.downMs })
    let cutAt: string | undefined
    void killed.then((statement) => (cutAt = statement))
    // One client: the only transaction in flight is the one the kill lands in.
    const clients = planBatches({ clients: 1, batchesPerClient: 4, documentsPerBatch: 2, rowsPerDocument: 2, firstIndex: index * 4 })
    try {
      await runClients(keys, clients, () => server.port, { maxAttempts: 20 })
    } finally {
      dying.disarm()
      server.close()
      await pool.end()
    }
    // The node is back before the next round, as a restarted node is.
    await sleep(round.downMs)
    t.ok(cutAt !== undefined, `the node died at ${cutAt?.slice(0, 60) ?? '(no such statement came)'}`)
    const batches = clients.flat()
    everyBatch.push(...batches)
    t.same(clientComplaints(batches), [], 'no 500, every 503 with Retry-After, every change set acknowledged')
    if (!outcomeMayBeUnknown(round))
      t.same(notCommittedAtFirstSending(batches), [], 'nothing can have committed: the service ran it again on the next node, no 503')
    const expected = expectedMovement(everyBatch)
    const documents = (await count('SELECT COUNT(*) FROM d_GoodsReceipt')) + (await count('SELECT COUNT(*) FROM d_GoodsSale'))
    t.equal(documents, expected.documents, 'every document of every change set, none twice')
    const posted =
      (await count('SELECT COUNT(*) FROM d_GoodsReceipt WHERE Posted = 1')) +
      (await count('SELECT COUNT(*) FROM d_GoodsSale WHERE Posted = 1'))
    t.equal(posted, expected.documents, 'every document posted (no create without its Post)')
    t.equal(await count('SELECT COUNT(*) FROM ar_Stock'), expected.rows, 'one movement per table row')
    const totals = await checkTotals(database.pool, model)
    t.same(totals.differences, [], 'the totals equal a recomputation from the movements')
  })
}
