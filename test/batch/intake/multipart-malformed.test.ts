// Corrupt multipart bodies: always 400 BatchMalformed (service.md §7), never another error, never a
// hang, whatever the chunking.

import t from 'tap'
import { buildMultipartBatch } from '../../../src/tools/shared/batch-body.js'
import { createMultipartIntake } from '../../../src/batch/intake/multipart/multipart-intake.js'
import type { IntakeLimits } from '../../../src/batch/intake/intake-limits.js'
import { type TapTest, ingest, outcomeKey, randomSplit } from './intake-harness.js'
import { seededRandom } from '../../../src/seed/random.js'

/** Asserts BatchMalformed whole and at seeded random chunkings; returns the message. */
function expectMalformed(t: TapTest, name: string, text: string, limits: Partial<IntakeLimits> = {}, boundary = 'b'): string {
  const body = Buffer.from(text.replace(/\n/g, '\r\n'), 'utf8')
  const whole = ingest(createMultipartIntake({ boundary, limits }), [body])
  t.equal(whole.error?.code, 'BatchMalformed', `${name}: ${whole.error?.message ?? 'accepted'}`)
  const random = seededRandom(body.length)
  for (let attempt = 0; attempt < 10; attempt++) {
    const chunked = ingest(createMultipartIntake({ boundary, limits }), randomSplit(body, random, 2 + attempt * 3))
    if (outcomeKey(chunked) !== outcomeKey(whole)) {
      t.fail(`${name}: another outcome when chunked: ${outcomeKey(chunked)}`)
      break
    }
  }
  return whole.error?.message ?? ''
}

const GET_PART = 'Content-Type: application/http\n\nGET People HTTP/1.1\n\n'

t.test('boundaries and delimiters', async (t) => {
  expectMalformed(t, 'an empty body', '')
  expectMalformed(t, 'no delimiter at all', 'GET People HTTP/1.1\n\n')
  expectMalformed(t, 'another boundary than announced', `--other\n${GET_PART}\n--other--\n`)
  expectMalformed(t, 'no closing delimiter', `--b\n${GET_PART}\n`)
  expectMalformed(t, 'a closing delimiter of a different boundary', `--b\n${GET_PART}\n--c--\n`)
  expectMalformed(t, 'a delimiter followed by other characters', `--b\n${GET_PART}\n--bX\n${GET_PART}\n--b--\n`)
  expectMalformed(t, 'a delimiter followed by one hyphen', `--b-\n${GET_PART}\n--b--\n`)
  expectMalformed(t, 'two delimiters on one line', `--b--b\n${GET_PART}\n--b--\n`)
  expectMalformed(t, 'a delimiter line with a bare carriage return', `--b\r${GET_PART}\n--b--\n`)
  expectMalformed(t, 'an empty part between two delimiters', `--b\n--b\n${GET_PART}\n--b--\n`)
})

t.test('a batch without operations (service.md §7)', async (t) => {
  t.match(expectMalformed(t, 'only the close delimiter', '--b--\n'), /no operations/)
  t.match(expectMalformed(t, 'a preamble and the close delimiter', 'preamble\n--b--\n'), /no operations/)
  expectMalformed(t, 'an empty change set', '--b\nContent-Type: multipart/mixed; boundary=cs\n\n--cs--\n\n--b--\n')
})

t.test('part heads', async (t) => {
  expectMalformed(t, 'a part without Content-Type', '--b\nContent-ID: 1\n\nGET People HTTP/1.1\n\n\n--b--\n')
  expectMalformed(t, 'a part of another media type', '--b\nContent-Type: text/plain\n\nGET People HTTP/1.1\n\n\n--b--\n')
  expectMalformed(t, 'a part whose head has no blank line', '--b\nContent-Type: application/http\n--b--\n')
  expectMalformed(
    t,
    'two Content-Type headers',
    '--b\nContent-Type: application/http\nContent-Type: application/http\n\nGET A\n\n\n--b--\n',
  )
  expectMalformed(t, 'two Content-ID headers', '--b\nContent-Type: application/http\nContent-ID: 1\nContent-ID: 2\n\nGET A\n\n\n--b--\n')
  expectMalformed(t, 'a header line without a colon', '--b\nContent-Type application/http\n\nGET A\n\n\n--b--\n')
  expectMalformed(t, 'a header name with a space', '--b\nContent Type: application/http\n\nGET A\n\n\n--b--\n')
  expectMalformed(t, 'a folded header line', '--b\nContent-Type:\n application/http\n\nGET A\n\n\n--b--\n')
  expectMalformed(t, 'a control byte in a header', '--b\nContent-Type: application/http\nContent-ID: 1\u0000\n\nGET A\n\n\n--b--\n')
  expectMalformed(
    t,
    'a bare carriage return inside a header value',
    '--b\nContent-Type: application/http\nContent-ID: 1\r2\n\nGET A\n\n\n--b--\n',
  )
  expectMalformed(t, 'a change set without a boundary', '--b\nContent-Type: multipart/mixed\n\n--cs--\n\n--b--\n')
  expectMalformed(t, 'a change set with an invalid boundary', '--b\nContent-Type: multipart/mixed; boundary="a\tb"\n\n--a\tb--\n\n--b--\n')
  expectMalformed(t, 'an unparseable Content-Type', '--b\nContent-Type: multipart/mixed; boundary="cs\n\n--cs--\n\n--b--\n')
})

t.test('the caps on heads (intake-limits.ts)', async (t) => {
  const limits = { maxPartHeaderLine: 100, maxHeaderBytes: 400, maxHeaderCount: 5 }
  const long = 'x'.repeat(101)
  t.match(
    expectMalformed(
      t,
      'a part header line over maxPartHeaderLine',
      `--b\nContent-Type: application/http\nX-Long: ${long}\n\nGET A\n\n\n--b--\n`,
      limits,
    ),
    /longer than 100/,
  )
  t.match(
    expectMalformed(
      t,
      'a request line over maxPartHeaderLine',
      `--b\n${'Content-Type: application/http\n\n'}GET /${long} HTTP/1.1\n\n\n--b--\n`,
      limits,
    ),
    /longer than 100/,
  )
  const many = Array.from({ length: 6 }, (_, index) => `X-${index}: 1\n`).join('')
  t.match(
    expectMalformed(
      t,
      'more fields than maxHeaderCount in a part head',
      `--b\nContent-Type: application/http\n${many}\nGET A\n\n\n--b--\n`,
      limits,
    ),
    /more than 5/,
  )
  t.match(
    expectMalformed(
      t,
      'more fields than maxHeaderCount in an embedded head',
      `--b\nContent-Type: application/http\n\nGET A HTTP/1.1\n${many}\n\n--b--\n`,
      limits,
    ),
    /more than 5/,
  )
  const big = Array.from({ length: 5 }, (_, index) => `X-${index}: ${'y'.repeat(90)}\n`).join('')
  t.match(
    expectMalformed(t, 'a head over maxHeaderBytes', `--b\nContent-Type: application/http\n\nGET A HTTP/1.1\n${big}\n\n--b--\n`, limits),
    /larger than 400/,
  )
  const endless = `--b\nContent-Type: application/http\nX: ${'z'.repeat(100_000)}`
  t.match(expectMalformed(t, 'an endless header line (no line break at all)', endless, limits), /longer than 100/)
})

t.test('embedded request lines', async (t) => {
  const part = (line: string): string => `--b\nContent-Type: application/http\n\n${line}\n\n\n--b--\n`
  expectMalformed(t, 'a method alone', part('GET'))
  expectMalformed(t, 'a status line (a response, not a request)', part('HTTP/1.1 200 OK'))
  expectMalformed(t, 'a method with a separator', part('GE(T People HTTP/1.1'))
  expectMalformed(t, 'words after the version', part('GET People HTTP/1.1 extra'))
  expectMalformed(t, 'a version that is not HTTP', part('GET People SPDY/3'))
  expectMalformed(t, 'a tab inside the URL', part('GET Peo\tple HTTP/1.1'))
  expectMalformed(t, 'no request line at all', '--b\nContent-Type: application/http\n\n--b--\n')
})

t.test('a request line needs its URL and its HTTP version (service.md §2.3)', async (t) => {
  const part = (line: string): string => `--b\nContent-Type: application/http\n\n${line}\n\n\n--b--\n`
  t.equal(
    expectMalformed(t, 'no HTTP version', part('GET People')),
    'Part 1: the request line "GET People" has no HTTP version ("<METHOD> <url> HTTP/1.1").',
  )
  t.equal(
    expectMalformed(t, 'no HTTP version, blanks after the URL', part('DELETE People(1)  ')),
    'Part 1: the request line has more than one space after its URL.',
  )
  t.equal(
    expectMalformed(t, 'an empty URL before the version', part('GET  HTTP/1.1')),
    'Part 1: the request line has more than one space after its method.',
  )
  t.equal(
    expectMalformed(t, 'two spaces after the method', part('GET  People HTTP/1.1')),
    'Part 1: the request line has more than one space after its method.',
  )
  t.equal(
    expectMalformed(t, 'two spaces before the version', part('GET People  HTTP/1.1')),
    'Part 1: the request line has more than one space after its URL.',
  )
  t.equal(expectMalformed(t, 'a tab before the version', part('GET People\tHTTP/1.1')), 'Part 1: the URL of the request line holds a tab.')
  t.equal(expectMalformed(t, 'the version where the URL goes', part('GET HTTP/1.1')), 'Part 1: the request line has no URL.')
  t.equal(expectMalformed(t, 'an empty URL', part('GET ')), 'Part 1: the request line has no URL.')
  const inChangeSet =
    '--b\nContent-Type: multipart/mixed; boundary=cs\n\n--cs\nContent-Type: application/http\nContent-ID: 1\n\nPOST People\n\n{}\n--cs--\n--b--\n'
  t.match(expectMalformed(t, 'no HTTP version in a change set', inChangeSet), /has no HTTP version/)
})

t.test('Content-Transfer-Encoding: binary, 8bit or 7bit (service.md §2.3); anything else is 400', async (t) => {
  const part = (encoding: string): string =>
    `--b\nContent-Type: application/http\nContent-Transfer-Encoding: ${encoding}\n\nGET People HTTP/1.1\n\n\n--b--\n`
  for (const encoding of ['base64', 'quoted-printable', 'x-gzip', '', 'binary;x', '8bits']) {
    t.equal(
      expectMalformed(t, `Content-Transfer-Encoding "${encoding}"`, part(encoding)),
      `Part 1 has Content-Transfer-Encoding "${encoding}"; a batch part is sent as binary (or 8bit, 7bit).`,
    )
  }
  const member =
    '--b\nContent-Type: multipart/mixed; boundary=cs\n\n--cs\nContent-Type: application/http\ncontent-transfer-encoding: BASE64\nContent-ID: 1\n\nPOST People HTTP/1.1\n\n{}\n--cs--\n--b--\n'
  t.equal(
    expectMalformed(t, 'base64 on a change-set member', member),
    'Part 1 of the change set in part 1 has Content-Transfer-Encoding "BASE64"; a batch part is sent as binary (or 8bit, 7bit).',
  )
  for (const encoding of ['binary', 'BINARY', '8bit', '7bit', '  Binary  ']) {
    const outcome = ingest(createMultipartIntake({ boundary: 'b' }), [Buffer.from(part(encoding).replace(/\n/g, '\r\n'))])
    t.equal(outcome.error, undefined, `Content-Transfer-Encoding "${encoding}" is read`)
  }
})

t.test('change sets', async (t) => {
  t.match(
    expectMalformed(
      t,
      'a change set inside a change set',
      '--b\nContent-Type: multipart/mixed; boundary=cs1\n\n--cs1\nContent-Type: multipart/mixed; boundary=cs2\n\n--cs2\nContent-Type: application/http\n\nPOST A HTTP/1.1\n\n{}\n--cs2--\n--cs1--\n--b--\n',
    ),
    /cannot contain another change set/,
  )
  expectMalformed(
    t,
    'a change set without its closing delimiter',
    `--b\nContent-Type: multipart/mixed; boundary=cs\n\n--cs\n${GET_PART}\n--b--\n`,
  )
  expectMalformed(
    t,
    'a corrupt member',
    '--b\nContent-Type: multipart/mixed; boundary=cs\n\n--cs\nContent-Type: text/plain\n\nx\n--cs--\n--b--\n',
  )
})

t.test('truncated at every position of a small valid batch', async (t) => {
  const built = buildMultipartBatch(
    [
      { method: 'GET', url: 'People', headers: { Accept: 'application/json' } },
      { method: 'POST', url: 'People', body: { Name: 'Ann' }, id: '1', atomicityGroup: 'g' },
      { method: 'PATCH', url: '$1', body: { Name: 'Bo' }, id: '2', atomicityGroup: 'g' },
    ],
    { boundary: 'batch_x' },
  )
  const body = built.body
  const complete = outcomeKey(ingest(createMultipartIntake({ boundary: 'batch_x' }), [body]))
  // Everything from the close delimiter's second hyphen on is epilogue: a cut there loses nothing.
  const closeEnd = body.lastIndexOf('--batch_x--') + '--batch_x--'.length
  let wrong = 0
  for (let length = 0; length < body.length; length++) {
    const outcome = ingest(createMultipartIntake({ boundary: 'batch_x' }), [body.subarray(0, length)])
    const expected = length >= closeEnd ? complete : 'BatchMalformed'
    if (!outcomeKey(outcome).startsWith(expected)) {
      wrong++
      t.comment(`cut at ${length}: ${outcomeKey(outcome)}`)
    }
  }
  t.equal(wrong, 0, `${body.length} truncations`)
})

t.test('the first malformation is reported, and nothing is kept after it', async (t) => {
  const body = Buffer.from(
    `--b\n${GET_PART}\n--b\nContent-Type: text/plain\n\nx\n--b\nContent-Type: application/http\n\nBAD\n\n\n--b--\n`.replace(/\n/g, '\r\n'),
  )
  const intake = createMultipartIntake({ boundary: 'b' })
  intake.push(body)
  t.ok(intake.progress.failureCertain)
  t.equal(intake.progress.retainedBytes, 0)
  t.equal(intake.progress.partsParsed, 2, 'parts after the first corrupt one are counted, not parsed')
  t.equal(intake.progress.topLevelParts, 3)
  t.throws(() => intake.end(), { code: 'BatchMalformed', message: /Part 2 has Content-Type "text\/plain"/ })
  t.throws(() => intake.end(), { code: 'BatchMalformed' }, 'a dead intake answers with the same error')
  t.throws(() => intake.push(Buffer.from('more')), { code: 'BatchMalformed' })
})

t.test('past the operation limit, a head split across chunks is still checked in its own copy', async (t) => {
  // Nothing is kept once the batch has too many operations: a head split across chunks is copied into
  // the head buffer, and a request line that ends with its part is checked there. The preamble fills
  // the first bytes of the slab the head was first read from, and must not be read in its place.
  const body = Buffer.from(
    `${'preamble'.repeat(40)}\r\n` +
      '--b\r\nContent-Type: multipart/mixed; boundary=cs\r\n\r\n--cs\r\nContent-Type: application/http\r\n\r\nPOST A HTTP/1.1\r\n\r\n{}\r\n' +
      '--cs\r\nContent-Type: application/http\r\n\r\nPOST /service/Customers extra HTTP/1.1\r\n--cs--\r\n--b--\r\n',
  )
  const create = () => createMultipartIntake({ boundary: 'b', limits: { maxOperations: 1 } })
  const whole = outcomeKey(ingest(create(), [body]))
  t.match(
    whole,
    /^BatchMalformed: Part 2 of the change set in part 1: the request line ends with "extra HTTP\/1.1"/,
    'a corrupt part comes before the operation count',
  )
  const lineStart = body.indexOf('POST /service')
  const lineEnd = body.indexOf('\r\n--cs--')
  for (let cut = lineStart; cut <= lineEnd + 2; cut++) {
    t.equal(outcomeKey(ingest(create(), [body.subarray(0, cut), body.subarray(cut)])), whole, `cut at ${cut}`)
  }
})
