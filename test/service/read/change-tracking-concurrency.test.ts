// The property of change tracking (docs/change-tracking.md): whatever the commit order, no change is
// missed and none is shown twice. Writers of every kind — single creates, batch change sets (coalesced
// creates and posts), re-posts with other lines, unposts, deletes, record-set replacements, information
// register writes and deletes, catalog renames — run at once against the service with two worker
// processes, while a reader follows delta links of several sets. At the end the first snapshot with every
// delta applied in order equals the sets read again from scratch, row for row.
import t from 'tap'
import { changeFeedWorkload } from '../../support/change-feed-workload.js'
import { DeltaMirror } from '../../support/delta-mirror.js'
import { rawRequest, REFERENCE_ROOT, startTestService } from '../../support/test-service.js'

const SEED = Number(process.env.DELTA_SEED ?? 29)
const WRITERS = 4
const OPERATIONS_PER_WRITER = 40

const service = await startTestService('read_delta_concurrency', { process: 'child', environment: { WORKERS: '2' } })
t.teardown(() => service.close())
const authorization = `Basic ${Buffer.from('demo:demo').toString('base64')}`

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  rawRequest(service.port, method, path.startsWith('/') ? path : `${REFERENCE_ROOT}${path}`, {
    headers: { Authorization: authorization, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
const fetch = (link: string, headers: Record<string, string> = {}) =>
  send(
    'GET',
    link.startsWith('http') ? `${new URL(link).pathname}${new URL(link).search}` : link.replaceAll(' ', '%20'),
    undefined,
    headers,
  )

const workload = await changeFeedWorkload(SEED, send)
const sendBatch = (contentType: string, body: Buffer) =>
  rawRequest(service.port, 'POST', '/api/t/demo-token/v4/$batch', { headers: { 'Content-Type': contentType }, body })

t.test('snapshot plus every delta in order equals the final state, with WORKERS=2', async (t) => {
  const mirrors = workload.tracked.map((tracked) => ({ tracked, mirror: new DeltaMirror(tracked.key, fetch) }))
  for (const { tracked, mirror } of mirrors) await mirror.start(tracked.path, { Prefer: 'odata.track-changes,odata.maxpagesize=7' })
  let writing = true
  const writers = Promise.all(
    Array.from({ length: WRITERS }, (_, i) => workload.writer(i, OPERATIONS_PER_WRITER, send, sendBatch)),
  ).finally(() => {
    writing = false
  })
  let rounds = 0
  // The reader follows the links while the writers write, in pages small enough to be paged.
  while (writing) {
    for (const { mirror } of mirrors) await mirror.catchUp({ Prefer: 'odata.maxpagesize=5' })
    rounds++
  }
  await writers
  for (const { mirror } of mirrors) await mirror.catchUp()
  t.ok(rounds > 1, `the reader followed the links ${rounds} times while the writers wrote`)
  for (const { tracked, mirror } of mirrors) {
    const final = await mirror.readAgain(tracked.path)
    t.ok(final.size > 0 || tracked.path.startsWith('InformationRegister'), `${tracked.path}: rows to compare`)
    t.same(mirror.rows, final, `${tracked.path}: snapshot + deltas = the set now (${final.size} rows)`)
  }
  // Shown once: within one delta no row comes twice.
  for (const { tracked, mirror } of mirrors)
    for (const delta of mirror.deltas) {
      const keys = [...delta.changed, ...delta.removed].map((entry) => mirror.keyOf(entry))
      t.equal(new Set(keys).size, keys.length, `${tracked.path}: no row twice in one delta`)
    }
})
