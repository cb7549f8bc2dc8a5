// `POST …/v4/$batch`: the early refusals of decisions.md §7, then the body streams from uWS `onData` into
// the intake, which counts bytes and parts as they pass; the read batch goes to the batch stage
// (src/batch/run-batch.ts: plan, rate rules, execution, answer, log). The order of the checks:
// method (405) → flavour (501) → size by Content-Length (413, before reading) → OData-MaxVersion of a
// JSON batch (400) → media type (415) → body: running size (413), part count (400), parsing (400) →
// then in the batch stage operation count and structure (400) → rate rules (429).
import type { HttpResponse } from 'uWebSockets.js'
import { ODataError } from '../errors.js'
import { createBatchIntake, type BatchIntake } from '../batch/intake/index.js'
import { logBatchRefusal } from '../batch/batch-log.js'
import { runBatch } from '../batch/run-batch.js'
import type { Flavour } from '../model/flavour.js'
import type { SubjectModel } from '../model/model.js'
import type { ServiceContext } from '../service/service-context.js'
import type { Responder } from './responder.js'

export interface BatchRequest {
  readonly res: HttpResponse
  readonly responder: Responder
  readonly method: string
  readonly headers: ReadonlyMap<string, string>
  readonly subject: SubjectModel
  readonly flavour: Flavour
  readonly serviceRoot: string
  /** The service root for links the client follows (ServiceRequest.linkRoot). */
  readonly linkRoot: string
  /** This batch's own root paths (`/api/v4/`, and `/api/t/<token>/v4/` when the token came in the path). */
  readonly ownRoots: readonly string[]
  /** The request URL as received (the log stores it without credentials). */
  readonly url: string
}

/** `OData-MaxVersion: 4.0` is below 4.01; absent is accepted (decisions.md §7). */
function maxVersionBelow401(value: string | undefined): boolean {
  if (value === undefined) return false
  const match = /^\s*(\d+)\.(\d+)\s*$/.exec(value)
  if (!match) return false
  const major = Number(match[1]),
    minor = Number(match[2])
  return major < 4 || (major === 4 && minor < 1)
}

function mediaType(contentType: string | undefined): string {
  return (contentType ?? '').split(';')[0]!.trim().toLowerCase()
}

export function handleBatch(context: ServiceContext, request: BatchRequest): void {
  const { res, responder, headers } = request
  const started = performance.now()
  const fail = (error: unknown) => {
    if (responder.done) return
    const odataError = error instanceof ODataError ? error : new ODataError('InternalError', 'The batch failed')
    responder.sendError(odataError)
  }
  /** A refusal of the endpoint's own (the batch stage logs those it makes): answered, and logged. */
  const refuse = (error: unknown) => {
    if (responder.done) return
    fail(error)
    if (error instanceof ODataError) void logBatchRefusal(context, request, error, performance.now() - started)
  }
  /**
   * Refuses a batch whose body may still be arriving, reads no more of it, and closes the connection
   * once the answer is out (decisions.md §7). uWS is paused first, so that it neither reads on nor
   * parses the rest of the body as a next request; the answer is then written whole and the socket
   * shut down behind it, rather than left to the idle timeout.
   */
  const refuseAndStopReading = (error: unknown) => {
    res.pause()
    if (responder.done) return
    const odataError = error instanceof ODataError ? error : new ODataError('InternalError', 'The batch failed')
    // uWS writes `Connection: close` itself when it is to close the connection.
    responder.sendError(odataError, { closeConnection: true, paused: true })
    void logBatchRefusal(context, request, odataError, performance.now() - started)
  }
  if (request.method === 'OPTIONS') return responder.send(204, { Allow: 'POST, OPTIONS' })
  if (request.method !== 'POST') {
    return refuseAndStopReading(
      new ODataError('MethodNotAllowed', `${request.method} is not allowed on $batch; allowed: POST, OPTIONS`, {
        headers: { Allow: 'POST, OPTIONS' },
      }),
    )
  }
  if (request.flavour === 'reference')
    return refuseAndStopReading(
      new ODataError('BatchNotSupported', '$batch is not available on the reference flavour; use the token-path root'),
    )

  const settings = context.settings.current
  const maxBytes = Math.floor(settings.maxBatchSizeMB * 1_048_576)
  const declared = headers.get('content-length')
  if (declared !== undefined && Number(declared) > maxBytes) {
    // decisions.md §7: refused before the body is read, and none of it will be.
    return refuseAndStopReading(
      new ODataError('BatchTooLarge', `The batch has ${declared} bytes; at most ${maxBytes} (${settings.maxBatchSizeMB} MB) are allowed`),
    )
  }
  const contentType = headers.get('content-type')
  if (mediaType(contentType) === 'application/json' && maxVersionBelow401(headers.get('odata-maxversion'))) {
    return refuseAndStopReading(
      new ODataError('BatchVersionTooLow', 'A JSON batch needs OData-MaxVersion 4.01 or higher; an OData 4.0 client sends multipart/mixed'),
    )
  }
  const profileLimit = request.subject.profile.maxBatchOperations
  const maxOperations = Math.min(settings.maxBatchOperations, profileLimit ?? Number.MAX_SAFE_INTEGER)
  let intake: BatchIntake
  try {
    const declaredBytes = declared === undefined ? undefined : Number(declared)
    intake = createBatchIntake(contentType, { maxBytes, maxOperations }, Number.isSafeInteger(declaredBytes) ? declaredBytes : undefined)
  } catch (error) {
    return refuseAndStopReading(error)
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
      const batch = {
        answer: responder,
        headers,
        subject: request.subject,
        flavour: request.flavour,
        serviceRoot: request.serviceRoot,
        linkRoot: request.linkRoot,
        ownRoots: request.ownRoots,
        url: request.url,
        maxOperations,
      }
      runBatch(context, batch, document)
        .catch((error: unknown) => fail(error))
        .finally(() => document.release())
    } catch (error) {
      stopped = true
      // Over the size limit, or corrupt JSON, mid-stream: answer now; the rest of the body is never read.
      if (isLast) refuse(error)
      else refuseAndStopReading(error)
    }
  })
}
