// Multipart intake (OData 4.0, service.md §2.3): framing, part heads, embedded requests.

import t from 'tap'
import { buildMultipartBatch } from '../../../src/tools/shared/batch-body.js'
import { createMultipartIntake } from '../../../src/batch/intake/multipart/multipart-intake.js'
import { ingest, outcomeKey, randomSplit, summarize, summarizeOperation } from './intake-harness.js'
import { seededRandom } from '../../../src/seed/random.js'

/** Parses a body written with `\n` line ends turned into CRLF (unless `keepLineFeeds`). */
function parse(text: string, options: { boundary?: string; keepLineFeeds?: boolean } = {}) {
  const body = Buffer.from(options.keepLineFeeds === true ? text : text.replace(/\n/g, '\r\n'), 'utf8')
  return ingest(createMultipartIntake({ boundary: options.boundary ?? 'b' }), [body])
}

const GET_PART = 'Content-Type: application/http\n\nGET People HTTP/1.1\n\n'

t.test('CRLF and LF bodies give the same operations', async (t) => {
  const operations = [
    { method: 'GET', url: 'People?$top=2' },
    { method: 'POST', url: 'People', body: { Name: 'Ann' }, id: 'a', atomicityGroup: 'g' },
    { method: 'PATCH', url: '$a', body: { Name: 'Bo' }, id: 'b', atomicityGroup: 'g' },
  ]
  const crlf = buildMultipartBatch(operations, { boundary: 'batch_1', lineEnding: '\r\n' })
  const lf = buildMultipartBatch(operations, { boundary: 'batch_1', lineEnding: '\n' })
  const fromCrlf = ingest(createMultipartIntake({ boundary: 'batch_1' }), [crlf.body])
  const fromLf = ingest(createMultipartIntake({ boundary: 'batch_1' }), [lf.body])
  t.same(summarize(fromLf.document!), summarize(fromCrlf.document!))
  t.equal(
    fromCrlf.document!.operations[1].body?.kind === 'bytes' && fromCrlf.document!.operations[1].body.bytes.toString(),
    '{"Name":"Ann"}',
  )
})

t.test('preamble, transport padding and epilogue are read past (RFC 2046 §5.1.1)', async (t) => {
  const outcome = parse(`This is a preamble.\n--b  \t\n${GET_PART}\n--b--   epilogue\n--b\nnot a part\n`)
  t.equal(outcome.error, undefined)
  t.equal(outcome.document!.operations.length, 1)
  t.equal(outcome.document!.operations[0].url, 'People')
})

t.test('a body that ends right after the close delimiter, without a line break', async (t) => {
  const outcome = parse(`--b\n${GET_PART}\n--b--`, { keepLineFeeds: true })
  t.equal(outcome.document?.operations.length, 1)
})

t.test('a change set with a quoted boundary, parameters in any case and order', async (t) => {
  const outcome = parse(
    `--b\nContent-Type: Multipart/Mixed; charset=utf-8; BOUNDARY="change set:1"\n\n--change set:1\nContent-Type: application/http\nContent-ID: 1\n\nDELETE People(1) HTTP/1.1\n\n\n--change set:1--\n\n--b--\n`,
  )
  t.equal(outcome.error, undefined)
  const item = outcome.document!.items[0]
  t.equal(item.kind, 'changeSet')
  t.same(
    outcome.document!.operations.map((operation) => [operation.method, operation.url, operation.id]),
    [['DELETE', 'People(1)', '1']],
  )
})

t.test('the request line: method upper-cased, blank lines before it skipped; the HTTP version required', async (t) => {
  const outcome = parse(
    `--b\nContent-Type: application/http\n\n\n\nget People('x') HTTP/1.1\n\n\n--b\n${'Content-Type: application/http\n\nGET Products HTTP/1.0\n\n'}\n--b--\n`,
  )
  t.equal(outcome.error, undefined)
  t.same(
    outcome.document!.operations.map((operation) => `${operation.method} ${operation.url}`),
    ["GET People('x')", 'GET Products'],
  )
  // service.md §2.3 writes `<METHOD> <url> HTTP/1.1`; the line without its version was once tolerated.
  const withoutVersion = parse(
    `--b\nContent-Type: application/http\n\n\n\nget People('x') HTTP/1.1\n\n\n--b\n${'Content-Type: application/http\n\nGET Products\n\n'}\n--b--\n`,
  )
  t.match(withoutVersion.error, {
    code: 'BatchMalformed',
    status: 400,
    message: 'Part 2: the request line "GET Products" has no HTTP version ("<METHOD> <url> HTTP/1.1").',
  })
})

t.test('embedded headers: names lower-cased, values trimmed, repeated ones joined', async (t) => {
  const outcome = parse(
    `--b\nContent-Type: application/http\n\nPATCH People(1) HTTP/1.1\nIf-Match:   W/"1"  \nPrefer: return=minimal\nprefer: odata.continue-on-error\nX-Empty:\n\n{}\n--b--\n`,
  )
  const operation = outcome.document!.operations[0]
  t.same(Object.fromEntries(operation.headers), {
    'if-match': 'W/"1"',
    prefer: 'return=minimal, odata.continue-on-error',
    'x-empty': '',
  })
})

t.test('Content-ID: the MIME part header first, the embedded header as Olingo V2 sends it second', async (t) => {
  const outcome = parse(
    `--b\nContent-Type: application/http\nContent-ID: part\n\nGET A HTTP/1.1\nContent-ID: inner\n\n\n--b\nContent-Type: application/http\n\nGET B HTTP/1.1\nContent-Id: inner-only\n\n\n--b\nContent-Type: application/http\n\nGET C HTTP/1.1\n\n\n--b--\n`,
  )
  t.same(
    outcome.document!.operations.map((operation) => operation.id),
    ['part', 'inner-only', undefined],
  )
})

t.test('an embedded request whose part ends before its blank line has no body', async (t) => {
  const outcome = parse(`--b\nContent-Type: application/http\n\nGET People HTTP/1.1\nAccept: application/json\n--b--\n`)
  t.equal(outcome.error, undefined)
  t.equal(outcome.document!.operations[0].headers.get('accept'), 'application/json')
  t.equal(outcome.document!.operations[0].body, undefined)
})

t.test('bodies are kept byte for byte, whatever they hold', async (t) => {
  const binary = Buffer.from(Array.from({ length: 256 }, (_, index) => index))
  const built = buildMultipartBatch([
    { method: 'PUT', url: 'Photos(1)/$value', headers: { 'Content-Type': 'application/octet-stream' }, body: binary },
  ])
  const outcome = ingest(createMultipartIntake({ boundary: built.boundary! }), randomSplit(built.body, seededRandom(7), 30))
  const body = outcome.document!.operations[0].body
  t.ok(body?.kind === 'bytes' && body.bytes.equals(binary), 'all 256 byte values, CR and LF included')

  const tricky = parse(`--b\nContent-Type: application/http\n\nPOST Notes HTTP/1.1\n\nline --b\n-- b\n\n--b--\n`)
  t.equal(
    tricky.document!.operations[0].body?.kind === 'bytes' && tricky.document!.operations[0].body.bytes.toString(),
    'line --b\r\n-- b\r\n',
    'a boundary not at a line start is content',
  )
})

t.test('a body is copied: wiping the pushed chunks does not change the document', async (t) => {
  // ingest() wipes every chunk after the push (as a uWS ArrayBuffer is only valid during onData).
  const built = buildMultipartBatch([{ method: 'POST', url: 'A', body: { text: 'x'.repeat(5000) } }])
  const outcome = ingest(createMultipartIntake({ boundary: built.boundary! }), randomSplit(built.body, seededRandom(3), 50))
  const body = outcome.document!.operations[0].body
  t.equal(body?.kind === 'bytes' && body.bytes.toString(), JSON.stringify({ text: 'x'.repeat(5000) }))
})

t.test('many small parts cost linear time, with CRLF and with LF line ends', async (t) => {
  // A search that ran from each part to the end of its chunk (for a CR that an LF body never has)
  // would make the LF body hundreds of times slower than the CRLF one.
  const timeFor = (lineEnding: '\r\n' | '\n'): number => {
    const part = `--b${lineEnding}Content-Type: application/http${lineEnding}${lineEnding}GET P HTTP/1.1${lineEnding}${lineEnding}${lineEnding}`
    const body = Buffer.from(`${part.repeat(20_000)}--b--${lineEnding}`)
    const started = process.hrtime.bigint()
    const intake = createMultipartIntake({ boundary: 'b', limits: { maxOperations: 1_000_000 } })
    for (let offset = 0; offset < body.length; offset += 65_536) intake.push(body.subarray(offset, offset + 65_536))
    t.equal(intake.end().operations.length, 20_000)
    return Number(process.hrtime.bigint() - started) / 1e6
  }
  timeFor('\n') // warm-up
  const crlf = timeFor('\r\n')
  const lf = timeFor('\n')
  t.ok(lf < crlf * 5 + 50, `LF ${lf.toFixed(1)} ms, CRLF ${crlf.toFixed(1)} ms`)
})

t.test('generated batches of every shape round-trip through the intake at random chunkings', async (t) => {
  const random = seededRandom(2024)
  const methods = ['GET', 'POST', 'PATCH', 'PUT', 'DELETE']
  let mismatches = 0
  for (let round = 0; round < 150; round++) {
    const operations = Array.from({ length: 1 + Math.floor(random() * 12) }, (_, index) => {
      const method = methods[Math.floor(random() * methods.length)]
      const group = random() < 0.4 ? `g${Math.floor(index / 3)}` : undefined
      return {
        method,
        url: `Items(${index})?$select=A,B`,
        headers: random() < 0.5 ? { Accept: 'application/json' } : undefined,
        body: method === 'GET' || method === 'DELETE' ? undefined : { Number: index, Text: 'Ж'.repeat(Math.floor(random() * 40)) },
        id: random() < 0.7 ? `op${index}` : undefined,
        atomicityGroup: group,
      }
    })
    const built = buildMultipartBatch(operations, {
      lineEnding: random() < 0.5 ? '\r\n' : '\n',
      contentIdPlacement: random() < 0.5 ? 'part' : 'request',
    })
    const whole = ingest(createMultipartIntake({ boundary: built.boundary! }), [built.body])
    const chunked = ingest(
      createMultipartIntake({ boundary: built.boundary! }),
      randomSplit(built.body, random, 2 + Math.floor(random() * 20)),
    )
    if (outcomeKey(whole) !== outcomeKey(chunked)) mismatches++
    const document = whole.document!
    const expected = operations.map((operation) => [operation.method, operation.url, operation.id, operation.atomicityGroup !== undefined])
    const actual = document.items.flatMap((item) =>
      item.kind === 'operation'
        ? [[item.method, item.url, item.id, false]]
        : item.operations.map((operation) => [operation.method, operation.url, operation.id, true]),
    )
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      mismatches++
      t.comment(JSON.stringify({ expected, actual }))
    }
    if (document.operations.some((operation, index) => summarizeOperation(operation).index !== index)) mismatches++
  }
  t.equal(mismatches, 0)
})

t.test('heads and bodies that span two slabs of kept input read as when whole', async (t) => {
  // The first slab holds 64 KiB of input (chunk-copies.ts): a preamble of every length moves each byte
  // of heads and bodies, in turn, onto the end of that slab.
  const operations = Array.from({ length: 400 }, (_, index) => ({
    method: index % 3 === 0 ? 'GET' : 'PATCH',
    url: `Items(${index})`,
    headers: { Accept: 'application/json', 'X-Index': String(index) },
    body: index % 3 === 0 ? undefined : { index, text: 'ü'.repeat(index % 7) },
    id: `op${index}`,
    atomicityGroup: index % 5 === 4 ? `g${index}` : undefined,
  }))
  const limits = { maxOperations: 1000 }
  for (const lineEnding of ['\r\n', '\n'] as const) {
    const built = buildMultipartBatch(operations, { lineEnding })
    t.ok(built.body.length > 65_536, `${built.body.length} bytes`)
    const expected = outcomeKey(ingest(createMultipartIntake({ boundary: built.boundary!, limits }), [built.body]))
    let mismatches = 0
    let overRetained = 0
    for (let pad = 0; pad < 300; pad++) {
      const body = Buffer.concat([Buffer.from(`preamble ${'x'.repeat(pad)}${lineEnding}`), built.body])
      const chunks = Array.from({ length: Math.ceil(body.length / 997) }, (_, index) => body.subarray(index * 997, (index + 1) * 997))
      const outcome = ingest(createMultipartIntake({ boundary: built.boundary!, limits }), chunks, (intake) => {
        // The copies of the chunks, plus the one head or body joined across the two slabs.
        if (intake.progress.retainedBytes > intake.progress.bytesReceived + 1024) overRetained++
      })
      if (outcomeKey(outcome) !== expected) mismatches++
    }
    t.equal(mismatches, 0, `${JSON.stringify(lineEnding)}: the same document wherever the slab ends`)
    t.equal(overRetained, 0, 'about the bytes received are retained')
  }
})

t.test('the lines every client writes are recognised whole, and their other spellings read alike', async (t) => {
  const spellings = [
    'Content-Type: application/http\nContent-Transfer-Encoding: binary\n',
    'content-type: application/http\ncontent-transfer-encoding: Binary\n',
    'Content-Type:application/http\nContent-Transfer-Encoding:  binary  \n',
    'Content-Type: Application/HTTP\n',
    'Content-Type: application/http; msgtype=request\n',
  ]
  for (const head of spellings) {
    const outcome = parse(`--b\n${head}Content-ID: 7\n\nPOST People HTTP/1.1\nContent-Type: application/json\n\n{}\n--b--\n`)
    t.equal(outcome.error, undefined, JSON.stringify(head))
    const operation = outcome.document!.operations[0]
    t.same(
      [operation.method, operation.url, operation.id, operation.headers.get('content-type')],
      ['POST', 'People', '7', 'application/json'],
    )
  }
  // Texts that only begin like a known line are read the general way.
  t.match(parse(`--b\nContent-Type: application/httpx\n\nGET A\n\n\n--b--\n`).error, {
    code: 'BatchMalformed',
    message: /has Content-Type "application\/httpx"/,
  })
  t.match(parse(`--b\nContent-Type: application/http\u0001\n\nGET A\n\n\n--b--\n`).error, { message: /control character 0x01/ })
  t.match(parse(`--b\nContent-Type: application/http\r\rContent-ID: 1\n\nGET A\n\n\n--b--\n`, { keepLineFeeds: true }).error, {
    message: /bare carriage return/,
  })
  t.match(parse(`--b\nContent-Type: application/http\nContent-Type: application/http\n\nGET A\n\n\n--b--\n`).error, {
    message: /two Content-Type headers/,
  })
})

t.test('an operation makes its values from the kept bytes when read, the same each time', async (t) => {
  const outcome = parse(
    `--b\nContent-Type: application/http\nContent-ID: über\n\npatch Straße('ö') HTTP/1.1\nX-A: 1\nx-a: 2\nContent-ID: inner\n\n{"a":"ü"}\n--b--\n`,
  )
  const operation = outcome.document!.operations[0]
  t.equal(operation.method, 'PATCH')
  t.equal(operation.url, "Straße('ö')")
  t.equal(operation.id, 'über', 'the part Content-ID before the embedded one')
  t.same(Object.fromEntries(operation.headers), { 'x-a': '1, 2', 'content-id': 'inner' })
  t.equal(operation.headers, operation.headers, 'made once')
  t.equal(operation.body, operation.body)
  t.equal(operation.body?.kind === 'bytes' && operation.body.bytes.toString(), '{"a":"ü"}')
  t.same(
    JSON.parse(JSON.stringify(operation)),
    {
      kind: 'operation',
      index: 0,
      method: 'PATCH',
      url: "Straße('ö')",
      headers: {},
      body: { kind: 'bytes', bytes: { type: 'Buffer', data: [...Buffer.from('{"a":"ü"}')] } },
      id: 'über',
      dependsOn: [],
    },
    'JSON.stringify sees every member (a Map as {})',
  )
})
