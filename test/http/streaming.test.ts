// Results stream with backpressure: a reader that stops reading stalls the query instead of filling
// memory, and a reader that goes away ends the query and frees its connection.
import net from 'node:net'
import t from 'tap'
import { streamStatistics } from '../../src/respond/stream-rows.js'
import { DEMO_BASIC, REFERENCE_ROOT, startTestService } from '../support/test-service.js'

const service = await startTestService('http_streaming', { seed: true })
t.teardown(() => service.close())
const pool = service.database.pool
// Grow the movements to about 80,000 rows (≈ 25 MB of JSON): far more than socket buffers hold.
for (let i = 0; i < 3; i++) {
  await pool.query(
    "INSERT INTO ar_Stock (Recorder, Recorder_Type, LineNumber, Period, Active, RecordType, Warehouse_Key, Product_Key, Quantity, Amount) SELECT Recorder, Recorder_Type, LineNumber + (SELECT MAX(LineNumber) FROM ar_Stock), Period, Active, RecordType, Warehouse_Key, Product_Key, Quantity, Amount FROM ar_Stock",
  )
}
const [[{ total }]] = (await pool.query('SELECT COUNT(*) AS total FROM ar_Stock')) as unknown as [[{ total: number }]]
const path = `${REFERENCE_ROOT}AccumulationRegister_Stock_RecordType`
const requestBytes = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${DEMO_BASIC}\r\n\r\n`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

t.test('a slow reader holds the query, not the memory, and still gets every row', async (t) => {
  const socket = net.connect(service.port, '127.0.0.1')
  const chunks: Buffer[] = []
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
  socket.write(requestBytes)
  await new Promise<void>((resolve) => socket.once('data', (chunk: Buffer) => (chunks.push(chunk), resolve())))
  socket.pause()
  const before = streamStatistics.rowsPulled
  await sleep(700)
  const stalledAt = streamStatistics.rowsPulled
  await sleep(700)
  t.equal(streamStatistics.rowsPulled, stalledAt, 'no rows are pulled while the reader does not read')
  t.ok(stalledAt - before < Number(total), `the query stalled part-way (${stalledAt - before} of ${total} rows pulled)`)
  socket.on('data', (chunk: Buffer) => chunks.push(chunk))
  socket.resume()
  await new Promise<void>((resolve) => {
    const check = () => (Buffer.concat(chunks).includes('\r\n0\r\n\r\n') ? resolve() : setTimeout(check, 20))
    check()
  })
  socket.destroy()
  const raw = Buffer.concat(chunks).toString('utf8')
  const bodyStart = raw.indexOf('\r\n\r\n') + 4
  t.match(raw.slice(0, bodyStart), /transfer-encoding: chunked/i, 'streamed, not buffered with a length')
  // Undo the chunked framing.
  let body = ''
  let at = bodyStart
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at)
    const size = parseInt(raw.slice(at, lineEnd), 16)
    if (size === 0) break
    const start = lineEnd + 2
    const bytes = Buffer.from(raw.slice(start), 'utf8').subarray(0, size).toString('utf8')
    body += bytes
    at = start + bytes.length + 2
  }
  const parsed = JSON.parse(body)
  t.equal(parsed.value.length, Number(total), 'every row arrived')
})

t.test('a reader that goes away ends the query and frees the connection', async (t) => {
  const socket = net.connect(service.port, '127.0.0.1')
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
  socket.write(requestBytes)
  await new Promise<void>((resolve) => socket.once('data', () => resolve()))
  socket.pause()
  await sleep(200)
  socket.destroy()
  let running = 1
  for (let i = 0; i < 50 && running > 0; i++) {
    await sleep(100)
    const [rows] = await pool.query("SELECT COUNT(*) AS c FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO LIKE 'SELECT%FROM `ar_Stock`%' AND INFO NOT LIKE '%PROCESSLIST%'")
    running = Number((rows as { c: number }[])[0]!.c)
  }
  t.equal(running, 0, 'no query left running for the departed reader')
  const after = await service.request('GET', `${REFERENCE_ROOT}AccumulationRegister_Stock_RecordType?$top=1`, { headers: { Authorization: DEMO_BASIC } })
  t.equal(after.status, 200, 'the service goes on serving')
})
