// A `$batch` whose body the intake has read, from plan to log: plan → rate rules → execute → answer → log
// (the log's when and how: batch-log.ts; where operations run: batch-runtime.ts).
// The HTTP endpoint has already made the early refusals of decisions.md §7 (method, flavour, size,
// OData-MaxVersion, media type, the body itself); the rest come here, in the same order: operation count
// and structure (the plan, 400), then rate rules (429). Nothing executes until all of them pass.
import { ODataError, toODataError } from '../errors.js'
import { rateLimited } from '../limits/rate-limiter.js'
import { batchChangeSetsTotal, batchDuration, batchOperationsTotal } from '../metrics/service-metrics.js'
import type { Flavour } from '../model/flavour.js'
import type { SubjectModel } from '../model/model.js'
import type { ResponseSink } from '../respond/response-sink.js'
import type { ServiceContext } from '../service/service-context.js'
import { BatchLog, logBatchRefusal } from './batch-log.js'
import { createBatchRuntime } from './batch-runtime.js'
import { batchSlots } from './batch-slots.js'
import { continueOnErrorPreference } from './continue-on-error.js'
import { executeBatch } from './execute/execute-batch.js'
import type { BatchDocument } from './intake/index.js'
import { planBatch, type BatchPlan } from './plan/plan-batch.js'
import { JsonBatchWriter } from './answer/json-batch-writer.js'
import { MultipartBatchWriter } from './answer/multipart-batch-writer.js'

/** Where the batch's answer goes: the client's response, which says when it is done. */
export interface BatchAnswer extends ResponseSink {
  readonly done: boolean
}

/** What the endpoint hands on with the read body. */
export interface BatchRun {
  readonly answer: BatchAnswer
  readonly headers: ReadonlyMap<string, string>
  readonly subject: SubjectModel
  readonly flavour: Flavour
  /** The absolute service root, as operations' Location and context URLs use it. */
  readonly serviceRoot: string
  /** The service root for links the client follows (ServiceRequest.linkRoot). */
  readonly linkRoot?: string
  /** This batch's own root paths (`/api/v4/`, and `/api/t/<token>/v4/` when the token came in the path). */
  readonly ownRoots: readonly string[]
  /** The request URL as received (the log stores it without credentials). */
  readonly url: string
  /** The smaller of the setting and the profile's limit (decisions.md §8). */
  readonly maxOperations: number
}

/**
 * Runs the batch and answers it. A refusal (plan, rate rules) is logged with its status and thrown for the
 * endpoint to answer; a failure to write the log after the batch ran is thrown as `500 LogWriteFailed`.
 */
export async function runBatch(context: ServiceContext, batch: BatchRun, document: BatchDocument): Promise<void> {
  const started = performance.now()
  const { headers, subject } = batch
  let plan: BatchPlan | undefined
  try {
    plan = planBatch(document, {
      host: headers.get('host') ?? '',
      ownRoots: batch.ownRoots,
      knownMounts: [context.model.mounts.reference, context.model.mounts.token],
      maxOperations: batch.maxOperations,
      profileName: subject.profile.name,
    })
    // Rate rules come last among the checks (decisions.md §7): every operation counts.
    const decision = await context.rateLimiter.consume(subject, plan.operationCount)
    if (!decision.allowed) throw rateLimited(decision, plan.operationCount)
  } catch (error) {
    if (error instanceof ODataError)
      await logBatchRefusal(context, { ...batch, method: 'POST' }, error, performance.now() - started, plan?.operationCount)
    // The rate counters' database busy, unreachable or still conflicting after retries: a 503 to retry
    // (src/database-failures.ts), not the endpoint's 500; nothing ran.
    const answer = error instanceof ODataError ? error : toODataError(error)
    throw answer.status === 503 ? answer : error
  }

  batchOperationsTotal.inc(plan.operationCount)
  batchChangeSetsTotal.inc(plan.steps.filter((step) => step.kind === 'changeSet').length)
  try {
    await answerBatch(context, batch, document, plan, started)
  } finally {
    batchDuration.observe((performance.now() - started) / 1000)
  }
}

async function answerBatch(
  context: ServiceContext,
  batch: BatchRun,
  document: BatchDocument,
  plan: BatchPlan,
  started: number,
): Promise<void> {
  const { answer, headers, subject } = batch
  const continueOnError = continueOnErrorPreference(headers.get('prefer'))
  const responseHeaders: Record<string, string> = continueOnError ? { 'Preference-Applied': continueOnError } : {}
  const writesAnything = document.operations.some((o) => o.method !== 'GET' && o.method !== 'HEAD')
  const log = new BatchLog(context, { ...batch, method: 'POST' }, plan.operationCount, started, writesAnything)
  const output = log.answerSink(answer)
  const formatWriter =
    document.format === 'multipart' ? new MultipartBatchWriter(output, responseHeaders) : new JsonBatchWriter(output, responseHeaders)
  const execution = {
    model: context.model,
    subject,
    flavour: batch.flavour,
    serviceRoot: batch.serviceRoot,
    linkRoot: batch.linkRoot,
    continueOnError: continueOnError !== undefined,
    outer: answer,
  }
  const runtime = createBatchRuntime(context, log.beforeLastCommit)
  await batchSlots(() => executeBatch(plan, execution, runtime, log.recording(formatWriter)))
  if (answer.done) return
  formatWriter.finish()
  await log.release(answer)
}
