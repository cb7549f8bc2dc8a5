// Benchmark of the `$batch` intake against the physical limit of the same work, in the same run
// (docs/architecture.md, performance posture): these machines are shared and noisy, the ratio is what counts.
//
//   multipart intake, 64 KB chunks   vs  Buffer.indexOf scan for the boundary over the same bytes
//     also: the refusal path (too many top-level parts: counted, not parsed), countTopLevelParts,
//     streamsearch's scan alone, and the multipart intake with streamsearch as its delimiter search
//     (perf/support/streamsearch-delimiter-search.ts) against the intake as it is (Buffer.indexOf)
//   JSON intake, 64 KB chunks        vs  JSON.parse of the same bytes
//   peak memory growth while ingesting one body, as a multiple of its size
//
// Run: node build/perf/batch-intake.bench.js  (inputs are built before any timing; each figure is the
// median of several runs after a warm-up).

import { setFlagsFromString } from 'node:v8'
import { runInNewContext } from 'node:vm'
import StreamSearch from 'streamsearch'
import type { BatchIntake } from '../src/batch/intake/batch-intake.js'
import { type OperationSpec, buildJsonBatch, buildMultipartBatch } from '../src/tools/shared/batch-body.js'
import { countTopLevelParts } from '../src/batch/intake/multipart/count-top-level-parts.js'
import { createJsonIntake } from '../src/batch/intake/json/json-intake.js'
import { createMultipartIntake } from '../src/batch/intake/multipart/multipart-intake.js'
import { searchDelimitersWithStreamSearch } from './support/streamsearch-delimiter-search.js'
import { fullOutcomeKey, ingest } from '../test/batch/intake/intake-harness.js'

const TARGET_BYTES = 10 * 1_048_576
const CHUNK_BYTES = 64 * 1024
const RUNS = 15
// Enough for the JavaScript compiler to reach its optimised tier.
const WARM_UP_RUNS = 12

setFlagsFromString('--expose-gc')
const collectGarbage = runInNewContext('gc') as () => void

/** Operations like the service's clients send: documents with table parts, grouped in change sets. */
function sampleOperations(count: number): OperationSpec[] {
  const operations: OperationSpec[] = []
  for (let index = 0; index < count; index++) {
    const inChangeSet = index % 10 >= 6 // four of every ten operations in a change set
    const body = {
      Date: '2024-01-01T00:00:00',
      Number: `INV-${index}`,
      Comment: `Поставка по договору № ${index}`,
      Amount: index * 1.25,
      Posted: false,
      Goods: Array.from({ length: 5 }, (_, line) => ({
        LineNumber: line + 1,
        Item_Key: `6f1e2d3c-0000-4000-8000-${String(index).padStart(12, '0')}`,
        Quantity: line + 1,
        Price: 9.99,
      })),
    }
    const operation: OperationSpec = inChangeSet
      ? {
          method: 'POST',
          url: 'Document_Invoice',
          headers: { 'Content-Type': 'application/json', Prefer: 'return=minimal' },
          body,
          id: String(index),
          atomicityGroup: `g${Math.floor(index / 10)}`,
        }
      : index % 10 < 3
        ? { method: 'GET', url: `Document_Invoice?$filter=Number%20eq%20'INV-${index}'&$top=10`, headers: { Accept: 'application/json' } }
        : {
            method: 'PATCH',
            url: `Document_Invoice(guid'6f1e2d3c-0000-4000-8000-${String(index).padStart(12, '0')}')`,
            headers: { 'Content-Type': 'application/json', 'If-Match': '*' },
            body,
            id: String(index),
          }
    operations.push(operation)
  }
  return operations
}

/** Enough operations for a multipart body of about `targetBytes`. */
function operationsForSize(targetBytes: number): OperationSpec[] {
  const probe = 1000
  const probeBytes = buildMultipartBatch(sampleOperations(probe)).body.length
  return sampleOperations(Math.round((probe * targetBytes) / probeBytes))
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)]
}

function milliseconds(run: () => unknown): number {
  const started = process.hrtime.bigint()
  run()
  return Number(process.hrtime.bigint() - started) / 1e6
}

interface Comparison {
  readonly ours: number
  readonly baseline: number
  readonly ratio: number
}

/**
 * Runs ours and the baseline back to back, round after round, and keeps the median of each and of
 * the per-round ratios: on a shared machine the load changes between rounds, rarely within one.
 */
function compare(ours: () => unknown, baseline: () => unknown): Comparison {
  for (let warmUp = 0; warmUp < WARM_UP_RUNS; warmUp++) {
    ours()
    baseline()
  }
  const oursTimes: number[] = []
  const baselineTimes: number[] = []
  const ratios: number[] = []
  // No forced garbage collection between runs: a full collection may drop optimised code, and the
  // re-warming would be charged to the JavaScript side only.
  for (let round = 0; round < RUNS; round++) {
    const baselineTime = milliseconds(baseline)
    const oursTime = milliseconds(ours)
    oursTimes.push(oursTime)
    baselineTimes.push(baselineTime)
    ratios.push(baselineTime / oursTime)
  }
  return { ours: median(oursTimes), baseline: median(baselineTimes), ratio: median(ratios) }
}

/** Reads the body in chunks, then releases the document as the service does once the batch has run. */
function feed(intake: BatchIntake, body: Buffer, onChunk?: () => void): void {
  for (let offset = 0; offset < body.length; offset += CHUNK_BYTES) {
    intake.push(body.subarray(offset, offset + CHUNK_BYTES))
    onChunk?.()
  }
  intake.end().release()
}

/** The refusal path: a body with too many top-level parts is counted to the end, nothing parsed. */
function feedRefused(body: Buffer): void {
  try {
    feed(createMultipartIntake({ boundary, limits: { maxBytes: limits.maxBytes, maxOperations: 1 } }), body)
  } catch {
    return
  }
  throw new Error('the batch was expected to be refused')
}

function megabytesPerSecond(bytes: number, milliseconds: number): number {
  return bytes / 1_048_576 / (milliseconds / 1000)
}

/** `target` undefined: a figure for context (the multipart intake's goal is its share of batch-ingest's time per batch). */
function report(name: string, bytes: number, result: Comparison, baselineName: string, target?: number): void {
  console.log(
    `${name.padEnd(34)} ${megabytesPerSecond(bytes, result.ours).toFixed(0).padStart(6)} MB/s   ` +
      `${baselineName.padEnd(22)} ${megabytesPerSecond(bytes, result.baseline).toFixed(0).padStart(6)} MB/s   ` +
      `ratio ${result.ratio.toFixed(2)}${target === undefined ? '' : ` (target ≥ ${target})`}`,
  )
}

/**
 * Peak growth of the heap plus memory outside it (array buffers, which Node counts as external) while
 * one body is ingested, as a multiple of its size.
 */
function peakMemoryMultiple(body: Buffer, createIntake: () => BatchIntake): number {
  collectGarbage()
  const footprint = (): number => {
    const usage = process.memoryUsage()
    return usage.heapUsed + usage.external
  }
  const before = footprint()
  let peak = before
  const intake = createIntake()
  feed(intake, body, () => {
    peak = Math.max(peak, footprint())
  })
  peak = Math.max(peak, footprint())
  return (peak - before) / body.length
}

const operations = operationsForSize(TARGET_BYTES)
const multipart = buildMultipartBatch(operations)
const json = buildJsonBatch(operations)
const boundary = multipart.boundary!
const limits = { maxBytes: Math.max(multipart.body.length, json.body.length), maxOperations: operations.length }
console.log(
  `${operations.length} operations; multipart body ${(multipart.body.length / 1_048_576).toFixed(1)} MB, ` +
    `JSON body ${(json.body.length / 1_048_576).toFixed(1)} MB, chunks of ${CHUNK_BYTES / 1024} KB\n`,
)

const multipartMemory = peakMemoryMultiple(multipart.body, () => createMultipartIntake({ boundary, limits }))

// Multipart against the boundary scan.
const needle = Buffer.from(`\r\n--${boundary}`, 'latin1')
let delimiters = 0
const indexOfScan = (): void => {
  delimiters = 0
  for (
    let position = multipart.body.indexOf(needle);
    position !== -1;
    position = multipart.body.indexOf(needle, position + needle.length)
  ) {
    delimiters++
  }
}
const streamSearchScan = (): void => {
  const search = new StreamSearch(needle, () => undefined)
  for (let offset = 0; offset < multipart.body.length; offset += CHUNK_BYTES)
    search.push(multipart.body.subarray(offset, offset + CHUNK_BYTES))
}
const bytes = multipart.body.length
const intakeAsItIs = compare(() => feed(createMultipartIntake({ boundary, limits }), multipart.body), indexOfScan)
report('multipart intake', bytes, intakeAsItIs, 'Buffer.indexOf scan')
report(
  '  refusal path (count only)',
  bytes,
  compare(() => feedRefused(multipart.body), indexOfScan),
  'Buffer.indexOf scan',
  0.5,
)
report(
  '  countTopLevelParts',
  bytes,
  compare(() => countTopLevelParts(multipart.body, boundary), indexOfScan),
  'Buffer.indexOf scan',
  0.5,
)
report('  streamsearch scan alone', bytes, compare(streamSearchScan, indexOfScan), 'Buffer.indexOf scan', 0.5)

// The intake with streamsearch as its delimiter search against the intake as it is, rounds alternating.
// Both must give the same document, cut into the same chunks.
const chunksOf = (body: Buffer): Buffer[] =>
  Array.from({ length: Math.ceil(body.length / CHUNK_BYTES) }, (_, index) => body.subarray(index * CHUNK_BYTES, (index + 1) * CHUNK_BYTES))
const verdictWith = (streamSearch: boolean): string => {
  searchDelimitersWithStreamSearch(streamSearch)
  try {
    return fullOutcomeKey(ingest(createMultipartIntake({ boundary, limits }), chunksOf(multipart.body)))
  } finally {
    searchDelimitersWithStreamSearch(false)
  }
}
if (verdictWith(true) !== verdictWith(false)) throw new Error('the intake with streamsearch read another document')
const withStreamSearch = compare(
  () => {
    searchDelimitersWithStreamSearch(true)
    feed(createMultipartIntake({ boundary, limits }), multipart.body)
    searchDelimitersWithStreamSearch(false)
  },
  () => feed(createMultipartIntake({ boundary, limits }), multipart.body),
)
console.log(
  `  multipart intake with streamsearch ${megabytesPerSecond(bytes, withStreamSearch.ours).toFixed(0)} MB/s, with Buffer.indexOf ` +
    `${megabytesPerSecond(bytes, withStreamSearch.baseline).toFixed(0)} MB/s (ratio ${withStreamSearch.ratio.toFixed(2)}: the time with Buffer.indexOf / with streamsearch)`,
)
// Context, not a target: a scan builds nothing, while the intake copies the body once, checks every
// head byte by byte and builds one small object per operation (its strings and body view are made when
// read). JSON.parse of the same operations as a JSON batch builds every value at once: it shows what
// reading the document costs by comparison.
const documentBuilding = compare(
  () => feed(createMultipartIntake({ boundary, limits }), multipart.body),
  () => JSON.parse(json.body.toString('utf8')),
)
console.log(
  `  multipart intake ${documentBuilding.ours.toFixed(1)} ms against JSON.parse of the same operations as JSON ` +
    `${documentBuilding.baseline.toFixed(1)} ms (ratio ${documentBuilding.ratio.toFixed(2)})`,
)

// JSON against JSON.parse.
report(
  'JSON intake',
  json.body.length,
  compare(
    () => feed(createJsonIntake({ limits }), json.body),
    () => JSON.parse(json.body.toString('utf8')),
  ),
  'JSON.parse',
  0.15,
)

console.log(
  `\npeak memory growth while ingesting: multipart ${multipartMemory.toFixed(2)}× the body; ` +
    `JSON ${peakMemoryMultiple(json.body, () => createJsonIntake({ limits })).toFixed(2)}× the body`,
)
if (delimiters === 0) throw new Error('the benchmark body has no delimiters')
