// The short slice of the cluster tests that `make test` runs (the long ones: `make cluster-test`,
// test/cluster/failover.cluster.ts): two service processes, each preferring another node of a two-node
// Galera cluster, post change sets into the same register keys at once. Certification conflicts must not
// reach a client (the service retries a change set whole), and on every node the totals equal a
// recomputation from the movements. Skipped with one line when the cluster cannot be started here.
import { blockSize } from '../../src/limits/rate-limiter.js'
import t from 'tap'
import { loadModel } from '../../src/model/load-model.js'
import { catalogKeys, dropDatabase, ensureCluster, freshDatabase, nodeState, startServiceProcess } from './cluster-support.js'
import { expectedMovement, planBatches, runClients } from './posting-clients.js'

if (process.env.CLUSTER_TESTS === 'long') {
  t.plan(0, 'covered by the long cluster tests (make cluster-test)')
} else {
  const cluster = ensureCluster(2)
  if (cluster.unavailable !== undefined) {
    t.plan(0, `Galera cluster tests skipped: ${cluster.unavailable}`)
  } else {
    t.teardown(() => cluster.stop())
    const model = loadModel('config/demo.json')
    const database = await freshDatabase('slice')
    const first = await startServiceProcess(database, [1, 2])
    const second = await startServiceProcess(database, [2, 1])
    t.teardown(async () => {
      await first.stop()
      await second.stop()
      await dropDatabase(database)
    })
    const keys = await catalogKeys(database)

    t.test('two processes on two nodes post into the same register keys', async (t) => {
      const clients = planBatches({ clients: 2, batchesPerClient: 4, documentsPerBatch: 4, rowsPerDocument: 2 })
      await runClients(keys, clients, (client) => (client === 0 ? first.port : second.port))
      const batches = clients.flat()
      t.same(
        batches
          .filter((batch) => batch.answers.length !== 1 || batch.answers[0]!.kind !== 'committed')
          .map(
            (batch) =>
              `${batch.client}/${batch.index}: ${batch.answers.map((a) => `${a.kind} ${a.statuses.join(',')} ${a.detail}`).join('; ')}`,
          ),
        [],
        'every change set committed at its first sending: conflicts were retried inside the service',
      )
      const expected = expectedMovement(batches)
      const states = [await nodeState(1, database, model), await nodeState(2, database, model)]
      for (const [index, state] of states.entries()) {
        t.equal(state.documents, expected.documents, `node ${index + 1}: every document`)
        t.equal(state.postedDocuments, expected.documents, `node ${index + 1}: every document posted`)
        t.equal(state.movements, expected.rows, `node ${index + 1}: one movement per row`)
        t.same(state.totals, state.recomputed, `node ${index + 1}: totals equal a recomputation from the movements`)
        // Each process reserves the demo rule's operations in blocks (src/limits/rate-limiter.ts): the shared
        // counter holds whole blocks, at least every operation of both processes.
        const block = blockSize({ operations: 6000, per: 60 })
        t.ok(
          state.rateOperations >= batches.length * 8 && state.rateOperations % block === 0,
          `node ${index + 1}: the rate counters hold every operation of both processes in blocks of ${block} (${state.rateOperations})`,
        )
      }
      t.equal(states[1]!.rateOperations, states[0]!.rateOperations, 'both nodes hold the same rate counters')
      t.same(states[1]!.totals, states[0]!.totals, 'both nodes hold the same totals')
      t.equal(states[1]!.batchLogEntries, states[0]!.batchLogEntries, 'both nodes hold the same request log')
    })
  }
}
