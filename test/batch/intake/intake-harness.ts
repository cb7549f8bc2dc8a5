// Shared helpers of the intake tests: the bodies of the wire cases, chunking at random points, and a plain
// summary of a BatchDocument that `t.same` can compare. (Not a test file: tap lists it as skipped.)

import { readFileSync, readdirSync } from 'node:fs'
import path from 'node:path'
import type t from 'tap'
import { ODataError } from '../../../src/errors.js'
import type { BatchDocument, BatchItem, BatchOperation } from '../../../src/batch/intake/batch-document.js'
import type { BatchIntake } from '../../../src/batch/intake/batch-intake.js'
import { boundaryFromContentType } from '../../../src/batch/intake/content-type.js'
import { loadWireCases, substitute } from '../../support/wire-case.js'

/** A tap test or subtest, for helpers that make assertions. */
export type TapTest = Parameters<Parameters<typeof t.test>[0]>[0]

export interface MultipartSample {
  readonly name: string
  readonly body: Buffer
  readonly boundary: string
}

/** Where the bodies written in the styles of the clients the service serves lie (its README says which). */
const CLIENT_BODIES = 'test/batch/intake/client-bodies'

/** The multipart bodies of the client styles; the boundary is that of the first delimiter line. */
export function clientMultipartBodies(): MultipartSample[] {
  return readdirSync(CLIENT_BODIES)
    .filter((name) => name.endsWith('.batch'))
    .sort()
    .map((name) => {
      const body = readFileSync(path.join(CLIENT_BODIES, name))
      const boundary = /^--([^\r\n]+?)\r?$/m.exec(body.toString('latin1'))?.[1]
      if (boundary === undefined) throw new Error(`${name}: no delimiter line`)
      return { name, body, boundary }
    })
}

/** The JSON batch bodies of the client styles. */
export function clientJsonBodies(): Array<{ readonly name: string; readonly body: Buffer }> {
  return readdirSync(CLIENT_BODIES)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => ({ name, body: readFileSync(path.join(CLIENT_BODIES, name)) }))
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

/** A draw of `random` (src/seed/random.ts's `seededRandom`, so that every failure can be replayed) below `below`. */
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

/** Items as `METHOD url #id` lines, change sets as nested arrays: the shape of a document at a glance. */
export function outline(document: BatchDocument): unknown[] {
  const line = (operation: { method: string; url: string; id: string | undefined }): string =>
    `${operation.method} ${operation.url}${operation.id === undefined ? '' : ` #${operation.id}`}`
  return summarize(document).items.map((item: ItemSummary) => ('operations' in item ? item.operations.map(line) : line(item)))
}

/** An operation's body bytes as text (latin1 by default, so that any byte compares exactly), or undefined. */
export function bodyText(operation: BatchOperation, encoding: BufferEncoding = 'latin1'): string | undefined {
  return operation.body?.kind === 'bytes' ? operation.body.bytes.toString(encoding) : undefined
}
