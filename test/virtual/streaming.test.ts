// Virtual tables stream like any read (src/respond/stream-rows.ts): a reader that stops reading stalls
// the query instead of filling memory, and then gets every group.
import net from 'node:net'
import t from 'tap'
import { streamStatistics } from '../../src/respond/stream-rows.js'
import { DEMO_BASIC, REFERENCE_ROOT } from '../support/test-service.js'
import { startVirtualService } from './support/virtual-fixture.js'

const service = await startVirtualService('virtual_streaming')
t.teardown(() => service.close())
const pool = service.database.pool
// The twelve movements of the fixture, doubled twelve times (≈ 49,000): by record, a group each.
for (let i = 0; i < 12; i++) {
  await pool.query(
    'INSERT INTO ar_Stock (Recorder, Recorder_Type, LineNumber, Period, Active, RecordType, Warehouse_Key, Product_Key, Quantity, Amount) ' +
      'SELECT Recorder, Recorder_Type, LineNumber + (SELECT MAX(LineNumber) FROM ar_Stock), Period, Active, RecordType, Warehouse_Key, Product_Key, Quantity, Amount FROM ar_Stock',
  )
}
const [[{ groups }]] = (await pool.query('SELECT COUNT(*) AS groups FROM ar_Stock WHERE Active = 1')) as unknown as [[{ groups: number }]]
const path = `${REFERENCE_ROOT}AccumulationRegister_Stock/Turnovers(Periodicity='Record')`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('a slow reader holds the query, not the memory, and still gets every group', async (t) => {
  const socket = net.connect(service.port, '127.0.0.1')
  const chunks: Buffer[] = []
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${DEMO_BASIC}\r\n\r\n`)
  await new Promise<void>((resolve) => socket.once('data', (chunk: Buffer) => (chunks.push(chunk), resolve())))
  socket.pause()
  const before = streamStatistics.rowsPulled
  await sleep(700)
  const stalledAt = streamStatistics.rowsPulled
  await sleep(700)
  t.equal(streamStatistics.rowsPulled, stalledAt, 'no rows are pulled while the reader does not read')
  t.ok(stalledAt - before < Number(groups), `the query stalled part-way (${stalledAt - before} of ${groups} groups pulled)`)
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  socket.resume()
  await new Promise<void>((resolve) => {
    const check = () => (Buffer.concat(chunks).includes('\r\n0\r\n\r\n') ? resolve() : setTimeout(check, 20))
    check()
  })
  socket.destroy()
  const raw = Buffer.concat(chunks)
  const bodyStart = raw.indexOf('\r\n\r\n') + 4
  t.match(raw.subarray(0, bodyStart).toString(), /transfer-encoding: chunked/i, 'streamed, not buffered with a length')
  // Undo the chunked framing, then count the groups.
  const parts: Buffer[] = []
  for (let at = bodyStart; ; ) {
    const lineEnd = raw.indexOf('\r\n', at)
    const size = parseInt(raw.subarray(at, lineEnd).toString(), 16)
    if (size === 0) break
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
  t.equal(JSON.parse(Buffer.concat(parts).toString('utf8')).value.length, Number(groups), 'every group arrived')
})
