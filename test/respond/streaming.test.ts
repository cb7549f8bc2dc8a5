// Results stream with backpressure: a reader that stops reading stalls the query instead of filling
// memory, and a reader that goes away ends the query and frees its connection, whenever it goes.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { ProcessWatcher, openReader, readWithStall, rowsArrived, send, stillThere } from '../support/streaming-reader.js'
import { DEMO_BASIC, REFERENCE_ROOT, TOKEN_ROOT, growStockMovements, startTestService } from '../support/test-service.js'

const service = await startTestService('http_streaming', { data: 'demo' })
const watcher = await ProcessWatcher.open(service.database.address)
type Subtest = Parameters<Parameters<typeof t.test>[0]>[0]
t.teardown(async () => {
  await watcher.close()
  await service.close()
})
const pool = service.database.pool
// About 80,000 movements (≈ 25 MB of JSON): far more than socket buffers hold.
const total = await growStockMovements(pool, 80_000)
const path = `${REFERENCE_ROOT}AccumulationRegister_Stock_RecordType`
const STATEMENT = 'SELECT%FROM `ar_Stock`%'
// Whether a departed reader's statement was stopped shows in the rows that reached the service, not in
// how soon it is gone: once the query stream is destroyed, mysql2 reads the rest of the result and drops
// it at about a million rows a second, so an unstopped statement of 80,000 rows is gone within a tenth of
// a second too. Four times the movements make the rest far longer to read than a KILL takes to land,
// even on a busy machine.
const DEPARTED_MOVEMENTS = 320_000

/**
 * The departed reader's statement was stopped before its end (fewer rows than the table holds reached the
 * service since `before`) and its connection closed, not pooled with the rest of its result unread.
 */
async function assertStoppedAndFreed(t: Subtest, statementId: number, before: number, movements: number): Promise<void> {
  const left = await watcher.threadAfter(statementId, 2000)
  t.equal(left, undefined, `the statement's connection is closed, not pooled with the rest of its result unread${stillThere(left)}`)
  const arrived = (await rowsArrived()) - before
  t.ok(arrived < movements, `the statement was stopped, not run to its end (${arrived} of ${movements} rows reached the service)`)
}

t.test('a slow reader holds the query, not the memory, and still gets every row', async (t) => {
  const read = await readWithStall(service.port, path, 700)
  const { before, stalled, later } = read.rowsPulled
  t.equal(later, stalled, 'no rows are pulled while the reader does not read')
  t.ok(stalled - before < total, `the query stalled part-way (${stalled - before} of ${total} rows pulled)`)
  t.match(read.head, /transfer-encoding: chunked/i, 'streamed, not buffered with a length')
  t.equal(JSON.parse(read.body).value.length, total, 'every row arrived')
})

t.test('a reader that goes away ends the query and frees the connection', async (t) => {
  const movements = await growStockMovements(pool, DEPARTED_MOVEMENTS)
  const before = await rowsArrived()
  const { socket } = await openReader(service.port, path)
  await sleep(200)
  const statement = await watcher.statement(STATEMENT, 1000)
  socket.destroy()
  await assertStoppedAndFreed(t, statement.id, before, movements)
  const after = await service.request('GET', `${path}?$top=1`, { headers: { Authorization: DEMO_BASIC } })
  t.equal(after.status, 200, 'the service goes on serving')
})

t.test('a reader that goes away before its rows are asked for leaves no statement behind', async (t) => {
  await growStockMovements(pool, DEPARTED_MOVEMENTS)
  // Gone while the service counts the rows: it learns of it from `aborted`, no abort listener being
  // registered yet.
  const socket = await send(service.port, `GET ${path}?$count=true HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${DEMO_BASIC}\r\n\r\n`)
  socket.destroy()
  // A statement started for nobody stalls on its first rows and stays: any look after the count finds it.
  // The count itself may take seconds on a busy machine: it must be over before the look.
  const counting = await watcher.statementsAfter('SELECT COUNT(*) FROM `ar_Stock`%', 60_000)
  t.same(counting, [], 'the count ends')
  // A second for a statement started late to show; then its end is waited for, bounded: a stopped one
  // goes within moments even on a busy machine, one left for nobody stays for the whole window.
  await sleep(1000)
  t.same(await watcher.statementsAfter(STATEMENT, 20_000), [], 'no statement left for the departed reader')
})

t.test('a $batch client that goes away ends the query of its read and frees the connection', async (t) => {
  const movements = await growStockMovements(pool, DEPARTED_MOVEMENTS)
  const before = await rowsArrived()
  const body = JSON.stringify({ requests: [{ id: 'all', method: 'GET', url: 'AccumulationRegister_Stock_RecordType' }] })
  const socket = await send(
    service.port,
    `POST ${TOKEN_ROOT}$batch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer demo-token\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
  )
  // The operation's answer is collected whole, so its read runs unhindered: the client goes while it does.
  const statement = await watcher.statement(STATEMENT, 2000)
  socket.destroy()
  await assertStoppedAndFreed(t, statement.id, before, movements)
})
