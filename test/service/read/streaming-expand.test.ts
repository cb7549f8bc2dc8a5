// Streaming keeps its promises when rows are expanded (rows are prepared in batches before they are
// written): a reader that stops reading stalls the query, every row still arrives with its expansion,
// and a reader that goes away, or an expansion that fails, ends the statement on the server at once,
// not when MySQL would notice.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { ProcessWatcher, openReader, readWithStall, rowsArrived, stillThere } from '../../support/streaming-reader.js'
import { DEMO_BASIC, REFERENCE_ROOT, growStockMovements, startTestService } from '../../support/test-service.js'

const service = await startTestService('read_streaming_expand', { data: 'demo' })
const watcher = await ProcessWatcher.open(service.database.address)
t.teardown(async () => {
  await watcher.close()
  await service.close()
})
const pool = service.database.pool
// About 80,000 movements (≈ 50 MB of JSON with their products and warehouses): far more than socket buffers hold.
const total = await growStockMovements(pool, 80_000)
const path = `${REFERENCE_ROOT}AccumulationRegister_Stock_RecordType?$expand=Product,Warehouse`

t.test('a slow reader of an expanded export holds the query, and gets every row with its product', async (t) => {
  const read = await readWithStall(service.port, path, 600)
  t.equal(read.rowsPulled.later, read.rowsPulled.stalled, 'no rows are pulled while the reader does not read')
  t.ok(read.rowsPulled.stalled - read.rowsPulled.before < total, 'the query stalled part-way')
  const rows = JSON.parse(read.body).value as { LineNumber: number; Product: { Code: string } | null; Warehouse: { Code: string } | null }[]
  t.equal(rows.length, total, 'every row arrived')
  t.ok(
    rows.every((row) => typeof row.Product?.Code === 'string' && typeof row.Warehouse?.Code === 'string'),
    'every row has its product and warehouse',
  )
})

t.test('a reader of an expanded export that goes away ends the query and frees its connection', async (t) => {
  // An unstopped statement would be gone soon too (the service reads the rest of the result and drops it,
  // about a million rows a second): the rows that reached the service tell, once the rest is far longer
  // to read than a KILL takes to land.
  const movements = await growStockMovements(pool, 320_000)
  const before = await rowsArrived()
  const { socket } = await openReader(service.port, path)
  await sleep(200)
  const statement = await watcher.statement('SELECT%FROM `ar_Stock`%', 1000)
  socket.destroy()
  const left = await watcher.threadAfter(statement.id, 2000)
  t.equal(left, undefined, `the statement's connection is closed, not pooled with the rest of its result unread${stillThere(left)}`)
  const arrived = (await rowsArrived()) - before
  t.ok(arrived < movements, `the statement was stopped, not run to its end (${arrived} of ${movements} rows reached the service)`)
  t.equal(
    (
      await service.request('GET', `${REFERENCE_ROOT}AccumulationRegister_Stock_RecordType/$count`, {
        headers: { Authorization: DEMO_BASIC },
      })
    ).text,
    String(movements),
    'the service goes on serving',
  )
})

t.test('an expansion that fails before the answer begins ends the statement it was expanding', async (t) => {
  await pool.query('RENAME TABLE c_Products TO c_Products_away')
  try {
    const answer = await service.request('GET', `${REFERENCE_ROOT}AccumulationRegister_Stock_RecordType?$expand=Product`, {
      headers: { Authorization: DEMO_BASIC },
    })
    t.equal(answer.status, 500, 'the failure is answered')
    // The answer comes after the statement began and its first batch of rows was taken: stopped, it is
    // gone within moments; left, it stalls on its unread rows until the server's net_write_timeout.
    t.same(await watcher.statementsAfter('SELECT%FROM `ar_Stock`%', 2000), [], 'no statement left running for the failed answer')
  } finally {
    await pool.query('RENAME TABLE c_Products_away TO c_Products')
  }
})
