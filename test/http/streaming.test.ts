// Results stream with backpressure: a reader that stops reading stalls the query instead of filling
// memory, and a reader that goes away ends the query and frees its connection.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { openReader, readWithStall, statementsLeft } from '../support/streaming-reader.js'
import { DEMO_BASIC, REFERENCE_ROOT, growStockMovements, startTestService } from '../support/test-service.js'

const service = await startTestService('http_streaming', { seed: true })
t.teardown(() => service.close())
const pool = service.database.pool
// About 80,000 movements (≈ 25 MB of JSON): far more than socket buffers hold.
const total = await growStockMovements(pool, 80_000)
const path = `${REFERENCE_ROOT}AccumulationRegister_Stock_RecordType`

t.test('a slow reader holds the query, not the memory, and still gets every row', async (t) => {
  const read = await readWithStall(service.port, path, 700)
  const { before, stalled, later } = read.rowsPulled
  t.equal(later, stalled, 'no rows are pulled while the reader does not read')
  t.ok(stalled - before < total, `the query stalled part-way (${stalled - before} of ${total} rows pulled)`)
  t.match(read.head, /transfer-encoding: chunked/i, 'streamed, not buffered with a length')
  t.equal(JSON.parse(read.body).value.length, total, 'every row arrived')
})

t.test('a reader that goes away ends the query and frees the connection', async (t) => {
  const { socket } = await openReader(service.port, path)
  await sleep(200)
  socket.destroy()
  t.equal(await statementsLeft(pool, 'SELECT%FROM `ar_Stock`%', 50), 0, 'no query left running for the departed reader')
  const after = await service.request('GET', `${REFERENCE_ROOT}AccumulationRegister_Stock_RecordType?$top=1`, { headers: { Authorization: DEMO_BASIC } })
  t.equal(after.status, 200, 'the service goes on serving')
})
