// Seeded fuzzing (docs/architecture.md, after undici's test/fuzzing): thousands of mutations of the clients'
// bodies (client-bodies/) and generated batches, cut into random chunks under random limits. Whatever the bytes, the intake
// throws nothing but an ODataError, gives the same outcome however the body is cut, and never holds
// more than the bytes it was given (plus its fixed buffers). A failure names its seed and mutant.
// A second round puts a byte sequence that is not UTF-8 into every mutant: a JSON batch holding one is
// never accepted (RFC 8259 §8.1; it would be read as U+FFFD).

import { isUtf8 } from 'node:buffer'
import t from 'tap'
import type { BatchIntake } from '../../../src/batch/intake/batch-intake.js'
import { buildJsonBatch, buildMultipartBatch } from '../../../src/tools/shared/batch-body.js'
import type { IntakeLimits } from '../../../src/batch/intake/intake-limits.js'
import { createJsonIntake } from '../../../src/batch/intake/json/json-intake.js'
import { createMultipartIntake } from '../../../src/batch/intake/multipart/multipart-intake.js'
import { type TapTest, clientJsonBodies, clientMultipartBodies, ingest, outcomeKey, randomInteger, randomSplit } from './intake-harness.js'
import { seededRandom } from '../../../src/seed/random.js'

// FUZZ_SCALE multiplies the mutants (`make fuzz` runs 50 times the suite's slice).
const MUTANTS_PER_FORMAT = 4000 * Number(process.env.FUZZ_SCALE ?? 1)

interface Source {
  readonly name: string
  readonly body: Buffer
  readonly boundary?: string
}

function multipartSources(): Source[] {
  const sources: Source[] = []
  for (const sample of clientMultipartBodies()) sources.push({ name: sample.name, body: sample.body, boundary: sample.boundary })
  const generated = buildMultipartBatch(
    [
      { method: 'GET', url: 'People?$top=1', headers: { Accept: 'application/json' } },
      { method: 'POST', url: 'People', body: { Name: 'Ann', Tags: ['a', 'b'] }, id: '1', atomicityGroup: 'g' },
      { method: 'PATCH', url: '$1', body: { Name: 'Bo' }, id: '2', atomicityGroup: 'g' },
      { method: 'DELETE', url: 'People(9)', id: '3' },
    ],
    { boundary: 'batch_fuzz' },
  )
  sources.push({ name: 'generated CRLF', body: generated.body, boundary: 'batch_fuzz' })
  const lineFeeds = buildMultipartBatch(
    [
      { method: 'POST', url: 'A', body: 'x\ny', id: 'a', atomicityGroup: 'g' },
      { method: 'GET', url: 'B' },
    ],
    {
      boundary: 'lf',
      lineEnding: '\n',
      contentIdPlacement: 'request',
    },
  )
  sources.push({ name: 'generated LF', body: lineFeeds.body, boundary: 'lf' })
  return sources
}

function jsonSources(): Source[] {
  const sources: Source[] = []
  sources.push(...clientJsonBodies())
  sources.push({
    name: 'generated',
    body: buildJsonBatch([
      { method: 'get', url: 'People', headers: { accept: 'application/json' } },
      { method: 'post', url: 'People', body: { Name: 'Ann', n: [1, 2.5, -3e2, true, null] }, id: 'a', atomicityGroup: 'g' },
      { method: 'patch', url: '$a', body: { Name: 'Bo "q" \\ ü' }, id: 'b', atomicityGroup: 'g', dependsOn: ['a'] },
    ]).body,
  })
  return sources
}

const MULTIPART_TOKENS = [
  '\r\n',
  '\n',
  '\r',
  '--',
  ' ',
  '\t',
  ':',
  ';',
  '\u0000',
  'HTTP/1.1',
  'GET ',
  'Content-Type: multipart/mixed; boundary=x\r\n',
  'Content-ID: 1\r\n',
  '\r\n\r\n',
  '--x\r\n',
  '--x--',
]
const JSON_TOKENS = [
  '{',
  '}',
  '[',
  ']',
  '"',
  '\\',
  ',',
  ':',
  ' ',
  '\\u00',
  'null',
  '-1e9',
  '"__proto__":{"polluted":1},',
  '"requests":',
  '{"id":"z","method":"get","url":"q"},',
  '\u0001',
  '\ud83d',
]

function mutate(source: Source, random: () => number, tokens: readonly string[]): Buffer {
  let body = source.body
  const boundaryTokens =
    source.boundary === undefined ? [] : [`\r\n--${source.boundary}\r\n`, `\n--${source.boundary}--`, `--${source.boundary}`]
  const mutations = 1 + randomInteger(random, 4)
  for (let step = 0; step < mutations; step++) {
    const at = randomInteger(random, body.length + 1)
    switch (randomInteger(random, 6)) {
      case 0: {
        const copy = Buffer.from(body)
        if (copy.length > 0) copy[Math.min(at, copy.length - 1)] = randomInteger(random, 256)
        body = copy
        break
      }
      case 1:
      case 2: {
        const pool = random() < 0.3 && boundaryTokens.length > 0 ? boundaryTokens : tokens
        body = Buffer.concat([body.subarray(0, at), Buffer.from(pool[randomInteger(random, pool.length)], 'utf8'), body.subarray(at)])
        break
      }
      case 3:
        body = Buffer.concat([body.subarray(0, at), body.subarray(Math.min(body.length, at + 1 + randomInteger(random, 40)))])
        break
      case 4: {
        const length = randomInteger(random, 200)
        body = Buffer.concat([body.subarray(0, at), body.subarray(at, at + length), body.subarray(at)])
        break
      }
      default:
        body = body.subarray(0, at)
    }
  }
  return body
}

/** Byte sequences that are not UTF-8: stray continuation bytes, bytes never used, sequences cut short, overlong forms, surrogates, code points past U+10FFFF. */
const NOT_UTF8: readonly Buffer[] = [
  [0x80],
  [0xbf],
  [0xff],
  [0xfe],
  [0xc3],
  [0xe2, 0x82],
  [0xf0, 0x9f, 0x98],
  [0xc0, 0xaf],
  [0xe0, 0x80, 0xaf],
  [0xed, 0xa0, 0x80],
  [0xed, 0xbf, 0xbf],
  [0xf4, 0x90, 0x80, 0x80],
  [0xc3, 0x28],
].map((bytes) => Buffer.from(bytes))

/**
 * `body` with one of NOT_UTF8 inserted at a random place, or in place of a random byte. In a body with
 * characters beyond ASCII the bytes can complete a sequence (0xbf in place of the second byte of `ü` is
 * `ÿ`): such a draw is made again, so that every result holds bytes that are not UTF-8.
 */
function withInvalidUtf8(body: Buffer, random: () => number): Buffer {
  for (;;) {
    const bytes = NOT_UTF8[randomInteger(random, NOT_UTF8.length)]
    const at = randomInteger(random, body.length + 1)
    const replace = random() < 0.5 && at < body.length ? 1 : 0
    const result = Buffer.concat([body.subarray(0, at), bytes, body.subarray(at + replace)])
    if (!isUtf8(result)) return result
  }
}

function randomLimits(random: () => number, bodyLength: number): Partial<IntakeLimits> {
  return {
    maxBytes: random() < 0.2 ? Math.max(1, randomInteger(random, bodyLength + 1)) : 1_048_576,
    maxOperations: random() < 0.2 ? 1 + randomInteger(random, 3) : 100,
    maxHeaderBytes: random() < 0.2 ? 64 + randomInteger(random, 200) : 4096,
    maxHeaderCount: random() < 0.2 ? 1 + randomInteger(random, 4) : 64,
    maxPartHeaderLine: random() < 0.2 ? 16 + randomInteger(random, 80) : 1024,
    maxJsonDepth: random() < 0.2 ? 1 + randomInteger(random, 5) : 64,
    maxJsonStringLength: random() < 0.2 ? 1 + randomInteger(random, 40) : 4096,
    maxJsonKeyLength: random() < 0.2 ? 1 + randomInteger(random, 10) : 256,
    maxJsonTokens: random() < 0.2 ? 1 + randomInteger(random, 60) : 100_000,
  }
}

/** Fixed buffers of an intake (the head buffer, the JSON key buffer) are not counted as retained. */
const RETAINED_SLACK = 0

function fuzz(t: TapTest, format: 'multipart' | 'json', sources: Source[], seed: number, invalidUtf8 = false): void {
  if (sources.length === 0) {
    t.skip(`no ${format} sources`, () => undefined)
    return
  }
  const random = seededRandom(seed)
  const tokens = format === 'multipart' ? MULTIPART_TOKENS : JSON_TOKENS
  const outcomes = new Map<string, number>()
  let differentWhenCut = 0
  let overRetained = 0
  let acceptedNotUtf8 = 0
  for (let mutant = 0; mutant < MUTANTS_PER_FORMAT; mutant++) {
    const source = sources[mutant % sources.length]
    const mutated = mutate(source, random, tokens)
    const body = invalidUtf8 ? withInvalidUtf8(mutated, random) : mutated
    const limits = randomLimits(random, body.length)
    const create = (): BatchIntake =>
      format === 'multipart' ? createMultipartIntake({ boundary: source.boundary!, limits }) : createJsonIntake({ limits })
    const checkRetained = (intake: BatchIntake): void => {
      const { retainedBytes, bytesReceived } = intake.progress
      if (retainedBytes > Math.min(bytesReceived, limits.maxBytes!) + RETAINED_SLACK || retainedBytes < 0) overRetained++
    }
    let whole: string
    let cut: string
    try {
      whole = outcomeKey(ingest(create(), [body], checkRetained))
      cut = outcomeKey(ingest(create(), randomSplit(body, random, 1 + randomInteger(random, 20)), checkRetained))
    } catch (error) {
      // Not an ODataError: a bug. Name the mutant so that it can be replayed.
      t.fail(`${format} seed ${seed} mutant ${mutant} of ${source.name} threw ${String(error)}`, { body: body.toString('latin1') })
      return
    }
    // A JSON body both too large and corrupt is answered by whichever shows first: the corrupt byte
    // when it comes in an earlier chunk than the one that passes maxBytes (no Content-Length to tell).
    const sizeRace = format === 'json' && body.length > limits.maxBytes! && /^BatchTooLarge/.test(whole) !== /^BatchTooLarge/.test(cut)
    if (whole !== cut && !(sizeRace && /^(BatchTooLarge|BatchMalformed)/.test(whole) && /^(BatchTooLarge|BatchMalformed)/.test(cut))) {
      differentWhenCut++
      if (differentWhenCut <= 3) t.comment(`mutant ${mutant} of ${source.name}: ${whole} / cut: ${cut}`)
    }
    const code = whole.startsWith('{') ? 'accepted' : whole.slice(0, whole.indexOf(':'))
    outcomes.set(code, (outcomes.get(code) ?? 0) + 1)
    if (format === 'json' && code === 'accepted' && !isUtf8(body)) {
      acceptedNotUtf8++
      if (acceptedNotUtf8 <= 3)
        t.comment(`mutant ${mutant} of ${source.name} was accepted with bytes that are not UTF-8: ${body.toString('latin1')}`)
    }
  }
  t.equal(differentWhenCut, 0, `${format}: the same outcome whole and cut into random chunks`)
  t.equal(overRetained, 0, `${format}: never more retained than received (and than maxBytes)`)
  t.equal(acceptedNotUtf8, 0, `${format}: no batch accepted with bytes that are not UTF-8`)
  t.comment(`${format} outcomes: ${JSON.stringify(Object.fromEntries(outcomes))}`)
  if (format === 'json' && invalidUtf8) {
    t.ok(
      (outcomes.get('BatchMalformed') ?? 0) > 0 && outcomes.get('accepted') === undefined,
      `${format}: every mutant with bytes that are not UTF-8 is refused`,
    )
  } else {
    t.ok(
      (outcomes.get('BatchMalformed') ?? 0) > 0 && (outcomes.get('accepted') ?? 0) > 0,
      `${format}: the mutants reach both acceptance and refusal`,
    )
  }
}

t.test('multipart mutants', async (t) => {
  const started = Date.now()
  fuzz(t, 'multipart', multipartSources(), 0xbadc0de)
  t.comment(`${MUTANTS_PER_FORMAT} multipart mutants in ${Date.now() - started} ms`)
})

t.test('JSON mutants', async (t) => {
  const started = Date.now()
  fuzz(t, 'json', jsonSources(), 0xfeed)
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'no mutant polluted Object.prototype')
  t.comment(`${MUTANTS_PER_FORMAT} JSON mutants in ${Date.now() - started} ms`)
})

t.test('multipart mutants with bytes that are not UTF-8', async (t) => {
  const started = Date.now()
  fuzz(t, 'multipart', multipartSources(), 0x0bad_f8, true)
  t.comment(`${MUTANTS_PER_FORMAT} multipart mutants in ${Date.now() - started} ms`)
})

t.test('JSON mutants with bytes that are not UTF-8', async (t) => {
  const started = Date.now()
  fuzz(t, 'json', jsonSources(), 0x0bad_f8 + 1, true)
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'no mutant polluted Object.prototype')
  t.comment(`${MUTANTS_PER_FORMAT} JSON mutants in ${Date.now() - started} ms`)
})
