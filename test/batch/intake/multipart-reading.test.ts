// The multipart reader on the batches clients write: every operation as built (method, URL, id, body
// bytes, change set), however the body is cut into chunks, with the same progress figures for every
// cut; every multipart body of the protocol cases and of the clients' styles (client-bodies/) with one outcome, document or error, however it is cut; and a body over maxBytes refused by
// `push` at the chunk that passes the limit, whatever the spelling and however it is cut. (Malformations
// and fuzzed bodies have tests of their own: multipart-malformed, intake-fuzz.)

import t from 'tap'
import type { BatchDocument } from '../../../src/batch/intake/batch-document.js'
import type { IntakeLimits } from '../../../src/batch/intake/intake-limits.js'
import { createMultipartIntake } from '../../../src/batch/intake/multipart/multipart-intake.js'
import { ODataError } from '../../../src/errors.js'
import { type MultipartBuildOptions, type OperationSpec, buildMultipartBatch } from '../../../src/tools/shared/batch-body.js'
import {
  clientMultipartBodies,
  fullOutcomeKey,
  ingest,
  multipartProtocolCases,
  pushVolatile,
  randomInteger,
  randomSplit,
  splitAt,
} from './intake-harness.js'
import { seededRandom } from '../../../src/seed/random.js'

const SEED = Number(process.env.FUZZ_SEED ?? 0xfa57_9a7e)

type Limits = Partial<IntakeLimits>

const BINARY = Buffer.from(Array.from({ length: 256 }, (_, index) => index))

/** Operations of every shape the builder writes: change sets, ids, JSON, text and binary bodies, none. */
const MIXED_OPERATIONS: readonly OperationSpec[] = [
  { method: 'GET', url: "People('ALFKI')?$select=Name,Age", headers: { Accept: 'application/json' } },
  { method: 'POST', url: 'People', body: { Name: 'Ann', Tags: ['a', 'b'], Note: 'ü€' }, id: '1', atomicityGroup: 'g1' },
  {
    method: 'PATCH',
    url: '$1',
    body: { Name: 'Bo' },
    id: '2',
    headers: { 'If-Match': 'W/"1"', Prefer: 'return=minimal' },
    atomicityGroup: 'g1',
  },
  { method: 'DELETE', url: 'People(9)', id: 'del' },
  { method: 'PUT', url: 'Photos(1)/$value', headers: { 'Content-Type': 'application/octet-stream' }, body: BINARY },
  { method: 'POST', url: 'Notes', body: 'line one\r\nline two\n--not a delimiter\r\n', id: 'n' },
  { method: 'GET', url: "Straße('ö')" },
  { method: 'POST', url: 'Orders', body: { Lines: [{ Qty: 1 }, { Qty: 2 }] }, id: 'o', atomicityGroup: 'g2' },
]

function chunkEnds(chunks: readonly Buffer[]): Array<number | string> {
  const ends: number[] = []
  let end = 0
  for (const chunk of chunks.slice(0, -1)) ends.push((end += chunk.length))
  return ends.length > 40 ? [...ends.slice(0, 40), `… ${ends.length} cuts`] : ends
}

/** Latin-1 in a JSON string: every byte visible and exact. */
function outline(document: BatchDocument): unknown[] {
  return document.items.flatMap((item, itemIndex) =>
    (item.kind === 'operation' ? [item] : item.operations).map((operation) => [
      operation.method,
      operation.url,
      operation.id,
      operation.body?.kind === 'bytes' ? operation.body.bytes.toString('latin1') : undefined,
      item.kind === 'operation' ? undefined : itemIndex,
    ]),
  )
}

function expectedOutline(operations: readonly OperationSpec[]): unknown[] {
  let itemIndex = -1
  return operations.map((operation, index) => {
    if (operation.atomicityGroup === undefined || operations[index - 1]?.atomicityGroup !== operation.atomicityGroup) itemIndex++
    const body =
      operation.body === undefined
        ? undefined
        : Buffer.isBuffer(operation.body)
          ? operation.body
          : Buffer.from(typeof operation.body === 'string' ? operation.body : JSON.stringify(operation.body))
    return [
      operation.method.toUpperCase(),
      operation.url,
      operation.id,
      body?.length === 0 ? undefined : body?.toString('latin1'),
      operation.atomicityGroup === undefined ? undefined : itemIndex,
    ]
  })
}

/** Single operations and change sets of up to 40 members. */
function manyOperations(count: number): OperationSpec[] {
  const operations: OperationSpec[] = []
  for (let index = 0; index < count; ) {
    const members = index % 3 === 0 ? 1 + (index % 40) : 1
    const group = members > 1 ? `g${index}` : undefined
    for (let member = 0; member < members && index < count; member++, index++) {
      operations.push(
        group === undefined && index % 2 === 0
          ? { method: 'GET', url: `Items(${index})`, headers: { Accept: 'application/json' } }
          : { method: 'POST', url: 'Items', body: { index, text: 'ü'.repeat(index % 9) }, id: `op${index}`, atomicityGroup: group },
      )
    }
  }
  return operations
}

const ORDINARY: ReadonlyArray<{ name: string; operations: readonly OperationSpec[]; options: MultipartBuildOptions; limits?: Limits }> = [
  {
    name: 'CRLF: GETs without bodies, a change set, Content-IDs, JSON bodies',
    operations: MIXED_OPERATIONS.filter((operation) => !Buffer.isBuffer(operation.body)),
    options: {},
  },
  { name: 'CRLF: binary and text bodies', operations: MIXED_OPERATIONS, options: {} },
  {
    name: 'CRLF: Content-IDs in the embedded requests (Olingo V2)',
    operations: MIXED_OPERATIONS,
    options: { contentIdPlacement: 'request' },
  },
  { name: "LF line ends (Olingo's files)", operations: MIXED_OPERATIONS, options: { lineEnding: '\n' } },
  { name: 'a single GET', operations: [{ method: 'GET', url: '$metadata' }], options: { boundary: 'b' } },
  { name: '3000 operations in change sets and alone', operations: manyOperations(3000), options: {}, limits: { maxOperations: 5000 } },
]

t.test('ordinary batches: the operations as built, the same document and progress however the body is cut', async (t) => {
  const random = seededRandom(SEED + 4)
  for (const { name, operations, options, limits = {} } of ORDINARY) {
    const built = buildMultipartBatch(operations, options)
    const boundary = built.boundary!
    const body = built.body
    const chunkings = [
      [body],
      randomSplit(body, random, 8),
      randomSplit(body, random, 200),
      splitAt(
        body,
        Array.from({ length: Math.floor(body.length / 997) }, (_, index) => (index + 1) * 997),
      ),
    ]
    const problems: string[] = []
    let first: { verdict: string; figures: string } | undefined
    for (const [index, chunks] of chunkings.entries()) {
      const intake = createMultipartIntake({ boundary, limits })
      const outcome = ingest(intake, chunks)
      const how = `chunking ${index} (${chunks.length} chunks)`
      if (outcome.error !== undefined) {
        problems.push(`${how}: ${outcome.error.message}`)
        continue
      }
      if (JSON.stringify(outline(outcome.document)) !== JSON.stringify(expectedOutline(operations)))
        problems.push(`${how}: not the operations as built`)
      const { bytesReceived, topLevelParts, operations: count, partsParsed } = intake.progress
      const figures = JSON.stringify({ bytesReceived, topLevelParts, operations: count, partsParsed })
      if (bytesReceived !== body.length || count !== operations.length)
        problems.push(`${how}: progress ${figures} for ${body.length} bytes and ${operations.length} operations`)
      first ??= { verdict: fullOutcomeKey(outcome), figures }
      if (fullOutcomeKey(outcome) !== first.verdict) problems.push(`${how}: another document than chunking 0's`)
      if (figures !== first.figures) problems.push(`${how}: progress ${figures}, chunking 0's ${first.figures}`)
      outcome.document.release()
    }
    t.same(problems, [], `${name}: the operations as built; one document and one progress for ${chunkings.length} chunkings`)
  }
})

t.test('protocol cases and client bodies: one outcome whole, cut anywhere, at random and byte by byte', async (t) => {
  const random = seededRandom(SEED + 2)
  const samples = [...multipartProtocolCases(), ...clientMultipartBodies()]
  t.ok(samples.length > 10, `${samples.length} bodies`)
  for (const sample of samples) {
    const read = (chunks: readonly Buffer[]): string =>
      fullOutcomeKey(ingest(createMultipartIntake({ boundary: sample.boundary, limits: { maxOperations: 1000 } }), chunks))
    const body = sample.body
    const whole = read([body])
    const differing: string[] = []
    const step = body.length <= 2048 ? 1 : 31
    for (let cut = 0; cut <= body.length; cut += step) if (read(splitAt(body, [cut])) !== whole) differing.push(`cut at ${cut}`)
    for (let round = 0; round < 12; round++) {
      const chunks = randomSplit(body, random, 2 + randomInteger(random, Math.min(40, body.length + 1)))
      if (read(chunks) !== whole) differing.push(`cuts ${JSON.stringify(chunkEnds(chunks))}`)
    }
    if (body.length <= 2048 && read(Array.from(body, (_, index) => body.subarray(index, index + 1))) !== whole)
      differing.push('one byte at a time')
    t.same(differing.slice(0, 5), [], `${sample.name}: ${whole.startsWith('{') ? 'a document' : whole.slice(0, 80)}, the same however cut`)
  }
})

t.test('a body over maxBytes: BatchTooLarge from push at the chunk that passes it, and the same error after', async (t) => {
  const ordinary = buildMultipartBatch(MIXED_OPERATIONS, { boundary: 'b' }).body
  const quoted = Buffer.from(ordinary.toString('latin1').replace(/boundary=(changeset_\w+)/g, 'boundary="$1"'), 'latin1')
  const bodies: Array<[string, Buffer]> = [
    ['ordinary', ordinary],
    ['quoted change-set boundaries', quoted],
    ['complete, then an epilogue', Buffer.concat([ordinary, Buffer.from('epilogue '.repeat(40))])],
    ['LF line ends', buildMultipartBatch(MIXED_OPERATIONS, { boundary: 'b', lineEnding: '\n' }).body],
  ]
  const random = seededRandom(SEED + 6)
  for (const [name, body] of bodies) {
    for (const maxBytes of [1, 40, Math.floor(body.length / 2), ordinary.length, body.length - 1]) {
      if (maxBytes >= body.length) continue
      for (const chunks of [
        splitAt(body, [maxBytes, maxBytes + 1]),
        splitAt(body, [maxBytes - 1, maxBytes]),
        randomSplit(body, random, 3 + randomInteger(random, 20)),
        [body],
      ]) {
        const intake = createMultipartIntake({ boundary: 'b', limits: { maxBytes } })
        let thrown: { index: number; error: string; again: string[]; bytesReceived: number } | undefined
        for (let index = 0; index < chunks.length && thrown === undefined; index++) {
          try {
            pushVolatile(intake, chunks[index])
          } catch (error) {
            const again = [() => intake.push(Buffer.from('x')), () => intake.end()].map((call) => {
              try {
                call()
                return 'no error'
              } catch (repeated) {
                return repeated === error ? 'the same error' : String(repeated)
              }
            })
            const { status, code, message } = error as ODataError
            thrown = {
              index,
              error: error instanceof ODataError ? `${status} ${code}: ${message}` : String(error),
              again,
              bytesReceived: intake.progress.bytesReceived,
            }
          }
        }
        const expectedIndex = chunks.findIndex((_, index) => splitTotal(chunks, index) > maxBytes)
        t.same(
          thrown && { index: thrown.index, error: thrown.error, again: thrown.again },
          {
            index: expectedIndex,
            error: `413 BatchTooLarge: The batch body is larger than ${maxBytes} bytes, the most allowed.`,
            again: ['the same error', 'the same error'],
          },
          `${name}, maxBytes ${maxBytes}, cuts ${JSON.stringify(chunkEnds(chunks))}: 413 at the chunk that passes maxBytes, the same error after`,
        )
      }
    }
  }
})

function splitTotal(chunks: readonly Buffer[], through: number): number {
  let total = 0
  for (let index = 0; index <= through; index++) total += chunks[index].length
  return total
}
