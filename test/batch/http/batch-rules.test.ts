// service.md §4.4, §7, §8 and decisions.md §7 at the HTTP level: status, error code, headers, and what
// the request log holds. (Rules about committed writes are in batch-writes.test.ts.)
import { readFileSync } from 'node:fs'
import net from 'node:net'
import t from 'tap'
import { buildJsonBatch, buildMultipartBatch, type OperationSpec } from '../../../src/tools/shared/batch-body.js'
import { startTestService, TOKEN_ROOT, DEMO_BASIC } from '../../support/test-service.js'

const service = await startTestService('batch_rules', { data: 'demo' })
t.teardown(() => service.close())
const pool = service.database.pool
const [[{ Ref_Key: productKey }]] = (await pool.query('SELECT Ref_Key FROM c_Products ORDER BY Code LIMIT 1')) as unknown as [
  [{ Ref_Key: string }],
]
const BATCH = `${TOKEN_ROOT}$batch`
const auth = { Authorization: 'Bearer demo-token' }

function postJson(operations: OperationSpec[], headers: Record<string, string> = {}, path = BATCH) {
  const built = buildJsonBatch(operations)
  return service.request('POST', path, { headers: { ...auth, 'Content-Type': built.contentType, ...headers }, body: built.body })
}
function postMultipart(
  operations: OperationSpec[],
  headers: Record<string, string> = {},
  options: Parameters<typeof buildMultipartBatch>[1] = {},
) {
  const built = buildMultipartBatch(operations, options)
  return service.request('POST', BATCH, { headers: { ...auth, 'Content-Type': built.contentType, ...headers }, body: built.body })
}
const read = (id?: string): OperationSpec => ({ method: 'GET', url: `Catalog_Products(${productKey})?$select=Code`, ...(id ? { id } : {}) })

/** The parts of a multipart response: status and Content-ID of each application/http part, in order. */
function multipartStatuses(contentType: string | undefined, body: string): { status: number; contentId: string | undefined }[] {
  const boundary = /boundary=([^;]+)/.exec(contentType ?? '')?.[1]
  if (!boundary) return []
  const parts: { status: number; contentId: string | undefined }[] = []
  for (const match of body.matchAll(/(?:Content-ID: ([^\r\n]+)\r\n)?\r\nHTTP\/1\.1 (\d{3})/g))
    parts.push({ status: Number(match[2]), contentId: match[1] })
  return parts
}

t.test('method, flavour, media type, version', async (t) => {
  const get = await service.request('GET', BATCH, { headers: auth })
  t.equal(get.status, 405)
  t.equal(get.headers.allow, 'POST, OPTIONS')
  t.equal(get.json().error.code, 'MethodNotAllowed')
  const reference = await service.request('POST', '/odata/standard.odata/v4/$batch', {
    headers: { Authorization: DEMO_BASIC, 'Content-Type': 'application/json' },
    body: '{"requests":[]}',
  })
  t.equal(reference.status, 501)
  t.equal(reference.json().error.code, 'BatchNotSupported')
  const text = await service.request('POST', BATCH, { headers: { ...auth, 'Content-Type': 'text/plain' }, body: 'GET x' })
  t.equal(text.status, 415)
  t.equal(text.json().error.code, 'UnsupportedMediaType')
  const old = await postJson([read('1')], { 'OData-MaxVersion': '4.0' })
  t.equal(old.status, 400)
  t.equal(old.json().error.code, 'BatchVersionTooLow')
  t.equal((await postJson([read('1')], { 'OData-MaxVersion': '4.01' })).status, 200)
  t.equal((await postJson([read('1')])).status, 200, 'no OData-MaxVersion is accepted')
  t.equal((await postJson([read('1')], {}, `/api/t/demo-token/v4/$batch`)).status, 200, 'token in the path')
  const reader = await postJson([read('1')], { Authorization: 'Bearer nobody' })
  t.equal(reader.status, 401)
})

t.test('corrupt or empty bodies are 400 BatchMalformed', async (t) => {
  const cases: [string, string][] = [
    ['application/json', '{"requests":'],
    ['application/json', '{"requests":[]}'],
    ['application/json', '{"requests":[{"method":"GET"}]}'],
    ['application/json', '[1,2,3]'],
    ['multipart/mixed; boundary=b', '--b\r\nContent-Type: application/http\r\n\r\nGET Catalog_Products HTTP/1.1\r\n\r\n'],
    ['multipart/mixed; boundary=b', '--b--\r\n'],
    ['multipart/mixed; boundary=b', 'no delimiter at all'],
    ['multipart/mixed; boundary=b', '--b\r\nContent-Type: application/http\r\n\r\nNOT A REQUEST LINE\r\n--b--\r\n'],
  ]
  for (const [contentType, body] of cases) {
    const response = await service.request('POST', BATCH, { headers: { ...auth, 'Content-Type': contentType }, body })
    t.equal(response.status, 400, `${contentType}: ${body.slice(0, 40)}`)
    t.equal(response.json().error.code, 'BatchMalformed')
  }
  const missingBoundary = await service.request('POST', BATCH, { headers: { ...auth, 'Content-Type': 'multipart/mixed' }, body: 'x' })
  t.equal(missingBoundary.status, 400)
})

t.test('operation limits: the setting, the profile, the actual figure', async (t) => {
  const many = Array.from({ length: 150 }, () => read())
  const json = await postJson(many)
  t.equal(json.status, 400)
  t.equal(json.json().error.code, 'TooManyOperations')
  t.match(json.json().error.message, /150/)
  const multipart = await postMultipart(many)
  t.equal(multipart.status, 400)
  t.match(multipart.json().error.message, /150 operations/)
  const reader = await postJson(
    Array.from({ length: 21 }, () => read()),
    { Authorization: 'Bearer reader-token' },
  )
  t.equal(reader.status, 400, 'the readonly profile allows 20')
  t.match(reader.json().error.message, /21/)
  t.equal(
    (
      await postJson(
        Array.from({ length: 20 }, () => read()),
        { Authorization: 'Bearer reader-token' },
      )
    ).status,
    200,
  )
})

t.test('size: 413 by Content-Length before reading, and by the running count', async (t) => {
  const declared = await new Promise<string>((resolve, reject) => {
    const socket = net.connect(service.port, '127.0.0.1', () => {
      socket.write(
        `POST ${BATCH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer demo-token\r\nContent-Type: application/json\r\nContent-Length: ${11 * 1_048_576}\r\n\r\n`,
      )
    })
    let text = ''
    socket.on('data', (chunk) => (text += chunk.toString()))
    socket.on('close', () => resolve(text))
    socket.on('error', reject)
  })
  t.match(declared, /^HTTP\/1\.1 413/, 'answered without a body byte sent')
  t.match(declared, /BatchTooLarge/)

  // A 1 GB chunked upload: refused after at most the limit plus a chunk has been read, memory kept small.
  const limit = 10 * 1_048_576
  // Each chunk (size line, data, CRLF) goes out in one write, as HTTP client libraries send them: the
  // uWS build in use mis-parses a chunk-size line that arrives apart from its data (uWebSockets.js #879).
  const chunk = Buffer.concat([Buffer.from(`${(64 * 1024).toString(16)}\r\n`), Buffer.alloc(64 * 1024, 0x61), Buffer.from('\r\n')])
  const before = process.memoryUsage()
  const outcome = await new Promise<{ sent: number; accepted: number; response: string }>((resolve) => {
    let sent = 0
    let accepted = 0
    let response = ''
    let finished = false
    const finish = () => {
      if (finished) return
      finished = true
      socket.destroy()
      resolve({ sent, accepted, response })
    }
    const socket = net.connect(service.port, '127.0.0.1', () => {
      socket.write(
        `POST ${BATCH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer demo-token\r\nContent-Type: multipart/mixed; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n`,
      )
      const pump = () => {
        while (!finished && sent < 1024 * 1_048_576) {
          sent += 64 * 1024
          if (!socket.write(chunk)) return void socket.once('drain', pump)
        }
      }
      pump()
    })
    socket.on('data', (data) => {
      response += data.toString()
      // What the client's kernel took from it so far: written, less what still waits in the socket's own buffer.
      accepted = sent - socket.writableLength
      if (response.includes('BatchTooLarge')) finish()
    })
    socket.on('close', finish)
    socket.on('error', finish)
  })
  const after = process.memoryUsage()
  t.match(outcome.response, /^HTTP\/1\.1 413/, 'the client reads a whole 413')
  t.ok(
    outcome.sent < 1024 * 1_048_576,
    `the client could stop long before 1 GB (${(outcome.sent / 1_048_576).toFixed(1)} MB written, most still in socket buffers)`,
  )
  // Seen from the client: the server read the limit plus at most one chunk when it can have taken no
  // more than that plus what the two kernels buffer (its receive buffer, the client's send buffer).
  const maximum = (file: string) => Number(readFileSync(file, 'utf8').trim().split(/\s+/)[2])
  const buffered = maximum('/proc/sys/net/ipv4/tcp_rmem') + maximum('/proc/sys/net/ipv4/tcp_wmem')
  t.ok(outcome.accepted > limit, `the client got ${outcome.accepted} bytes past its own buffer before the 413: over the limit`)
  t.ok(
    outcome.accepted <= limit + 1_048_576 + buffered,
    `the server took ${outcome.accepted} bytes: at most the limit plus one chunk plus ${buffered} bytes of socket buffers`,
  )
  // `external` holds the array buffers (the chunks copied into the intake).
  const growth = after.heapUsed + after.external - before.heapUsed - before.external
  t.ok(growth < 32 * 1_048_576, `memory growth ${(growth / 1_048_576).toFixed(1)} MB`)
})

t.test('structure: GET in a change set, unsafe URLs, references, duplicate ids', async (t) => {
  const getInSet = await postMultipart([
    { method: 'DELETE', url: `Catalog_Products(${productKey})`, atomicityGroup: 'g' },
    { method: 'GET', url: 'Catalog_Products', atomicityGroup: 'g', id: '2' },
  ])
  t.equal(getInSet.status, 400)
  t.equal(getInSet.json().error.code, 'GetInChangeSet')
  const getInGroup = await postJson([{ method: 'GET', url: 'Catalog_Products', atomicityGroup: 'g', id: '1' }])
  t.equal(getInGroup.json().error.code, 'GetInChangeSet')

  const duplicate = await postJson([read('a'), read('a')])
  t.equal(duplicate.status, 400)
  t.equal(duplicate.json().error.code, 'DuplicateOperationId')

  const unsafe = [
    '../Catalog_Products',
    './Catalog_Products',
    '%2e%2e/Catalog_Products',
    '%2E%2E/Catalog_Products',
    '.%2e/Catalog_Products',
    'Catalog_Products/%2E/x',
    'http://elsewhere.example/api/v4/Catalog_Products',
    '/odata/standard.odata/v4/Catalog_Products',
    `http://127.0.0.1:${service.port}/odata/standard.odata/v4/Catalog_Products`,
    'ftp://127.0.0.1/api/v4/Catalog_Products',
  ]
  const response = await postJson(
    unsafe.map((url, i) => ({ id: String(i), method: 'GET', url })),
    { Prefer: 'odata.continue-on-error' },
  )
  t.equal(response.status, 200)
  const items = response.json().responses
  t.equal(items.length, unsafe.length)
  for (const [i, item] of items.entries()) {
    t.equal(item.status, 400, unsafe[i]!)
    t.equal(item.body.error.code, 'UnsafeOperationUrl', unsafe[i]!)
  }

  const forms = await postJson(
    [
      { id: 'relative', method: 'GET', url: `Catalog_Products(${productKey})` },
      { id: 'leading-slash', method: 'GET', url: `/Catalog_Products(${productKey})` },
      { id: 'host-root', method: 'GET', url: `/api/v4/Catalog_Products(${productKey})` },
      { id: 'absolute', method: 'GET', url: `http://127.0.0.1:${service.port}/api/v4/Catalog_Products(${productKey})` },
      { id: 'encoded-option', method: 'GET', url: `Catalog_Products(${productKey})?%24select=Code` },
    ],
    {},
  )
  t.same(
    forms.json().responses.map((r: { status: number }) => r.status),
    [200, 200, 200, 200, 200],
    'every accepted URL form',
  )
  t.same(
    Object.keys(forms.json().responses[4].body).filter((k) => !k.startsWith('@')),
    ['Code'],
  )

  const outOfScope = await postMultipart([read(), { method: 'GET', url: '$1', id: '2' }])
  t.equal(outOfScope.status, 200)
  const statuses = multipartStatuses(outOfScope.headers['content-type'], outOfScope.text)
  t.equal(statuses[1]?.status, 400)
  t.match(outOfScope.text, /ReferenceOutOfScope/)
  const jsonScope = await postJson([read('1'), { id: '2', method: 'PATCH', url: '$1', body: {}, atomicityGroup: 'g' }], {
    Prefer: 'continue-on-error',
  })
  t.equal(jsonScope.json().responses[1].body.error.code, 'ReferenceOutOfScope', 'another group, no dependsOn')
  const unknownDependency = await postJson([read('1'), { ...read('2'), dependsOn: ['nothing'] }], { Prefer: 'continue-on-error' })
  t.equal(unknownDependency.json().responses[1].body.error.code, 'ReferenceOutOfScope')
})

t.test('errors outside change sets: stop, or continue on request', async (t) => {
  const missing = { method: 'GET', url: 'Catalog_Nothing' }
  const stop = await postJson([read('1'), { ...missing, id: '2' }, read('3')])
  t.same(
    stop.json().responses.map((r: { id: string; status: number }) => [r.id, r.status]),
    [
      ['1', 200],
      ['2', 404],
    ],
    'stops at the first error',
  )
  t.equal(stop.headers['preference-applied'], undefined)
  for (const prefer of ['odata.continue-on-error', 'continue-on-error', 'continue-on-error=true']) {
    const go = await postJson([read('1'), { ...missing, id: '2' }, read('3')], { Prefer: prefer })
    t.same(
      go.json().responses.map((r: { status: number }) => r.status),
      [200, 404, 200],
      prefer,
    )
    t.equal(go.headers['preference-applied'], prefer, 'echoes the spelling sent')
  }
  const off = await postJson([read('1'), { ...missing, id: '2' }, read('3')], { Prefer: 'continue-on-error=false' })
  t.equal(off.json().responses.length, 2)
  const multipartStop = await postMultipart([read('1'), { ...missing, id: '2' }, read('3')])
  t.same(
    multipartStatuses(multipartStop.headers['content-type'], multipartStop.text).map((p) => p.status),
    [200, 404],
  )
})

t.test('what real clients send', async (t) => {
  const lf = await postMultipart([read('1'), read('2')], {}, { lineEnding: '\n' })
  t.same(multipartStatuses(lf.headers['content-type'], lf.text), [
    { status: 200, contentId: '1' },
    { status: 200, contentId: '2' },
  ])
  const inner = await postMultipart([read('x1')], {}, { contentIdPlacement: 'request' })
  t.same(
    multipartStatuses(inner.headers['content-type'], inner.text),
    [{ status: 200, contentId: 'x1' }],
    'Content-ID inside the embedded request',
  )
  const accept = await postMultipart([read('1')], { Accept: 'application/json' })
  t.match(accept.headers['content-type'], /^multipart\/mixed; boundary=batchresponse_/, 'multipart in, multipart out, whatever Accept says')
  const lower = await service.request('POST', BATCH, {
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: JSON.stringify({ requests: [{ id: 'a', method: 'get', url: `Catalog_Products(${productKey})` }] }),
  })
  t.equal(lower.json().responses[0].status, 200, 'lower-case methods')
  const operationToken = await postJson([
    { id: '1', method: 'GET', url: `Catalog_Products(${productKey})?token=bogus`, headers: { Authorization: 'Bearer bogus' } },
  ])
  t.equal(operationToken.json().responses[0].status, 200, "an operation's own credentials are ignored")
  const metadata = await postJson([
    { id: 'm', method: 'GET', url: '$metadata' },
    { id: 's', method: 'GET', url: '/api/v4/' },
  ])
  t.match(metadata.json().responses[0].body, /^<\?xml/, '$metadata inside a JSON batch is a string body')
  t.ok(Array.isArray(metadata.json().responses[1].body.value), 'the service document')
})

t.test('rate rules: the whole batch is refused with Retry-After, and still spends its operations', async (t) => {
  // The readonly profile allows 600 operations a minute; this subject's counters start at zero here.
  const [[{ windowStart }]] = (await pool.query('SELECT FLOOR(UNIX_TIMESTAMP() / 60) * 60 AS windowStart')) as unknown as [
    [{ windowStart: number }],
  ]
  await pool.query("DELETE FROM _rate_counters WHERE subject = 'reader'")
  await pool.query("INSERT INTO _rate_counters (subject, rule_index, window_start, operations) VALUES ('reader', 0, ?, 590)", [windowStart])
  const refused = await postJson(
    Array.from({ length: 20 }, () => read()),
    { Authorization: 'Bearer reader-token' },
  )
  if (refused.status === 200) {
    t.comment('the minute turned over during the test; the window was fresh')
    return
  }
  t.equal(refused.status, 429)
  t.equal(refused.json().error.code, 'RateLimited')
  const retryAfter = Number(refused.headers['retry-after'])
  t.ok(retryAfter >= 1 && retryAfter <= 60, `Retry-After ${retryAfter}`)
  const [[{ operations }]] = (await pool.query("SELECT operations FROM _rate_counters WHERE subject = 'reader' AND window_start = ?", [
    windowStart,
  ])) as unknown as [[{ operations: number }]]
  t.equal(Number(operations), 610, 'the refused batch spent its 20 operations')
  const [logged] = await pool.query(
    "SELECT method, status, error_code, operations, CHAR_LENGTH(`Пакет`) AS batch_id_length FROM request_log WHERE subject = 'reader' AND status = 429",
  )
  t.same(
    logged,
    [{ method: 'POST', status: 429, error_code: 'RateLimited', operations: 20, batch_id_length: 36 }],
    'the refused batch is in the request log with its 429, under a batch id like any $batch entry',
  )
})

t.test('the request log: one batch id for the batch and its operations, no tokens', async (t) => {
  await pool.query('DELETE FROM request_log')
  const response = await postJson([read('1'), read('2')], {}, `/api/t/demo-token/v4/$batch?token=demo-token`)
  t.equal(response.status, 200)
  const [rows] = await pool.query('SELECT method, url, status, operations, content_id, `Пакет` AS batch FROM request_log ORDER BY id')
  const entries = rows as {
    method: string
    url: string
    status: number
    operations: number | null
    content_id: string | null
    batch: string
  }[]
  t.equal(entries.length, 3)
  t.equal(entries[0]!.operations, 2)
  t.same(
    entries.map((e) => e.content_id),
    [null, '1', '2'],
  )
  t.equal(new Set(entries.map((e) => e.batch)).size, 1, 'one batch id')
  t.match(entries[0]!.batch, /^[0-9a-f-]{36}$/)
  for (const entry of entries) t.notMatch(entry.url, /demo-token/, 'no token in the log')
})

t.test('the request log holds no credential in any spelling', async (t) => {
  await pool.query('DELETE FROM request_log')
  const root = `http://127.0.0.1:${service.port}`
  const response = await postJson(
    [
      { id: '1', method: 'GET', url: 'Catalog_Products?%74oken=demo-token&$top=1' },
      { id: '2', method: 'GET', url: 'Catalog_Products?TOKEN=demo-token&$top=1' },
      { id: '3', method: 'GET', url: `http://demo:secret-password@127.0.0.1:${service.port}/api/v4/Catalog_Products?$top=1` },
      { id: '4', method: 'GET', url: `//reader:other-secret@127.0.0.1:${service.port}/api/v4/Catalog_Products?$top=1` },
      { id: '5', method: 'GET', url: '/api/t/demo-token/t/reader-token/v4/Catalog_Products' },
      { id: '6', method: 'GET', url: `${root}/api/t/x/..%2Ft%2Fdemo-token/v4/Catalog_Products` },
      { id: '7', method: 'GET', url: 'Catalog_Products/../%2e%2e/t/%64emo-token/v4/Catalog_Products' },
      { id: '8', method: 'GET', url: "Catalog_Products?$filter=Code eq 'd%65mo%2Dtoken'" },
    ],
    { Prefer: 'odata.continue-on-error' },
    '/api/t/demo-token/v4/$batch?%74oken=demo-token',
  )
  t.equal(response.status, 200)
  // The batch's entries share its id; single requests of earlier tests may still be flushed from the buffer.
  const [rows] = await pool.query('SELECT content_id, url FROM request_log WHERE `Пакет` IS NOT NULL ORDER BY id')
  const entries = rows as { content_id: string | null; url: string }[]
  t.equal(entries.length, 9, 'the batch and its eight operations')
  for (const { content_id, url } of entries) {
    const where = content_id ?? '$batch'
    t.notMatch(url, /demo-token|reader-token/i, `${where}: no token (${url})`)
    t.notMatch(url, /d(?:e|%65)mo(?:-|%2d)token/i, `${where}: no token percent-encoded (${url})`)
    t.notMatch(url, /secret|password/, `${where}: no password (${url})`)
  }
  t.match(entries[0]!.url, /^\/api\/t\/\*\*\*\/v4\/\$batch\?%74oken=\*\*\*$/, 'the batch URL keeps its shape')
  t.match(entries.find((e) => e.content_id === '3')!.url, /^http:\/\/\*\*\*@127\.0\.0\.1:/, 'userinfo masked, host kept')
})

t.test('a refused batch closes its connection at once, not at the idle timeout', async (t) => {
  // An idle connection opened first is the yardstick: the server closes idle connections in the order they
  // fell idle, so under the idle timeout it would close before the refused one.
  const idle = net.connect(service.port, '127.0.0.1')
  await new Promise((resolve) => idle.once('connect', resolve))
  idle.write(`GET ${BATCH} HTTP/1.1\r\nHost: x\r\n`)
  let idleClosed = false
  idle.on('close', () => (idleClosed = true))
  idle.on('error', () => undefined)
  t.teardown(() => idle.destroy())

  for (const head of [
    `POST ${BATCH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer demo-token\r\nContent-Type: application/json\r\nContent-Length: ${11 * 1_048_576}\r\n\r\n`,
    `POST ${BATCH} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer demo-token\r\nContent-Type: multipart/mixed; boundary=b\r\nTransfer-Encoding: chunked\r\n\r\n`,
  ]) {
    const chunked = head.includes('chunked')
    const outcome = await new Promise<{ response: string; endedByServer: boolean }>((resolve) => {
      let response = ''
      let endedByServer = false
      const socket = net.connect(service.port, '127.0.0.1', () => {
        socket.write(head)
        if (!chunked) return
        // Over the limit by the running count: a little more than 10 MB in chunks that carry their size lines.
        const chunk = Buffer.concat([Buffer.from(`${(64 * 1024).toString(16)}\r\n`), Buffer.alloc(64 * 1024, 0x61), Buffer.from('\r\n')])
        let sent = 0
        const pump = () => {
          while (!socket.destroyed && sent < 12 * 1_048_576) {
            sent += 64 * 1024
            if (!socket.write(chunk)) return void socket.once('drain', pump)
          }
        }
        pump()
      })
      socket.on('data', (data) => (response += data.toString()))
      // The server ended the connection: FIN (end) or, with the client still sending, a reset.
      socket.on('end', () => (endedByServer = true))
      socket.on('error', () => (endedByServer = true))
      socket.on('close', () => resolve({ response, endedByServer }))
    })
    t.match(outcome.response, /^HTTP\/1\.1 413/, `${chunked ? 'running count' : 'Content-Length'}: the client reads the 413`)
    t.equal(outcome.response.match(/\r\nConnection: close\r\n/gi)?.length, 1, 'the answer says Connection: close, once')
    t.ok(outcome.endedByServer, 'the server ended the connection')
    t.notOk(idleClosed, 'before the idle connection opened earlier was closed by the idle timeout')
  }
})
