// Shared helpers of the intake tests: corpus access, chunking, a seeded random source, and a plain
// summary of a BatchDocument that `t.same` can compare. (Not a test file: tap lists it as skipped.)

import { existsSync, readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import type t from 'tap'
import { ODataError } from '../../../src/errors.js'
import type { BatchDocument, BatchItem, BatchOperation } from '../../../src/batch/intake/batch-document.js'
import type { BatchIntake } from '../../../src/batch/intake/batch-intake.js'
import { boundaryFromContentType } from '../../../src/batch/intake/content-type.js'
import { loadWireCases, substitute } from '../../support/wire-case.js'

/** A tap test or subtest, for helpers that make assertions. */
export type TapTest = Parameters<Parameters<typeof t.test>[0]>[0]

/** The shared corpus, next to the project (tests run with the project root as cwd). */
export const CORPUS_ROOT = path.resolve('../shared/corpus')

export function corpusFile(relativePath: string): Buffer | undefined {
  const file = path.join(CORPUS_ROOT, relativePath)
  return existsSync(file) ? readFileSync(file) : undefined
}

export interface MultipartSample {
  readonly name: string
  readonly body: Buffer
  readonly boundary: string
}

/**
 * A multipart request from the corpus. The standard's examples are whole HTTP messages: the boundary
 * is in their Content-Type and the body follows the blank line. Olingo's files are bodies only: the
 * boundary is the first line without its `--` (INDEX.md).
 */
export function multipartSample(relativePath: string): MultipartSample | undefined {
  const bytes = corpusFile(relativePath)
  if (bytes === undefined) return undefined
  const text = bytes.toString('latin1')
  if (/^[A-Z]+ \S+ HTTP\/1\.1\r?\n/.test(text)) {
    const headEnd = text.indexOf('\r\n\r\n')
    const boundary = /boundary=([^\r\n;]+)/i.exec(text.slice(0, headEnd))?.[1]
    if (boundary === undefined) throw new Error(`${relativePath}: no boundary in the HTTP head`)
    return { name: relativePath, body: bytes.subarray(headEnd + 4), boundary }
  }
  const firstLine = /^--([^\r\n]+)\r?\n/.exec(text)
  if (firstLine === null) throw new Error(`${relativePath}: does not open with a delimiter`)
  return { name: relativePath, body: bytes, boundary: firstLine[1] }
}

/**
 * The standard's Example 101 writes its first request line, `GET /service/Customers('ALFKI')`, without
 * the HTTP version that service.md §2.3 requires: the intake refuses the file as it is.
 */
export const EXAMPLE_101 = 'batch-spec/batch-multipart-request-1.txt'
export const EXAMPLE_101_REFUSAL =
  'Part 1: the request line "GET /service/Customers(\'ALFKI\')" has no HTTP version ("<METHOD> <url> HTTP/1.1").'

/** The sample with ` HTTP/1.1` after every request line that has no version: what the rest of the file shows stays testable. */
export function withHttpVersions(sample: MultipartSample): MultipartSample {
  const text = sample.body.toString('latin1').replace(/^([A-Z]+ [^ \r\n]+)(\r?\n)/gm, '$1 HTTP/1.1$2')
  return { name: `${sample.name} with its HTTP versions`, body: Buffer.from(text, 'latin1'), boundary: sample.boundary }
}

/** The multipart request files of the corpus: the standard's examples and Olingo's request vectors (not its responses). */
export function multipartRequestFiles(): string[] {
  const files = ['batch-spec/batch-multipart-request-1.txt', 'batch-spec/batch-multipart-request-2.txt']
  for (const folder of ['batch-peers/olingo-odata4', 'batch-peers/olingo-odata2']) {
    const directory = path.join(CORPUS_ROOT, folder)
    if (!existsSync(directory)) continue
    for (const name of readdirSync(directory).sort()) {
      if (name.endsWith('.batch') && !/response/i.test(name)) files.push(`${folder}/${name}`)
    }
  }
  return files
}

/**
 * Every multipart body the corpus tests read: the request files; Olingo's two response files with the
 * status line made a request line (they test body framing); the standard's request-line fragments
 * wrapped in a batch. Files absent from the corpus are left out.
 */
export function corpusMultipartSamples(): MultipartSample[] {
  const samples: MultipartSample[] = []
  for (const file of multipartRequestFiles()) {
    const sample = multipartSample(file)
    if (sample !== undefined) samples.push(sample)
  }
  for (const file of [
    'batch-peers/olingo-odata2/BatchResponseWithAdditionalLineEnding.batch',
    'batch-peers/olingo-odata2/BatchResponseWithLinesInBodyWin.batch',
  ]) {
    const sample = multipartSample(file)
    if (sample === undefined) continue
    const asRequest = Buffer.from(
      sample.body.toString('latin1').replace('HTTP/1.1 500 Internal Server Error', 'POST Errors HTTP/1.1'),
      'latin1',
    )
    samples.push({ name: `${file} as a request`, body: asRequest, boundary: sample.boundary })
  }
  for (const file of [
    'batch-spec/batch-multipart-fragment-1-url-absolute.txt',
    'batch-spec/batch-multipart-fragment-2-url-absolute-path-host.txt',
  ]) {
    const fragment = corpusFile(file)
    if (fragment === undefined) continue
    // The corpus README: "append an empty line to make a complete application/http request".
    const body = Buffer.concat([
      Buffer.from('--b\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n'),
      fragment,
      Buffer.from('\r\n\r\n--b--\r\n'),
    ])
    samples.push({ name: `${file} in a batch`, body, boundary: 'b' })
  }
  return samples
}

/**
 * What a `${name}` of a batch wire case stands for when no service runs: a GUID of the right shape, so
 * that a body reads the same as against the service (test/batch/protocol-cases.test.ts).
 */
export const STAND_IN_VALUE = '00000000-0000-4000-8000-000000000001'

export interface BatchBody {
  readonly name: string
  readonly contentType: string
  readonly body: Buffer
  /** The whole-batch error code the case expects, if any. */
  readonly errorCode: string | undefined
}

/** The `$batch` bodies of the wire cases (protocol/batch, format in protocol/README.md), named by their case. */
export function batchBodies(): BatchBody[] {
  return loadWireCases('batch').flatMap((wireCase) =>
    wireCase.steps
      .filter((step) => step.request.path === '$batch' && step.request.bodyText !== undefined)
      .map((step) => {
        const contentType = Object.entries(step.request.headers ?? {}).find(([name]) => name.toLowerCase() === 'content-type')?.[1]
        if (contentType === undefined) throw new Error(`${wireCase.file}: a $batch request without Content-Type`)
        return {
          name: wireCase.steps.length > 1 ? `${wireCase.description}: ${step.name}` : wireCase.description,
          contentType,
          body: Buffer.from(substitute(step.request.bodyText, () => STAND_IN_VALUE) as string, 'utf8'),
          errorCode: step.expect.error?.code as string | undefined,
        }
      }),
  )
}

/** The multipart bodies of the wire cases, named by their case. */
export function multipartProtocolCases(): MultipartSample[] {
  return batchBodies()
    .filter((batch) => /^multipart\//i.test(batch.contentType))
    .map((batch) => ({ name: `protocol case "${batch.name}"`, body: batch.body, boundary: boundaryFromContentType(batch.contentType) }))
}

/** The suite's seeded generator (test/support/seeded-random.ts), so that every failure can be replayed. */
export { mulberry32 as seededRandom } from '../../support/seeded-random.js'

export function randomInteger(random: () => number, below: number): number {
  return Math.floor(random() * below)
}

/** The body cut at the given positions (sorted, inside the body). */
export function splitAt(body: Buffer, positions: readonly number[]): Buffer[] {
  const chunks: Buffer[] = []
  let previous = 0
  for (const position of positions) {
    chunks.push(body.subarray(previous, position))
    previous = position
  }
  chunks.push(body.subarray(previous))
  return chunks
}

/** The body cut into `count` chunks at random places (some of them empty). */
export function randomSplit(body: Buffer, random: () => number, count: number): Buffer[] {
  const positions = Array.from({ length: count - 1 }, () => randomInteger(random, body.length + 1)).sort((a, b) => a - b)
  return splitAt(body, positions)
}

/**
 * Copies every chunk into a fresh buffer and wipes it after the push, as a uWS ArrayBuffer is only
 * valid during `onData`: a test then fails if the intake kept a view instead of a copy.
 */
export function pushVolatile(intake: BatchIntake, chunk: Buffer): void {
  const volatile = new Uint8Array(chunk.length)
  volatile.set(chunk)
  try {
    intake.push(volatile)
  } finally {
    volatile.fill(0x7e)
  }
}

export type Outcome =
  | { readonly document: BatchDocument; readonly error?: undefined }
  | { readonly document?: undefined; readonly error: ODataError }

/** Pushes the chunks and ends; an ODataError is the outcome, anything else is rethrown (a bug). */
export function ingest(intake: BatchIntake, chunks: readonly Buffer[], onPushed?: (intake: BatchIntake) => void): Outcome {
  try {
    for (const chunk of chunks) {
      pushVolatile(intake, chunk)
      onPushed?.(intake)
    }
    return { document: intake.end() }
  } catch (error) {
    if (error instanceof ODataError) return { error }
    throw error
  }
}

export interface OperationSummary {
  index: number
  method: string
  url: string
  headers: Record<string, string>
  body: string | unknown
  id: string | undefined
  atomicityGroup: string | undefined
  dependsOn: string[]
}

export type ItemSummary = OperationSummary | { changeSet: string | null; operations: OperationSummary[] }

/** A plain, comparable picture of a document (bodies as latin1 text, so any byte compares exactly). */
export function summarize(document: BatchDocument): { format: string; items: ItemSummary[]; operations: number } {
  return {
    format: document.format,
    items: document.items.map(summarizeItem),
    operations: document.operations.length,
  }
}

function summarizeItem(item: BatchItem): ItemSummary {
  return item.kind === 'operation'
    ? summarizeOperation(item)
    : { changeSet: item.atomicityGroup ?? null, operations: item.operations.map(summarizeOperation) }
}

export function summarizeOperation(operation: BatchOperation): OperationSummary {
  return {
    index: operation.index,
    method: operation.method,
    url: operation.url,
    headers: Object.fromEntries(operation.headers),
    body:
      operation.body === undefined
        ? undefined
        : operation.body.kind === 'bytes'
          ? operation.body.bytes.toString('latin1')
          : operation.body.value,
    id: operation.id,
    atomicityGroup: operation.atomicityGroup,
    dependsOn: [...operation.dependsOn],
  }
}

/** A short description of an outcome, for comparing outcomes of differently chunked bodies. */
export function outcomeKey(outcome: Outcome): string {
  return outcome.error !== undefined ? `${outcome.error.code}: ${outcome.error.message}` : JSON.stringify(summarize(outcome.document))
}

/** outcomeKey with the error's HTTP status and the document's byte length: everything an intake answers. */
export function fullOutcomeKey(outcome: Outcome): string {
  return outcome.error !== undefined
    ? `${outcome.error.status} ${outcomeKey(outcome)}`
    : `${outcome.document.byteLength} bytes ${outcomeKey(outcome)}`
}
