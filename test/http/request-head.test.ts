// Query strings up to the limits of decisions.md §8 reach the service (uWS answers a head over its bound
// itself, so the bound is raised before it loads: src/http/uws-header-limit.ts), a head past the bound is
// still refused, and the framing faults uWS lets through get the JSON error body of decisions.md §4.
import net from 'node:net'
import t from 'tap'
import { MAX_REQUEST_HEAD_BYTES } from '../../src/http/uws-header-limit.js'
import { DEMO_BASIC, REFERENCE_ROOT, startTestService } from '../support/test-service.js'

const service = await startTestService('http_request_head', { data: 'demo' })
t.teardown(() => service.close())
const headers = { Authorization: DEMO_BASIC }
const get = (path: string) => service.request('GET', `${REFERENCE_ROOT}${path}`, { headers })

/** Sends bytes as written and reads until the server closes (or a second passes). */
function exchange(text: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect(service.port, '127.0.0.1', () => socket.write(text))
    let received = ''
    socket.on('data', (chunk) => (received += chunk.toString('latin1')))
    socket.on('error', () => undefined)
    socket.on('close', () => resolve(received))
    setTimeout(() => socket.destroy(), 2000)
  })
}

const logged = async (like: string) =>
  (
    await service.database.pool.query(
      'SELECT status, error_code, CHAR_LENGTH(url) AS length FROM request_log WHERE url LIKE ? ORDER BY id',
      [like],
    )
  )[0] as { status: number; error_code: string | null; length: number }[]

t.test('a $filter of 8,000 characters, percent-encoded as two-byte UTF-8, reaches the service', async (t) => {
  const prefix = "Description eq '"
  const filter = `${prefix}${'Ж'.repeat(8000 - prefix.length - 1)}'`
  t.equal(filter.length, 8000)
  const query = `$filter=${encodeURIComponent(filter)}`
  t.ok(query.length > 40_000, 'the encoded query is ten times the old 4 KB bound')
  const response = await get(`Catalog_Products?${query}`)
  t.equal(response.status, 200)
  t.same(response.json().value, [])

  const over = await get(`Catalog_Products?$filter=${encodeURIComponent(`${filter} `)}`)
  t.equal(over.status, 400, "one character more is the service's refusal, with the figure")
  t.equal(over.json().error.code, 'ExpressionTooComplex')
  t.match(over.json().error.message, /8001/)

  // Both reached the request log whole (the log level of the demo is `all`).
  await new Promise((resolve) => setTimeout(resolve, 400))
  const rows = await logged('%Catalog_Products?$filter=Description%')
  t.same(
    rows.map((row) => row.status),
    [200, 400],
  )
  t.ok(rows[0]!.length > query.length, 'the URL is logged whole')
})

t.test('an `in` of 500 items reaches the service; 501 is refused with the figure', async (t) => {
  const codes = (count: number) => Array.from({ length: count }, (_, i) => `'${String(i).padStart(9, '0')}'`).join(',')
  const [[{ matching }]] = (await service.database.pool.query(
    `SELECT COUNT(*) AS matching FROM c_Products WHERE Code IN (${codes(500)})`,
  )) as unknown as [[{ matching: number }]]
  const response = await get(`Catalog_Products?$count=true&$top=0&$filter=${encodeURIComponent(`Code in (${codes(500)})`)}`)
  t.equal(response.status, 200)
  t.equal(response.json()['@odata.count'], Number(matching))
  const over = await get(`Catalog_Products?$filter=${encodeURIComponent(`Code in (${codes(501)})`)}`)
  t.equal(over.status, 400)
  t.equal(over.json().error.code, 'ExpressionTooComplex')
  t.match(over.json().error.message, /501/)
})

t.test('a head past the bound is still refused, by uWS, and the connection closed', async (t) => {
  const answer = await exchange(
    `GET ${REFERENCE_ROOT}Catalog_Products?$filter=${'a'.repeat(MAX_REQUEST_HEAD_BYTES)} HTTP/1.1\r\nHost: x\r\n\r\n`,
  )
  t.match(answer, /^HTTP\/1\.1 431 /)
  t.match(answer, /\r\nConnection: close\r\n/i)
})

t.test('Content-Length twice with different values: JSON 400, connection closed, logged', async (t) => {
  const request = `POST ${REFERENCE_ROOT}Catalog_Products HTTP/1.1\r\nHost: x\r\nAuthorization: ${DEMO_BASIC}\r\nContent-Type: application/json\r\nContent-Length: 2\r\nContent-Length: 40\r\n\r\n{}`
  const answer = await exchange(request)
  t.match(answer, /^HTTP\/1\.1 400 /)
  t.match(answer, /\r\nConnection: close\r\n/i)
  t.equal(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error.code, 'BadRequest')

  // Bytes after the shorter body would be a second request by one length and body by the other: never answered.
  const smuggled = await exchange(
    `${request}GET ${REFERENCE_ROOT}Catalog_Products HTTP/1.1\r\nHost: x\r\nAuthorization: ${DEMO_BASIC}\r\n\r\n`,
  )
  t.notMatch(smuggled, /HTTP\/1\.1 200/, 'the request behind it is not answered')
  t.ok((smuggled.match(/HTTP\/1\.1 /g) ?? []).length <= 1)

  const [[{ created }]] = (await service.database.pool.query(
    "SELECT COUNT(*) AS created FROM c_Products WHERE Description = ''",
  )) as unknown as [[{ created: number }]]
  t.equal(Number(created), 0, 'nothing was written')
  await new Promise((resolve) => setTimeout(resolve, 400))
  const rows = await logged(`${REFERENCE_ROOT}Catalog_Products`)
  t.ok(
    rows.some((row) => row.status === 400 && row.error_code === 'BadRequest'),
    'the refusal is logged',
  )
  t.notOk(
    rows.some((row) => row.status === 200),
    'the request behind it never ran',
  )
})

t.test('the same Content-Length given twice is one length', async (t) => {
  const answer = await exchange(
    `POST ${REFERENCE_ROOT}Catalog_Products HTTP/1.1\r\nHost: x\r\nAuthorization: ${DEMO_BASIC}\r\nContent-Type: application/json\r\nContent-Length: 4\r\nContent-Length: 4\r\nConnection: close\r\n\r\n[1]\n`,
  )
  t.match(answer, /^HTTP\/1\.1 400 /)
  t.equal(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4)).error.code, 'InvalidBody', 'the body was read and judged')
})

t.test('faults uWS answers itself keep its status (docs/decisions.md: HTTP-level errors)', async (t) => {
  const both = await exchange(
    `POST ${REFERENCE_ROOT}Catalog_Products HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n`,
  )
  t.match(both, /^HTTP\/1\.1 400 /, 'Content-Length with Transfer-Encoding')
  const chunk = await exchange(
    `POST ${REFERENCE_ROOT}Catalog_Products HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n`,
  )
  t.match(chunk, /^HTTP\/1\.1 400 /, 'a bad chunk size')
})
