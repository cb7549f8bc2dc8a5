// The property of change tracking (docs/change-tracking.md) on a three-node Galera cluster, as the service
// is deployed there: two service processes, each listing the nodes in another order after the same first
// node (the failover pool's rule: every process writes through the first node that answers). Writers of
// every kind (test/support/change-feed-workload.ts) write at once through both processes while a reader
// follows the delta links of several sets, each round of catch-ups through the other process than the round
// before. At the end the first snapshot with every delta applied in order equals the sets read again from
// scratch, through either process, row for row. Writing through several nodes at once is not covered: the
// low-water mark is a node's own (docs/change-tracking.md, Clusters). `make cluster-test` runs it after the
// failover tests; run alone it starts the cluster and stops it after.
import t from 'tap'
import { type ChangeFeedWorkload, changeFeedWorkload, type Send } from '../support/change-feed-workload.js'
import { DeltaMirror } from '../support/delta-mirror.js'
import { rawRequest, REFERENCE_ROOT, type TestResponse } from '../support/test-service.js'
import { dropDatabase, ensureCluster, freshDatabase, type ServiceProcess, sleep, startServiceProcess } from './cluster-support.js'

const SEED = Number(process.env.DELTA_SEED ?? 29)
const WRITERS = 4
const OPERATIONS_PER_WRITER = Number(process.env.CLUSTER_DELTA_OPERATIONS ?? 40)
const authorization = `Basic ${Buffer.from('demo:demo').toString('base64')}`

/**
 * A request as a client sends it to a cluster: a 503 (a write still conflicting after the service's own
 * retries, nothing written) is sent again after a pause, as its Retry-After asks.
 */
async function again(request: () => Promise<TestResponse>): Promise<TestResponse> {
  for (let attempt = 1; ; attempt++) {
    const response = await request()
    if (response.status !== 503 || attempt >= 20) return response
    await sleep(200)
  }
}

const sendTo =
  (process: ServiceProcess): Send =>
  (method, path, body, headers = {}) =>
    again(() =>
      rawRequest(process.port, method, path.startsWith('/') ? path : `${REFERENCE_ROOT}${path}`, {
        headers: { Authorization: authorization, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      }),
    )

const cluster = ensureCluster(3)
if (cluster.unavailable !== undefined) {
  t.plan(0, `Galera cluster tests skipped: ${cluster.unavailable}`)
} else {
  t.teardown(() => cluster.stop())

  t.test('two processes written through one node: snapshot plus every delta in order equals the final state', async (t) => {
    const database = await freshDatabase('change_feed')
    const processes = [await startServiceProcess(database, [1, 2, 3]), await startServiceProcess(database, [1, 3, 2])]
    t.teardown(async () => {
      for (const p of processes) await p.stop()
      await dropDatabase(database)
    })
    const senders = processes.map(sendTo)
    const workload: ChangeFeedWorkload = await changeFeedWorkload(SEED, senders[0]!)
    let readThrough = 0
    const fetch = (link: string, headers: Record<string, string> = {}) =>
      senders[readThrough]!(
        'GET',
        link.startsWith('http') ? `${new URL(link).pathname}${new URL(link).search}` : link.replaceAll(' ', '%20'),
        undefined,
        headers,
      )
    const mirrors = workload.tracked.map((tracked) => ({ tracked, mirror: new DeltaMirror(tracked.key, fetch) }))
    for (const { tracked, mirror } of mirrors) await mirror.start(tracked.path, { Prefer: 'odata.track-changes,odata.maxpagesize=7' })

    let writing = true
    const writers = Promise.all(
      Array.from({ length: WRITERS }, (_, i) => {
        const process = processes[i % 2]!
        const sendBatch = (contentType: string, body: Buffer) =>
          again(() => rawRequest(process.port, 'POST', '/api/t/demo-token/v4/$batch', { headers: { 'Content-Type': contentType }, body }))
        return workload.writer(i, OPERATIONS_PER_WRITER, senders[i % 2]!, sendBatch)
      }),
    ).finally(() => {
      writing = false
    })
    let rounds = 0
    // Each round of catch-ups through the other process: links one process gave are followed by the other.
    while (writing) {
      readThrough = rounds % 2
      for (const { mirror } of mirrors) await mirror.catchUp({ Prefer: 'odata.maxpagesize=5' })
      rounds++
    }
    await writers
    // Every node has applied what the others committed (Galera applies write sets in the background).
    await sleep(1000)
    for (const through of [0, 1]) {
      readThrough = through
      for (const { mirror } of mirrors) await mirror.catchUp()
    }
    t.ok(rounds > 1, `the reader followed the links ${rounds} times, through both processes, while the writers wrote`)
    for (const through of [0, 1]) {
      readThrough = through
      for (const { tracked, mirror } of mirrors) {
        const final = await mirror.readAgain(tracked.path)
        t.ok(final.size > 0 || tracked.path.startsWith('InformationRegister'), `${tracked.path}: rows to compare`)
        t.same(
          mirror.rows,
          final,
          `${tracked.path}: snapshot + deltas = the set now, read through process ${through + 1} (${final.size} rows)`,
        )
      }
    }
    for (const { tracked, mirror } of mirrors)
      for (const delta of mirror.deltas) {
        const keys = [...delta.changed, ...delta.removed].map((entry) => mirror.keyOf(entry))
        t.equal(new Set(keys).size, keys.length, `${tracked.path}: no row twice in one delta`)
      }
  })
}
