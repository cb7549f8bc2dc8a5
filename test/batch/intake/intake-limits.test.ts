// The limits of service.md §8 and the checks order of decisions.md §7: size (413) at the chunk that
// passes it; the top-level part count by the boundary scan alone, with the actual figure; parsing;
// the operation count, change-set members included.

import t from 'tap'
import { buildJsonBatch, buildMultipartBatch } from '../../../src/tools/shared/batch-body.js'
import { countTopLevelParts } from '../../../src/batch/intake/multipart/count-top-level-parts.js'
import { DEFAULT_INTAKE_LIMITS, resolveIntakeLimits } from '../../../src/batch/intake/intake-limits.js'
import { createJsonIntake } from '../../../src/batch/intake/json/json-intake.js'
import { createMultipartIntake } from '../../../src/batch/intake/multipart/multipart-intake.js'
import { ingest, pushVolatile, splitAt } from './intake-harness.js'

t.test('the defaults are the service settings of service.md §8', async (t) => {
  t.equal(DEFAULT_INTAKE_LIMITS.maxBytes, 10 * 1_048_576, 'decisions.md §7: a megabyte is 1,048,576 bytes')
  t.equal(DEFAULT_INTAKE_LIMITS.maxOperations, 100)
  t.throws(() => resolveIntakeLimits({ maxBytes: 0 }), /positive integer/)
  t.throws(() => resolveIntakeLimits({ maxJsonDepth: 1.5 }), /positive integer/)
})

for (const format of ['multipart', 'json'] as const) {
  t.test(`${format}: BatchTooLarge at the chunk that passes maxBytes, no later chunk needed`, async (t) => {
    const operations = Array.from({ length: 40 }, (_, index) => ({ method: 'POST', url: 'Notes', body: { text: 'n'.repeat(200), index } }))
    const built = format === 'multipart' ? buildMultipartBatch(operations) : buildJsonBatch(operations)
    const create = (maxBytes: number) =>
      format === 'multipart'
        ? createMultipartIntake({ boundary: built.boundary!, limits: { maxBytes, maxOperations: 1000 } })
        : createJsonIntake({ limits: { maxBytes, maxOperations: 1000 } })
    const maxBytes = Math.floor(built.body.length / 2)
    const chunks = splitAt(built.body, [1000, 2000, maxBytes, maxBytes + 1, maxBytes + 500])
    const intake = create(maxBytes)
    let pushed = 0
    let error: unknown
    try {
      for (const chunk of chunks) {
        pushVolatile(intake, chunk)
        pushed++
      }
    } catch (caught) {
      error = caught
    }
    t.match(error, { code: 'BatchTooLarge', status: 413 })
    t.equal(pushed, 3, 'the chunk that brings the count to maxBytes + 1 throws')
    t.equal(intake.progress.retainedBytes, 0, 'everything is released')
    t.throws(() => intake.push(Buffer.from('x')), { code: 'BatchTooLarge' }, 'a dead intake repeats its error')
    t.throws(() => intake.end(), { code: 'BatchTooLarge' })

    const exact = ingest(create(built.body.length), [built.body])
    t.equal(exact.error, undefined, 'a body of exactly maxBytes is accepted')
  })
}

/** `count` tiny GET parts: the body of a client that sends far too many operations. */
function tinyParts(count: number): Buffer {
  const part = Buffer.from('--b\r\nContent-Type: application/http\r\n\r\nGET P HTTP/1.1\r\n\r\n\r\n')
  const body = Buffer.allocUnsafe(part.length * count + 7)
  for (let index = 0; index < count; index++) part.copy(body, index * part.length)
  body.write('--b--\r\n', part.length * count)
  return body
}

t.test('100,000 tiny top-level parts: TooManyOperations with the actual figure, parts unparsed', async (t) => {
  const body = tinyParts(100_000)
  t.ok(body.length < DEFAULT_INTAKE_LIMITS.maxBytes, `the body (${body.length} bytes) is within the size limit`)

  // The whole body in memory: the count alone, nothing parsed.
  t.equal(countTopLevelParts(body, 'b'), 100_000)

  // Streamed: parsing stops at the limit, counting goes on to the end (decisions.md §7).
  const intake = createMultipartIntake({ boundary: 'b' })
  const started = process.hrtime.bigint()
  for (let offset = 0; offset < body.length; offset += 65_536) intake.push(body.subarray(offset, offset + 65_536))
  t.ok(intake.progress.failureCertain)
  t.throws(() => intake.end(), {
    code: 'TooManyOperations',
    status: 400,
    message: 'The batch has 100000 operations; at most 100 are allowed.',
  })
  const milliseconds = Number(process.hrtime.bigint() - started) / 1e6
  t.comment(`streamed count of ${body.length} bytes: ${milliseconds.toFixed(1)} ms`)
  t.equal(intake.progress.topLevelParts, 100_000)
  t.equal(intake.progress.partsParsed, 100, 'only the parts within the limit were parsed, as they streamed by')
  t.equal(intake.progress.retainedBytes, 0)
})

t.test('countTopLevelParts counts what the streaming intake counts', async (t) => {
  const bodies: Array<[string, string]> = [
    ['', 'empty'],
    ['--b', 'a delimiter at the end'],
    ['--b-', 'one hyphen at the end'],
    ['--b--', 'only the close delimiter'],
    ['--b-x\r\n', 'a delimiter with a stray hyphen'],
    ['--b\r\n--b\r\n--b--\r\n--b\r\n', 'parts after the close delimiter'],
    ['preamble\r\n--b\r\nx\r\n--bb\r\n--b\n--b--', 'a preamble, a longer boundary, LF'],
    ['\r\n--b\r\n', 'a line break before the first delimiter'],
    ['x--b\r\n--b\r\n', 'a boundary not at a line start'],
  ]
  for (const [text, name] of bodies) {
    const body = Buffer.from(text, 'latin1')
    const intake = createMultipartIntake({ boundary: 'b' })
    intake.push(body)
    try {
      intake.end()
    } catch {
      // only the count matters here
    }
    t.equal(countTopLevelParts(body, 'b'), intake.progress.topLevelParts, name)
  }
})

t.test('every operation counts, change-set members included (decisions.md §7)', async (t) => {
  const operations = Array.from({ length: 150 }, (_, index) => ({
    method: 'POST',
    url: 'Notes',
    body: { index },
    id: String(index),
    atomicityGroup: `g${Math.floor(index / 15)}`,
  }))
  const multipart = buildMultipartBatch(operations)
  const multipartOutcome = ingest(createMultipartIntake({ boundary: multipart.boundary! }), splitAt(multipart.body, [100, 5000, 9000]))
  t.equal(countTopLevelParts(multipart.body, multipart.boundary!), 10, 'ten change sets at the top level')
  t.match(multipartOutcome.error, { code: 'TooManyOperations', message: 'The batch has 150 operations; at most 100 are allowed.' })

  const json = buildJsonBatch(operations)
  const jsonOutcome = ingest(createJsonIntake(), splitAt(json.body, [100, 5000, 9000]))
  t.match(jsonOutcome.error, { code: 'TooManyOperations', message: 'The batch has 150 operations; at most 100 are allowed.' })

  const atLimit = ingest(createJsonIntake(), [buildJsonBatch(operations.slice(0, 100)).body])
  t.equal(atLimit.document?.operations.length, 100, 'exactly the limit is accepted')
})

t.test('the checks order of decisions.md §7', async (t) => {
  const bad = Buffer.from('--b\r\nContent-Type: text/plain\r\n\r\nx\r\n')
  const tooManyAndCorrupt = Buffer.concat([bad, tinyParts(150)])
  t.match(
    ingest(createMultipartIntake({ boundary: 'b' }), [tooManyAndCorrupt]).error,
    { code: 'TooManyOperations', message: /has 151 operations/ },
    'the top-level count comes before parsing: a corrupt first part does not hide it',
  )

  const changeSetMembers = Array.from({ length: 150 }, (_, index) => ({ method: 'POST', url: 'N', id: String(index), atomicityGroup: 'g' }))
  const corruptAfterLimit = Buffer.concat([
    buildMultipartBatch(changeSetMembers, { boundary: 'b' }).body.subarray(0, -'--b--\r\n'.length),
    bad,
    Buffer.from('--b--\r\n'),
  ])
  t.match(
    ingest(createMultipartIntake({ boundary: 'b' }), [corruptAfterLimit]).error,
    { code: 'BatchMalformed' },
    'with few top-level parts, a corrupt part comes before the operation count',
  )

  const json = buildJsonBatch(Array.from({ length: 150 }, () => ({ method: 'GET', url: 'N' }))).body
  const jsonCorruptAfterLimit = Buffer.concat([json.subarray(0, -2), Buffer.from(',{"id":"x"}]}')])
  t.match(
    ingest(createJsonIntake(), [jsonCorruptAfterLimit]).error,
    { code: 'BatchMalformed', message: /has no "method"/ },
    'JSON: parsing before the count',
  )
})

t.test('past the operation limit nothing more is kept', async (t) => {
  const operations = Array.from({ length: 300 }, (_, index) => ({ method: 'POST', url: 'Notes', body: { text: 'x'.repeat(500), index } }))
  for (const built of [buildMultipartBatch(operations), buildJsonBatch(operations)]) {
    const intake = built.boundary === undefined ? createJsonIntake() : createMultipartIntake({ boundary: built.boundary })
    let peak = 0
    for (let offset = 0; offset < built.body.length; offset += 4096) {
      intake.push(built.body.subarray(offset, offset + 4096))
      if (intake.progress.operations > 101) peak = Math.max(peak, intake.progress.retainedBytes)
    }
    t.ok(peak < 8192, `${built.boundary === undefined ? 'JSON' : 'multipart'}: at most one item in flight is held (${peak} bytes)`)
    t.throws(() => intake.end(), { code: 'TooManyOperations', message: /has 300 operations/ })
  }
})
