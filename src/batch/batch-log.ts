// The request log of a `$batch` (decisions.md §8, service.md §4.4 rule 8, §7): when a batch is logged,
// which entries it gets, and when they are written. Whether an entry is logged at a level is `shouldLog`'s
// rule (src/log/request-log.ts), applied to each entry; how entries are written is the request log's.
//
// - Entries: the `$batch` entry and its operations under one batch id (`Пакет`), each at the level's rule;
//   the `$batch` entry goes with any logged operation (at `errors`, with a failed one). An operation's
//   error code is the one its answer carried; members of a rolled-back change set are 424
//   `FailedDependency`. At the level that logs writes and not reads, a batch of reads only is not logged.
// - When: a batch that may be logged has its answer held until its entries are written, so that a failure
//   to write them is still answerable (`500 LogWriteFailed`, the operations that ran listed). A batch that
//   ends with a change set writes them inside that set's transaction, just before its COMMIT: one commit
//   (one flush of the redo log) for the operations and their log instead of two, its duration measured up
//   to that moment. A COMMIT cut off there leaves it unknown whether they were written: they are then
//   written only if the batch id is not in the log, never lost and never twice.
// - A batch refused as a whole (by the endpoint before or while its body arrived, or by its plan or the rate
//   rules after) is one entry with its status and code, under a batch id of its own.
import { ODataError } from '../errors.js'
import { newBatchId } from '../log/batch-id.js'
import { logger } from '../log/logger.js'
import { shouldLog, type RequestLogEntry } from '../log/request-log.js'
import type { ResolvedSettings, SubjectModel } from '../model/model.js'
import type { ResponseSink } from '../respond/response-sink.js'
import type { ServiceContext } from '../service/service-context.js'
import type { Transaction } from '../store/transaction.js'
import { CollectingSink } from './execute/collecting-sink.js'
import type { BatchResultWriter, OperationOutcome } from './execute/execute-batch.js'
import type { BeforeLastCommit } from './batch-runtime.js'

/** The batch request as the log records it. */
export interface LoggedBatch {
  readonly subject: SubjectModel
  /** The batch request's method (`GET $batch` is refused 405, and logged as the GET it was). */
  readonly method: string
  /** The request URL as received (the log stores it without credentials). */
  readonly url: string
}

/** Per operation, what the log records: its status, or 424 for the members of a rolled-back change set. */
interface RecordedOperation {
  readonly outcome: OperationOutcome
  readonly status: number
}

/** Whether any entry of a batch can be logged at `level`, before it runs. */
function batchMayBeLogged(level: ResolvedSettings['logLevel'], writesAnything: boolean): boolean {
  // A batch of reads only at a level that logs writes but not reads (service.md §4.4 rule 8).
  if (!writesAnything && shouldLog(level, 'POST', 200) && !shouldLog(level, 'GET', 200)) return false
  return shouldLog(level, 'POST', 500)
}

/** The log of one batch that runs: records its results on their way to the answer and writes its entries. */
export class BatchLog {
  private readonly level: ResolvedSettings['logLevel']
  /** Made with the first entries, so a batch that logs nothing (level `off`) makes none; then the same for all of them, a retried COMMIT's included. */
  private madeBatchId: string | undefined
  private readonly operations: RecordedOperation[] = []
  /** Entries written in the last change set's transaction (its latest attempt); whether it committed is known after. */
  private writtenWithLastSet = false
  /** Whether the last change set recorded failed (rolled back, or its COMMIT failed). */
  private lastSetFailed = false
  /** The answer, held until the entries are written. */
  private held: CollectingSink | undefined

  /** Whether this batch is logged (`entries` may still be none): its answer is then held until the log is written. */
  readonly logging: boolean

  constructor(
    private readonly context: ServiceContext,
    private readonly batch: LoggedBatch,
    private readonly operationCount: number,
    /** performance.now() when the batch began. */
    private readonly started: number,
    writesAnything: boolean,
  ) {
    this.level = context.settings.current.logLevel
    this.logging = batchMayBeLogged(this.level, writesAnything)
  }

  /** The sink the batch's answer is written into: the client's response, or a holder until `release`. */
  answerSink(answer: ResponseSink): ResponseSink {
    if (!this.logging) return answer
    this.held = new CollectingSink(answer)
    return this.held
  }

  /** Passes every result on to the answer writer and keeps what the log needs of it. */
  recording(inner: BatchResultWriter): BatchResultWriter {
    if (!this.logging) return inner
    return {
      operation: (outcome) => {
        this.operations.push({ outcome, status: outcome.response.status })
        inner.operation(outcome)
      },
      changeSet: (step, outcomes, failed) => {
        for (const outcome of outcomes)
          this.operations.push({ outcome, status: failed && failed !== outcome ? 424 : outcome.response.status })
        if (failed && !outcomes.includes(failed)) this.operations.push({ outcome: failed, status: failed.response.status })
        this.lastSetFailed = failed !== undefined
        inner.changeSet(step, outcomes, failed)
      },
    }
  }

  /** The hook before the COMMIT of a batch's last step, a change set whose operations all succeeded. */
  get beforeLastCommit(): BeforeLastCommit | undefined {
    if (!this.logging) return undefined
    return async (outcomes, transaction: Transaction) => {
      const entries = this.entries([...this.operations, ...outcomes.map((outcome) => ({ outcome, status: outcome.response.status }))])
      this.writtenWithLastSet = await this.context.requestLog.writeBatchIn(transaction, entries)
    }
  }

  /**
   * After the batch ran: writes its entries unless its last change set committed them, then sends the
   * held answer. Throws `LogWriteFailed` when they cannot be written.
   */
  async release(answer: ResponseSink): Promise<void> {
    const held = this.held
    if (held === undefined) return
    if (!this.writtenWithLastSet || this.lastSetFailed) {
      try {
        await this.context.requestLog.writeBatch(this.entries(this.operations), { lookFirst: this.writtenWithLastSet })
      } catch (error) {
        logger.error({ err: error }, 'the request log of a batch could not be written')
        throw this.logWriteFailed()
      }
    }
    const result = held.result()
    answer.send(result.status, result.headers, result.body)
  }

  /** service.md §7: the operations are committed; say which ran, so the client can reconcile. */
  private logWriteFailed(): ODataError {
    const details = this.operations.map(({ outcome, status }) => ({
      code: String(status),
      message: `${outcome.planned.operation.method} ${outcome.planned.operation.url}`,
      target: outcome.planned.operation.id ?? String(outcome.planned.operation.index + 1),
    }))
    return new ODataError(
      'LogWriteFailed',
      'The batch ran, but the request log could not be written; its operations are committed as listed in details',
      { details },
    )
  }

  private get batchId(): string {
    this.madeBatchId ??= newBatchId()
    return this.madeBatchId
  }

  private entries(operations: readonly RecordedOperation[]): RequestLogEntry[] {
    const { level, batch, batchId } = this
    const at = new Date()
    const subject = batch.subject.name
    const profile = batch.subject.profile.name
    const entries: RequestLogEntry[] = []
    const batchEntry: RequestLogEntry = {
      at,
      subject,
      profile,
      batchId,
      method: 'POST',
      url: batch.url,
      status: 200,
      durationMs: performance.now() - this.started,
      operations: this.operationCount,
    }
    if (shouldLog(level, 'POST', 200)) entries.push(batchEntry)
    for (const { outcome, status } of operations) {
      const operation = outcome.planned.operation
      if (!shouldLog(level, operation.method, status)) continue
      const rolledBack = status === 424 && outcome.response.status !== 424
      const errorCode = rolledBack ? 'FailedDependency' : status >= 400 ? outcome.response.errorCode : undefined
      // Written out, not spread from a shared object: one entry per operation, up to thousands per batch.
      entries.push({
        at,
        subject,
        profile,
        batchId,
        method: operation.method,
        url: operation.url,
        status,
        durationMs: 0,
        contentId: operation.id,
        errorCode,
      })
    }
    if (entries.length > 0 && entries[0] !== batchEntry) entries.unshift(batchEntry)
    return entries
  }
}

/** A batch refused as a whole: its entry, written in the background of the answer (answered whether or not it could be written). */
export async function logBatchRefusal(
  context: ServiceContext,
  batch: LoggedBatch,
  error: ODataError,
  durationMs: number,
  operations?: number,
): Promise<void> {
  if (!shouldLog(context.settings.current.logLevel, batch.method, error.status)) return
  const entry = {
    at: new Date(),
    subject: batch.subject.name,
    profile: batch.subject.profile.name,
    method: batch.method,
    url: batch.url,
    status: error.status,
    durationMs,
    operations,
    errorCode: error.code,
    batchId: newBatchId(),
  }
  await context.requestLog.writeBatch([entry]).catch((failure: unknown) => logger.error({ err: failure }, 'request log write failed'))
}
