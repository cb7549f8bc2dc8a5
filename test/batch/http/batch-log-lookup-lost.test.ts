// A batch's log entries written after it ran, when the connection is lost twice: first at the log's INSERT
// (or at the COMMIT of the change set that carried the entries), so it is unknown whether they were written,
// then again at the look-up that tells (src/log/request-log.ts, insertOnce). A node that dies, with its
// connections going one after the other, does that. The look-up is made again on a new connection, not
// skipped and not given up: the batch is answered as it ran, never `500 LogWriteFailed`, and its entries are
// in the log once. A proxy between the service and the database cuts the statements
// (test/support/statement-cutting-proxy.ts).
import t from 'tap'
import { startServer } from '../../../src/http/server.js'
import { loadModel } from '../../../src/model/load-model.js'
import { createServiceContext } from '../../../src/service/service-context.js'
import { migrate } from '../../../src/store/migrate.js'
import { createPool } from '../../../src/store/pool.js'
import { buildJsonBatch } from '../../../src/tools/shared/batch-body.js'
import { startStatementCuttingProxy, type StatementContext } from '../../support/statement-cutting-proxy.js'
import { createTestDatabase } from '../../support/test-database.js'
import { rawRequest, TOKEN_ROOT } from '../../support/test-service.js'

const model = loadModel('config/demo.json')
const database = await createTestDatabase('batch_log_lookup_lost')
await migrate(database.pool, model)
const proxy = await startStatementCuttingProxy({ host: database.address.host, port: database.address.port })
const servicePool = createPool({ ...database.address, port: proxy.port })
const server = await startServer(createServiceContext(model, servicePool), { host: '127.0.0.1', port: 0 })
t.teardown(async () => {
  server.close()
  await servicePool.end()
  await proxy.close()
  await database.drop()
})
const pool = database.pool

/** A change set of two warehouses, as `bench` (no rate rules: no other transaction runs), then a read when `thenRead`. */
function post(prefix: string, thenRead: boolean) {
  const built = buildJsonBatch([
    ...['1', '2'].map((n) => ({
      id: `${prefix}-${n}`,
      method: 'POST',
      url: 'Catalog_Warehouses',
      headers: { 'Content-Type': 'application/json' },
      body: { Code: `${prefix}-${n}`, Description: `lost ${prefix}` },
      atomicityGroup: 'g',
    })),
    ...(thenRead ? [{ id: `${prefix}-read`, method: 'GET', url: 'Catalog_Warehouses?$top=1' }] : []),
  ])
  return rawRequest(server.port, 'POST', `${TOKEN_ROOT}$batch`, {
    headers: { Authorization: 'Bearer bench-token', 'Content-Type': built.contentType },
    body: built.body,
  })
}

async function warehouses(prefix: string): Promise<number> {
  const [rows] = await pool.query('SELECT COUNT(*) AS c FROM c_Warehouses WHERE Code LIKE ?', [`${prefix}-%`])
  return Number((rows as { c: number }[])[0]!.c)
}

/** How many times each operation of the batch whose operation `${prefix}-1` was logged is in the log. */
async function entriesPerOperation(prefix: string): Promise<Record<string, number>> {
  const [rows] = await pool.query(
    "SELECT COALESCE(content_id, '$batch') AS id, COUNT(*) AS n FROM request_log WHERE `Пакет` IN (SELECT `Пакет` FROM request_log WHERE content_id = ?) GROUP BY id ORDER BY id",
    [`${prefix}-1`],
  )
  return Object.fromEntries((rows as { id: string; n: number }[]).map((r) => [r.id, Number(r.n)]))
}

const lookUp = ({ text }: StatementContext) => /^SET SESSION wsrep_sync_wait/i.test(text)

/** Cuts `first` (its answer lost), then the look-up that follows it before the server has it. */
async function cutTwice(first: (statement: StatementContext) => boolean, send: () => ReturnType<typeof post>) {
  const cuts: string[] = []
  const second = proxy.killAt({ at: first, cut: 'after' }).then((statement) => {
    cuts.push(statement)
    return proxy.killAt({ at: lookUp, cut: 'before' }).then((statement) => cuts.push(statement))
  })
  const answer = await send()
  proxy.disarm()
  await Promise.race([second, new Promise((resolve) => setTimeout(resolve, 100))])
  return { answer, cuts }
}

t.test('the log INSERT after the batch loses its answer, the look-up its connection: looked up again, written once', async (t) => {
  const { answer, cuts } = await cutTwice(
    ({ text }) => /^INSERT INTO `request_log`/.test(text),
    () => post('LA', true),
  )
  t.equal(cuts.length, 2, `both cuts landed: ${cuts.map((c) => c.slice(0, 40)).join(' / ')}`)
  t.equal(answer.status, 200, `the batch is answered as it ran, not 500 LogWriteFailed: ${answer.text.slice(0, 200)}`)
  t.same(
    (answer.json().responses as { status: number }[]).map((r) => r.status),
    [201, 201, 200],
  )
  t.equal(await warehouses('LA'), 2, 'the change set committed')
  t.same(await entriesPerOperation('LA'), { $batch: 1, 'LA-1': 1, 'LA-2': 1, 'LA-read': 1 }, 'every entry once: the INSERT had run')
})

t.test('the COMMIT of the set carrying the entries loses its answer, the look-up its connection: no 500, entries once', async (t) => {
  const { answer, cuts } = await cutTwice(
    ({ text, transaction }) => /^COMMIT/i.test(text) && transaction.some((s) => /^INSERT INTO `request_log`/.test(s)),
    () => post('LB', false),
  )
  t.equal(cuts.length, 2, `both cuts landed: ${cuts.map((c) => c.slice(0, 40)).join(' / ')}`)
  t.equal(answer.status, 200, `the batch is answered, not 500 LogWriteFailed: ${answer.text.slice(0, 200)}`)
  t.ok(
    (answer.json().responses as { status: number }[]).some((r) => r.status === 503),
    'the change set is reported 503: the service cannot know it committed',
  )
  t.equal(await warehouses('LB'), 2, 'the server committed the set')
  t.same(await entriesPerOperation('LB'), { $batch: 1, 'LB-1': 1, 'LB-2': 1 }, 'the entries committed with the set, once')
})

t.test('afterwards the service goes on over new connections', async (t) => {
  const answer = await post('LC', false)
  t.equal(answer.status, 200)
  t.same(await entriesPerOperation('LC'), { $batch: 1, 'LC-1': 1, 'LC-2': 1 })
})
