// Streaming keeps its promises when rows are expanded (rows are prepared in batches before they are
// written): a reader that stops reading stalls the query, every row still arrives with its expansion,
// and a reader that goes away ends the statement on the server at once, not when MySQL would notice.
import net from 'node:net'
import t from 'tap'
import { streamStatistics } from '../../src/respond/stream-rows.js'
import { DEMO_BASIC, REFERENCE_ROOT, startTestService } from '../support/test-service.js'

const service = await startTestService('read_streaming_expand', { seed: true })
t.teardown(() => service.close())
const pool = service.database.pool
// About 80,000 movements (≈ 50 MB of JSON with their products and warehouses): far more than socket buffers hold.
for (let i = 0; i < 3; i++) {
  await pool.query(
    'INSERT INTO ar_Stock (Recorder, Recorder_Type, LineNumber, Period, Active, RecordType, Warehouse_Key, Product_Key, Quantity, Amount) SELECT Recorder, Recorder_Type, LineNumber + (SELECT MAX(LineNumber) FROM ar_Stock), Period, Active, RecordType, Warehouse_Key, Product_Key, Quantity, Amount FROM ar_Stock',
  )
}
const [[{ total }]] = (await pool.query('SELECT COUNT(*) AS total FROM ar_Stock')) as unknown as [[{ total: number }]]
const path = `${REFERENCE_ROOT}AccumulationRegister_Stock_RecordType?$expand=Product,Warehouse`
const requestBytes = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${DEMO_BASIC}\r\n\r\n`
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** The body of a chunked response, read by offsets (a 50 MB body must not be copied per chunk). */
function dechunk(raw: Buffer): string {
  const parts: Buffer[] = []
  let at = raw.indexOf('\r\n\r\n') + 4
  for (;;) {
    const lineEnd = raw.indexOf('\r\n', at)
    const size = parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16)
    if (size === 0) return Buffer.concat(parts).toString('utf8')
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
}

t.test('a slow reader of an expanded export holds the query, and gets every row with its product', async (t) => {
  const socket = net.connect(service.port, '127.0.0.1')
  const chunks: Buffer[] = []
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
  socket.write(requestBytes)
  await new Promise<void>((resolve) => socket.once('data', (chunk: Buffer) => (chunks.push(chunk), resolve())))
  socket.pause()
  await sleep(600)
  const stalledAt = streamStatistics.rowsPulled
  await sleep(600)
  t.equal(streamStatistics.rowsPulled, stalledAt, 'no rows are pulled while the reader does not read')
  await new Promise<void>((resolve) => {
    // The end of the chunked body; only the newest bytes are looked at (the client shares the process).
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      const tail = Buffer.concat(chunks.slice(-2)).toString('latin1')
      if (tail.endsWith('\r\n0\r\n\r\n')) resolve()
    })
    socket.resume()
  })
  socket.destroy()
  const rows = JSON.parse(dechunk(Buffer.concat(chunks))).value as { LineNumber: number; Product: { Code: string } | null; Warehouse: { Code: string } | null }[]
  t.equal(rows.length, Number(total), 'every row arrived')
  t.ok(rows.every((row) => typeof row.Product?.Code === 'string' && typeof row.Warehouse?.Code === 'string'), 'every row has its product and warehouse')
})

t.test('a reader that goes away ends the statement at once', async (t) => {
  const socket = net.connect(service.port, '127.0.0.1')
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
  socket.write(`GET ${REFERENCE_ROOT}AccumulationRegister_Stock_RecordType HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${DEMO_BASIC}\r\n\r\n`)
  await new Promise<void>((resolve) => socket.once('data', () => resolve()))
  socket.destroy()
  let running = 1
  for (let i = 0; i < 20 && running > 0; i++) {
    await sleep(100)
    const [rows] = await pool.query("SELECT COUNT(*) AS c FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO LIKE 'SELECT t0%' AND INFO NOT LIKE '%PROCESSLIST%'")
    running = Number((rows as { c: number }[])[0]!.c)
  }
  t.equal(running, 0, 'the statement is gone within two seconds')
  t.equal((await service.request('GET', `${REFERENCE_ROOT}AccumulationRegister_Stock_RecordType/$count`, { headers: { Authorization: DEMO_BASIC } })).text, String(total), 'the service goes on serving')
})
