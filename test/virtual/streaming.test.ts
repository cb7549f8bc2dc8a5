// Virtual tables stream like any read (src/respond/stream-rows.ts): a reader that stops reading stalls
// the query instead of filling memory, and then gets every group.
import t from 'tap'
import { readWithStall } from '../support/streaming-reader.js'
import { REFERENCE_ROOT, growStockMovements, startTestService } from '../support/test-service.js'

const service = await startTestService('virtual_streaming', { data: 'virtual-tables' })
t.teardown(() => service.close())
const pool = service.database.pool
// The twelve movements of the fixture, doubled twelve times (≈ 49,000): by record, a group each.
await growStockMovements(pool, 49_000)
const [[{ groups }]] = (await pool.query('SELECT COUNT(*) AS groups FROM ar_Stock WHERE Active = 1')) as unknown as [[{ groups: number }]]
const path = `${REFERENCE_ROOT}AccumulationRegister_Stock/Turnovers(Periodicity='Record')`

t.test('a slow reader holds the query, not the memory, and still gets every group', async (t) => {
  const read = await readWithStall(service.port, path, 700)
  const { before, stalled, later } = read.rowsPulled
  t.equal(later, stalled, 'no rows are pulled while the reader does not read')
  t.ok(stalled - before < Number(groups), `the query stalled part-way (${stalled - before} of ${groups} groups pulled)`)
  t.match(read.head, /transfer-encoding: chunked/i, 'streamed, not buffered with a length')
  t.equal(JSON.parse(read.body).value.length, Number(groups), 'every group arrived')
})
