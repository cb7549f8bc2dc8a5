// `POST …/v4/$batch`: the body streams from uWS `onData` into the intake, which counts bytes and parts as
// they pass; then the plan, then sequential execution, then the response, streamed as steps complete.
// Checks run in the order of decisions.md §7, and nothing executes until all of them pass:
// method (405) → flavour (501) → size by Content-Length (413, before reading) → OData-MaxVersion of a
// JSON batch (400) → media type (415) → body: running size (413), part count (400), parsing (400) →
// operation count and structure (400) → rate rules (429).
import type { HttpResponse } from 'uWebSockets.js'
import pLimit from 'p-limit'
import { ODataError } from '../errors.js'
import { createBatchIntake, type BatchIntake } from '../batch/intake/index.js'
import { planBatch } from '../batch/plan/plan-batch.js'
import { executeBatch } from '../batch/execute/execute-batch.js'
import { createBatchRuntime } from '../batch/execute/connection-runtime.js'
import { MultipartBatchWriter } from '../batch/respond/multipart-batch-writer.js'
import { JsonBatchWriter } from '../batch/respond/json-batch-writer.js'
import { CollectingSink } from '../batch/execute/collecting-sink.js'
import type { BatchResultWriter, OperationOutcome } from '../batch/execute/execute-batch.js'
import { consumeRate, rateLimited } from '../limits/rate-limiter.js'
import { shouldLog, type RequestLogEntry } from '../log/request-log.js'
import { randomUUID } from 'node:crypto'
import type { SubjectModel } from '../model/model.js'
import type { ServiceContext } from '../service/service-context.js'
import type { Flavour } from '../model/flavour.js'
import type { Responder } from './responder.js'

/** The body bytes a refused batch had delivered when it was refused: lets tests prove reading stopped. */
export const batchIntakeStatistics = { bytesReadAtRefusal: 0 }

/** Batches running at once in this process: more queue here instead of exhausting connections and memory. */
const BATCHES_AT_ONCE = 4
const batchSlots = pLimit(BATCHES_AT_ONCE)

export interface BatchRequest {
  readonly res: HttpResponse
  readonly responder: Responder
  readonly method: string
  readonly headers: ReadonlyMap<string, string>
  readonly subject: SubjectModel
  readonly flavour: Flavour
  readonly serviceRoot: string
  /** This batch's own root paths (`/api/v4/`, and `/api/t/<token>/v4/` when the token came in the path). */
  readonly ownRoots: readonly string[]
  /** The request URL as received (the log stores it without credentials). */
  readonly url: string
}

/** Per operation, what the request log records: its status, or 424 for members of a rolled-back change set. */
class OutcomeRecorder implements BatchResultWriter {
  readonly entries: { outcome: OperationOutcome; status: number }[] = []
  constructor(private readonly inner: BatchResultWriter) {}
  operation(outcome: OperationOutcome): void {
    this.entries.push({ outcome, status: outcome.response.status })
    this.inner.operation(outcome)
  }
  changeSet(step: Parameters<BatchResultWriter['changeSet']>[0], outcomes: readonly OperationOutcome[], failed: OperationOutcome | undefined): void {
    for (const outcome of outcomes) this.entries.push({ outcome, status: failed && failed !== outcome ? 424 : outcome.response.status })
    if (failed && !outcomes.includes(failed)) this.entries.push({ outcome: failed, status: failed.response.status })
    this.inner.changeSet(step, outcomes, failed)
  }
}

/** `Prefer: odata.continue-on-error` (4.0) or `continue-on-error` (4.01); `=false` turns it off. Returns the spelling used. */
export function continueOnErrorPreference(prefer: string | undefined): string | undefined {
  if (!prefer) return undefined
  for (const raw of prefer.split(',')) {
    const preference = raw.trim()
    const [name, value] = preference.split('=', 2).map((s) => s.trim().toLowerCase())
    if ((name === 'odata.continue-on-error' || name === 'continue-on-error') && value !== 'false') return preference
  }
  return undefined
}

/** `OData-MaxVersion: 4.0` is below 4.01; absent is accepted (decisions.md §7). */
function maxVersionBelow401(value: string | undefined): boolean {
  if (value === undefined) return false
  const match = /^\s*(\d+)\.(\d+)\s*$/.exec(value)
  if (!match) return false
  const major = Number(match[1]), minor = Number(match[2])
  return major < 4 || (major === 4 && minor < 1)
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase()
}

export function handleBatch(context: ServiceContext, request: BatchRequest): void {
  const { res, responder, headers } = request
  const fail = (error: unknown) => {
    if (responder.done) return
    const odataError = error instanceof ODataError ? error : new ODataError('InternalError', 'The batch failed')
    responder.sendError(odataError)
  }
  /**
   * Refuses a batch whose body is still arriving, and reads no more of it. uWS is paused first: closing
   * the socket at once would make the kernel reset the connection with unread data in its buffer, and
   * the client, still sending, would lose the answer; ending the response without pausing would make
   * uWS parse the rest of the body as a next request. Paused, the client reads a whole 413 and the idle
   * connection is closed by uWS's timeout or by the client.
   */
  const refuseAndStopReading = (error: unknown, bytesRead: number) => {
    batchIntakeStatistics.bytesReadAtRefusal = bytesRead
    res.pause()
    if (responder.done) return
    const odataError = error instanceof ODataError ? error : new ODataError('InternalError', 'The batch failed')
    responder.sendError(new ODataError(odataError.code, odataError.message, { target: odataError.target, details: odataError.details, headers: { ...odataError.headers, Connection: 'close' } }))
  }
  if (request.method === 'OPTIONS') return responder.send(204, { Allow: 'POST, OPTIONS' })
  if (request.method !== 'POST') {
    return refuseAndStopReading(new ODataError('MethodNotAllowed', `${request.method} is not allowed on $batch; allowed: POST, OPTIONS`, { headers: { Allow: 'POST, OPTIONS' } }), 0)
  }
  if (request.flavour === 'reference') return refuseAndStopReading(new ODataError('BatchNotSupported', '$batch is not available on the reference flavour; use the token-path root'), 0)

  const settings = context.settings.current
  const maxBytes = Math.floor(settings.maxBatchSizeMB * 1_048_576)
  const declared = headers.get('content-length')
  if (declared !== undefined && Number(declared) > maxBytes) {
    // decisions.md §7: refused before the body is read, and none of it will be.
    return refuseAndStopReading(new ODataError('BatchTooLarge', `The batch has ${declared} bytes; at most ${maxBytes} (${settings.maxBatchSizeMB} MB) are allowed`), 0)
  }
  const contentType = headers.get('content-type')
  if (mediaType(contentType) === 'application/json' && maxVersionBelow401(headers.get('odata-maxversion'))) {
    return refuseAndStopReading(new ODataError('BatchVersionTooLow', 'A JSON batch needs OData-MaxVersion 4.01 or higher; an OData 4.0 client sends multipart/mixed'), 0)
  }
  const profileLimit = request.subject.profile.maxBatchOperations
  const maxOperations = Math.min(settings.maxBatchOperations, profileLimit ?? Number.MAX_SAFE_INTEGER)
  let intake: BatchIntake
  try {
    const declaredBytes = declared === undefined ? undefined : Number(declared)
    intake = createBatchIntake(contentType, { maxBytes, maxOperations }, Number.isSafeInteger(declaredBytes) ? declaredBytes : undefined)
  } catch (error) {
    return refuseAndStopReading(error, 0)
  }

  let stopped = false
  res.onData((chunk, isLast) => {
    if (stopped || responder.aborted) return
    try {
      intake.push(new Uint8Array(chunk))
      if (!isLast) return
      stopped = true
      const document = intake.end()
      // Once the batch has run and its answer is written, the document's memory serves the next batch.
      run(document)
        .catch((error: unknown) => fail(error))
        .finally(() => document.release())
    } catch (error) {
      stopped = true
      // Over the size limit, or corrupt JSON, mid-stream: answer now; the rest of the body is never read.
      if (isLast) fail(error)
      else refuseAndStopReading(error, intake.progress.bytesReceived)
    }
  })

  const run = async (document: ReturnType<BatchIntake['end']>) => {
    const started = performance.now()
    const host = headers.get('host') ?? ''
    const plan = planBatch(document, {
      host,
      ownRoots: request.ownRoots,
      knownMounts: [context.model.mounts.reference, context.model.mounts.token],
      maxOperations,
      profileName: request.subject.profile.name,
    })
    // Rate rules come last among the checks (decisions.md §7): every operation counts.
    const decision = await consumeRate(context.pool, request.subject, plan.operationCount)
    if (!decision.allowed) throw rateLimited(decision, plan.operationCount)

    const continueOnError = continueOnErrorPreference(headers.get('prefer'))
    const responseHeaders: Record<string, string> = continueOnError ? { 'Preference-Applied': continueOnError } : {}
    const level = context.settings.current.logLevel
    const writesAnything = document.operations.some((o) => o.method !== 'GET' && o.method !== 'HEAD')
    // With logging on, the response waits for the log: a log failure must still be answerable (500 LogWriteFailed).
    const logging = level === 'all' || level === 'errors' || (level === 'writes' && writesAnything)
    const output = logging ? new CollectingSink(responder) : responder
    const formatWriter = document.format === 'multipart' ? new MultipartBatchWriter(output, responseHeaders) : new JsonBatchWriter(output, responseHeaders)
    const recorder = new OutcomeRecorder(formatWriter)
    await batchSlots(() =>
      executeBatch(
        plan,
        { model: context.model, subject: request.subject, flavour: request.flavour, serviceRoot: request.serviceRoot, continueOnError: continueOnError !== undefined, outer: responder },
        createBatchRuntime(context),
        recorder,
      ),
    )
    if (responder.done) return
    formatWriter.finish()
    if (!(output instanceof CollectingSink)) return

    const batchId = randomUUID()
    const base = { at: new Date(), subject: request.subject.name, profile: request.subject.profile.name, batchId }
    const entries: RequestLogEntry[] = []
    const batchEntry: RequestLogEntry = { ...base, method: 'POST', url: request.url, status: 200, durationMs: performance.now() - started, operations: plan.operationCount }
    if (shouldLog(level, 'POST', 200) && (level !== 'writes' || writesAnything)) entries.push(batchEntry)
    for (const { outcome, status } of recorder.entries) {
      const operation = outcome.planned.operation
      if (!shouldLog(level, operation.method, status)) continue
      const rolledBack = status === 424 && outcome.response.status !== 424
      const errorCode = rolledBack ? 'FailedDependency' : status >= 400 ? (/"code":"(\w+)"/.exec(outcome.response.body)?.[1] ?? undefined) : undefined
      entries.push({ ...base, method: operation.method, url: operation.url, status, durationMs: 0, contentId: operation.id, errorCode })
    }
    if (level === 'errors' && entries.length > 0 && !entries.includes(batchEntry)) entries.unshift(batchEntry)
    try {
      await context.requestLog.writeBatch(entries)
    } catch {
      // service.md §7: the operations are committed; say which ran, so the client can reconcile.
      const details = recorder.entries.map(({ outcome, status }) => ({ code: String(status), message: `${outcome.planned.operation.method} ${outcome.planned.operation.url}`, target: outcome.planned.operation.id ?? String(outcome.planned.operation.index + 1) }))
      return fail(new ODataError('LogWriteFailed', 'The batch ran, but the request log could not be written; its operations are committed as listed in details', { details }))
    }
    const result = output.result()
    responder.send(result.status, result.headers, result.body)
  }
}
