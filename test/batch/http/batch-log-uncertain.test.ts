// A batch whose last change set carries its log entries (batch-log-commit.test.ts) and whose COMMIT gets no
// answer: the connection is lost on the way, so the service cannot know whether the set and its entries were
// committed (src/batch/batch-log.ts). It looks the batch id up on another
// connection and writes the entries only if they are not there: never lost, never twice. A proxy between the
// service and the database cuts the connection at that COMMIT, before or after the server has it.
import t, { type Test } from 'tap'
import { startServer } from '../../../src/http/server.js'
import { loadModel } from '../../../src/model/load-model.js'
import { createServiceContext } from '../../../src/service/service-context.js'
import { migrate } from '../../../src/store/migrate.js'
import { createPool } from '../../../src/store/pool.js'
import { buildJsonBatch } from '../../../src/tools/shared/batch-body.js'
import { startCommitCuttingProxy, type CommitCut } from '../../support/commit-cutting-proxy.js'
import { createTestDatabase } from '../../support/test-database.js'
import { rawRequest, TOKEN_ROOT } from '../../support/test-service.js'

const model = loadModel('config/demo.json')
const database = await createTestDatabase('batch_log_uncertain')
await migrate(database.pool, model)
const proxy = await startCommitCuttingProxy({ host: database.address.host, port: database.address.port })
const servicePool = createPool({ ...database.address, port: proxy.port })
const server = await startServer(createServiceContext(model, servicePool), { host: '127.0.0.1', port: 0 })
t.teardown(async () => {
  server.close()
  await servicePool.end()
  await proxy.close()
  await database.drop()
})
const pool = database.pool

/** A change set of `count` warehouses, as `bench` (a profile without rate rules: no other transaction runs). */
function post(prefix: string, count = 2) {
  const built = buildJsonBatch(
    Array.from({ length: count }, (_, i) => String(i + 1)).map((n) => ({
      id: `${prefix}-${n}`,
      method: 'POST',
      url: 'Catalog_Warehouses',
      headers: { 'Content-Type': 'application/json' },
      body: { Code: `${prefix}-${n}`, Description: `cut ${prefix}` },
      atomicityGroup: 'g',
    })),
  )
  return rawRequest(server.port, 'POST', `${TOKEN_ROOT}$batch`, {
    headers: { Authorization: 'Bearer bench-token', 'Content-Type': built.contentType },
    body: built.body,
  })
}

async function warehouses(prefix: string): Promise<number> {
  const [rows] = await pool.query('SELECT COUNT(*) AS c FROM c_Warehouses WHERE Code LIKE ?', [`${prefix}-%`])
  return Number((rows as { c: number }[])[0]!.c)
}

/** The log entries of the batch whose operation `${prefix}-1` was logged: [content_id, status] in id order. */
async function batchEntries(prefix: string): Promise<[string | null, number][]> {
  const [rows] = await pool.query(
    'SELECT content_id, status FROM request_log WHERE `Пакет` IN (SELECT `Пакет` FROM request_log WHERE content_id = ?) ORDER BY id',
    [`${prefix}-1`],
  )
  return (rows as { content_id: string | null; status: number }[]).map((r) => [r.content_id, r.status])
}

interface Answered {
  readonly status: number
  readonly body?: { error?: { code?: string; message?: string } }
}

/**
 * Cut at its COMMIT, the set was applied whole or not at all, and the service cannot tell which: the answer
 * says so, to the operation the COMMIT's failure is charged to (503) and to the others (424), whichever way
 * the cut went. "Not applied" or "nothing was written" would send a client to repeat a set that may be there.
 */
function outcomeUnknownAnswered(t: Test, responses: readonly Answered[]): void {
  const [first, last] = [responses[0]!, responses[responses.length - 1]!]
  t.equal(last.status, 503)
  t.match(
    last.body?.error?.message,
    /lost during the COMMIT: whether the write was applied is unknown/,
    'the 503 says the outcome is unknown',
  )
  t.equal(first.status, 424)
  t.equal(first.body?.error?.code, 'FailedDependency')
  t.match(first.body?.error?.message, /^Outcome unknown: the COMMIT of this atomicity group lost its connection/, 'so does the 424')
}

async function cutRun(cut: CommitCut, prefix: string) {
  const cutDone = proxy.cutNextLoggedCommit(cut)
  const answer = await post(prefix)
  await cutDone
  return answer
}

t.test('committed, answer lost: the entries written with the set are found and not written again', async (t) => {
  const answer = await cutRun('after', 'UA')
  t.equal(answer.status, 200, 'the batch is answered')
  const responses = answer.json().responses as { id: string; status: number }[]
  t.ok(
    responses.some((r) => r.status >= 500),
    `the change set is reported failed: the service cannot know it committed (${JSON.stringify(responses.map((r) => r.status))})`,
  )
  t.equal(await warehouses('UA'), 2, 'the server committed the set')
  outcomeUnknownAnswered(t, answer.json().responses)
  t.same(
    await batchEntries('UA'),
    [
      [null, 200],
      ['UA-1', 201],
      ['UA-2', 201],
    ],
    'the entries committed with the set, once',
  )
})

t.test('not committed: the entries are written after, once per operation, with the failure', async (t) => {
  const answer = await cutRun('before', 'UB')
  t.equal(answer.status, 200)
  t.equal(await warehouses('UB'), 0, 'the server rolled the set back')
  outcomeUnknownAnswered(t, answer.json().responses)
  t.same(
    await batchEntries('UB'),
    [
      [null, 200],
      ['UB-1', 424],
      ['UB-2', 503],
    ],
    'one entry per operation, as the answer said: the set failed at its COMMIT, charged to its last operation',
  )
})

t.test('afterwards the service goes on over new connections', async (t) => {
  const answer = await post('UC', 1)
  t.equal(answer.status, 200)
  t.equal(answer.json().responses[0].status, 201)
  t.same(await batchEntries('UC'), [
    [null, 200],
    ['UC-1', 201],
  ])
})
