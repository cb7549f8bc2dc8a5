// HTTP/1.1 pipelining through the request-serialising front (HTTP_PIPELINING=serialize, src/pipelining): requests
// written back to back on one connection, those that wait for the database included, are answered in order
// with their own bodies, whether they arrive in one write or in pieces cut anywhere. The first request of a
// pipeline is held on a table another session has locked until every byte is written, so the later requests
// certainly arrive while it waits: uWS alone closes the connection there, unanswered (docs/decisions.md, HTTP).
import mysql from 'mysql2/promise'
import t from 'tap'
import { pipelinedExchange } from '../support/pipelined-exchange.js'
import { seededRandom } from '../../src/seed/random.js'
import { DEMO_BASIC, REFERENCE_ROOT, startTestService } from '../support/test-service.js'

const service = await startTestService('http_pipelining', { data: 'demo', pipelining: 'serialize' })
t.teardown(() => service.close())

const [rows] = await service.database.pool.query('SELECT Ref_Key, Code FROM c_Products ORDER BY Code LIMIT 4')
const products = rows as { Ref_Key: string; Code: string }[]

const auth = `Authorization: ${DEMO_BASIC}\r\n`
const getByKey = (key: string) => `GET ${REFERENCE_ROOT}Catalog_Products(${key}) HTTP/1.1\r\nHost: x\r\n${auth}\r\n`
const postItem = (code: string) => {
  const body = JSON.stringify({ Code: code, Description: `Pipelined ${code}`, Unit: 'pcs' })
  return `POST ${REFERENCE_ROOT}Catalog_Products HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}
/** The same create with a chunked body: cut into pieces of `size` bytes, with a chunk extension and a trailer. */
const postItemChunked = (code: string, size: number) => {
  const body = Buffer.from(JSON.stringify({ Code: code, Description: `Chunked ${code}`, Unit: 'pcs' }))
  let chunks = ''
  for (let at = 0; at < body.length; at += size) {
    const piece = body.subarray(at, at + size)
    chunks += `${piece.length.toString(16)}${at === 0 ? ';note=first' : ''}\r\n${piece.toString('latin1')}\r\n`
  }
  return `POST ${REFERENCE_ROOT}Catalog_Products HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n${chunks}0\r\nX-Trailer: yes\r\n\r\n`
}

/** Another session holds the catalog's table locked for writing: every request that reads or writes it waits. */
async function lockProducts(): Promise<() => Promise<void>> {
  const { host, port, user, password, database } = service.database.address
  const connection = await mysql.createConnection({ host, port, user, password, database })
  await connection.query('LOCK TABLES c_Products WRITE')
  let released = false
  return async () => {
    if (released) return
    released = true
    await connection.query('UNLOCK TABLES')
    await connection.end()
  }
}

/** Offsets where each request begins, after the first: the pipeline cut into one write per request. */
function boundaries(requests: readonly string[]): number[] {
  const cuts: number[] = []
  let at = 0
  for (const request of requests.slice(0, -1)) cuts.push((at += Buffer.byteLength(request)))
  return cuts
}

for (const [label, cutsOf] of [
  ['one write', () => []],
  ['one write per request', boundaries],
] as const) {
  t.test(`GETs by key that wait for the database, ${label}: every answer, in order`, async (t) => {
    const order = [products[2]!, products[0]!, products[3]!, products[1]!]
    const requests = order.map((product) => getByKey(product.Ref_Key))
    const release = await lockProducts()
    t.teardown(release)
    const result = await pipelinedExchange(service.port, requests, { cuts: cutsOf(requests), gapMs: 20, afterWrites: () => void release() })
    t.equal(result.closed, false, 'the connection stays open')
    t.same(
      result.answers.map((answer) => answer.status),
      [200, 200, 200, 200],
    )
    t.same(
      result.answers.map((answer) => JSON.parse(answer.body).Code),
      order.map((product) => product.Code),
      'each answer is its own request’s entity',
    )
  })

  t.test(`POSTs that write, ${label}: answered in order, and in the database`, async (t) => {
    const codes = ['PL1', 'PL2', 'PL3'].map((code) => `${code}${label.length}`)
    const requests = [postItem(codes[0]!), postItemChunked(codes[1]!, 7), postItem(codes[2]!)]
    const release = await lockProducts()
    t.teardown(release)
    const result = await pipelinedExchange(service.port, requests, { cuts: cutsOf(requests), gapMs: 20, afterWrites: () => void release() })
    t.equal(result.closed, false)
    t.same(
      result.answers.map((answer) => answer.status),
      [201, 201, 201],
    )
    t.same(
      result.answers.map((answer) => JSON.parse(answer.body).Code),
      codes,
    )
    const [written] = await service.database.pool.query('SELECT Code, Description FROM c_Products WHERE Code IN (?) ORDER BY Code', [codes])
    t.same(written, [
      { Code: codes[0], Description: `Pipelined ${codes[0]}` },
      { Code: codes[1], Description: `Chunked ${codes[1]}` },
      { Code: codes[2], Description: `Pipelined ${codes[2]}` },
    ])
  })
}

t.test('pipelines cut at seeded random offsets: heads, chunk-size lines and CRLFs split across packets', async (t) => {
  const random = seededRandom(0x919e)
  const failures: string[] = []
  for (let round = 0; round < 12; round++) {
    const code = `CUT${String(round).padStart(3, '0')}`
    const requests = [
      getByKey(products[round % 4]!.Ref_Key),
      postItemChunked(code, 1 + Math.floor(random() * 12)),
      `GET ${REFERENCE_ROOT}Catalog_Products?$filter=Code eq '${code}'&$select=Code HTTP/1.1\r\nHost: x\r\n${auth}\r\n`.replace(
        / eq /g,
        '%20eq%20',
      ),
      `DELETE ${REFERENCE_ROOT}Catalog_Products?x HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
      getByKey(products[(round + 1) % 4]!.Ref_Key),
      // Last: after a HEAD answer uWS closes its connection at the next request, front or not.
      `HEAD ${REFERENCE_ROOT}Catalog_Products(${products[1]!.Ref_Key}) HTTP/1.1\r\nHost: x\r\n${auth}\r\n`,
    ]
    const total = requests.reduce((sum, request) => sum + Buffer.byteLength(request), 0)
    const cuts = Array.from({ length: 3 + Math.floor(random() * 12) }, () => 1 + Math.floor(random() * (total - 1)))
    const result = await pipelinedExchange(service.port, requests, { cuts, gapMs: 2, heads: [false, false, false, false, false, true] })
    const statuses = result.answers.map((answer) => answer.status)
    const bodies = result.answers.map((answer) => (answer.body === '' ? undefined : JSON.parse(answer.body)))
    const expected = [200, 201, 200, 405, 200, 200]
    if (JSON.stringify(statuses) !== JSON.stringify(expected) || result.closed) {
      failures.push(
        `#${round} cuts ${JSON.stringify(cuts)}: ${JSON.stringify(statuses)}${result.closed ? ' (closed)' : ''} ${result.leftover}`,
      )
      continue
    }
    if (bodies[0].Code !== products[round % 4]!.Code) failures.push(`#${round}: the first answer is not its entity`)
    if (bodies[1].Code !== code) failures.push(`#${round}: the create answered ${bodies[1].Code}`)
    if (JSON.stringify(bodies[2].value) !== JSON.stringify([{ Code: code }]))
      failures.push(`#${round}: the read-back found ${JSON.stringify(bodies[2])}`)
    if (bodies[4].Code !== products[(round + 1) % 4]!.Code) failures.push(`#${round}: the fifth answer is not its entity`)
    if (bodies[5] !== undefined || result.answers[5]!.headers.get('content-length') === undefined)
      failures.push(`#${round}: HEAD has a body or no length`)
  }
  t.same(failures, [])
})

t.test('a request pipelined after a 413 is not answered, and the connection closes', async (t) => {
  const declared = 11 * 1024 * 1024
  const tooLarge = Buffer.concat([
    Buffer.from(
      `POST ${REFERENCE_ROOT}Catalog_Products HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nContent-Length: ${declared}\r\n\r\n`,
    ),
    Buffer.alloc(declared, 0x20),
  ])
  const result = await pipelinedExchange(service.port, [tooLarge, getByKey(products[0]!.Ref_Key)])
  t.same(
    result.answers.map((answer) => answer.status),
    [413],
  )
  t.equal(JSON.parse(result.answers[0]!.body).error.code, 'PayloadTooLarge')
  t.equal(result.closed, true, 'closed after the 413')

  // A chunked body has no length to refuse up front: it is refused once it passes the limit.
  const chunk = Buffer.alloc(1024 * 1024, 0x20)
  const chunked = [Buffer.from(`POST ${REFERENCE_ROOT}Catalog_Products HTTP/1.1\r\nHost: x\r\n${auth}Transfer-Encoding: chunked\r\n\r\n`)]
  for (let i = 0; i < 11; i++) chunked.push(Buffer.from(`${chunk.length.toString(16)}\r\n`), chunk, Buffer.from('\r\n'))
  chunked.push(Buffer.from('0\r\n\r\n'))
  const refused = await pipelinedExchange(service.port, [Buffer.concat(chunked), getByKey(products[0]!.Ref_Key)])
  t.same(
    refused.answers.map((answer) => answer.status),
    [413],
  )
  t.equal(refused.closed, true)
})

t.test('a request head over the bound is refused with 431, and the connection closes', async (t) => {
  const huge = `GET ${REFERENCE_ROOT}Catalog_Products HTTP/1.1\r\nHost: x\r\n${auth}X-Filler: ${'a'.repeat(70 * 1024)}\r\n\r\n`
  const result = await pipelinedExchange(service.port, [getByKey(products[0]!.Ref_Key), huge, getByKey(products[1]!.Ref_Key)])
  t.same(
    result.answers.map((answer) => answer.status),
    [200, 431],
    'the request before it is answered; the one after it is not',
  )
  t.equal(JSON.parse(result.answers[1]!.body).error.code, 'HeaderTooLarge')
  t.equal(result.closed, true)

  // A head that never ends is refused once it passes the bound, without waiting for its end.
  // (Two requests expected of one: the exchange then waits for the connection to close.)
  const endless = await pipelinedExchange(service.port, [`GET / HTTP/1.1\r\nX-Filler: ${'b'.repeat(70 * 1024)}`, ''])
  t.same(
    endless.answers.map((answer) => answer.status),
    [431],
  )
  t.equal(endless.closed, true)
})

t.test('Expect: 100-continue: the interim answer reaches the client, then the final one', async (t) => {
  const body = JSON.stringify({ Code: 'EXPECT1', Description: 'Expected', Unit: 'pcs' })
  const head = `POST ${REFERENCE_ROOT}Catalog_Products HTTP/1.1\r\nHost: x\r\n${auth}Content-Type: application/json\r\nExpect: 100-continue\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`
  const net = await import('node:net')
  const text = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(service.port, '127.0.0.1', () => socket.write(head))
    let received = ''
    socket.on('data', (chunk: Buffer) => {
      const before = received
      received += chunk.toString('latin1')
      if (!before.includes('100 Continue') && received.includes('100 Continue')) socket.write(body)
      if (/\r\n\r\n\{.*\}$/s.test(received.slice(received.indexOf('HTTP/1.1 201')))) socket.end()
    })
    socket.on('error', reject)
    socket.on('close', () => resolve(received))
  })
  t.match(text, /^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 201 /)
  t.match(text, /"Code":"EXPECT1"/)
})

t.test('the client’s address reaches the service from the front, never from the client', async (t) => {
  // /metrics answers the loopback interface only (no METRICS_TOKEN): a client that claims another address
  // in X-Forwarded-For is still the loopback client it is, and the claim is not what the service reads.
  const spoofed = await pipelinedExchange(service.port, [
    'GET /metrics HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.9\r\n\r\n',
    'GET /metrics HTTP/1.1\r\nHost: x\r\nX-Forwarded-For: 203.0.113.9\r\nX-Forwarded-For: 198.51.100.1\r\n\r\n',
  ])
  t.same(
    spoofed.answers.map((answer) => answer.status),
    [200, 200],
  )
  t.match(spoofed.answers[0]!.body, /odata_requests_total/)

  // A name spaced off its colon, or a line folded onto it, is not passed on either, whatever uWS would make of it.
  for (const line of ['X-Forwarded-For : 203.0.113.9', 'x-forwarded-for:203.0.113.9', 'X-Other: a\r\n X-Forwarded-For: 203.0.113.9']) {
    const odd = await pipelinedExchange(service.port, [`GET /metrics HTTP/1.1\r\nHost: x\r\n${line}\r\n\r\n`, ''], { deadlineMs: 3000 })
    t.not(odd.answers[0]?.status, 403, `${JSON.stringify(line)}: never read as the client's address`)
  }
})
