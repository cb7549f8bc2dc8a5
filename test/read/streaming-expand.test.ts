// Streaming keeps its promises when rows are expanded (rows are prepared in batches before they are
// written): a reader that stops reading stalls the query, every row still arrives with its expansion,
// and a reader that goes away ends the statement on the server at once, not when MySQL would notice.
import t from 'tap'
import { openReader, readWithStall, statementsLeft } from '../support/streaming-reader.js'
import { DEMO_BASIC, REFERENCE_ROOT, growStockMovements, startTestService } from '../support/test-service.js'

const service = await startTestService('read_streaming_expand', { seed: true })
t.teardown(() => service.close())
const pool = service.database.pool
// About 80,000 movements (≈ 50 MB of JSON with their products and warehouses): far more than socket buffers hold.
const total = await growStockMovements(pool, 80_000)
const path = `${REFERENCE_ROOT}AccumulationRegister_Stock_RecordType?$expand=Product,Warehouse`

t.test('a slow reader of an expanded export holds the query, and gets every row with its product', async (t) => {
  const read = await readWithStall(service.port, path, 600)
  t.equal(read.rowsPulled.later, read.rowsPulled.stalled, 'no rows are pulled while the reader does not read')
  const rows = JSON.parse(read.body).value as { LineNumber: number; Product: { Code: string } | null; Warehouse: { Code: string } | null }[]
  t.equal(rows.length, total, 'every row arrived')
  t.ok(rows.every((row) => typeof row.Product?.Code === 'string' && typeof row.Warehouse?.Code === 'string'), 'every row has its product and warehouse')
})

t.test('a reader that goes away ends the statement at once', async (t) => {
  const { socket } = await openReader(service.port, `${REFERENCE_ROOT}AccumulationRegister_Stock_RecordType`)
  socket.destroy()
  t.equal(await statementsLeft(pool, 'SELECT t0%', 20), 0, 'the statement is gone within two seconds')
  t.equal((await service.request('GET', `${REFERENCE_ROOT}AccumulationRegister_Stock_RecordType/$count`, { headers: { Authorization: DEMO_BASIC } })).text, String(total), 'the service goes on serving')
})
