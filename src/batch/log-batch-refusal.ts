// A `$batch` refused as a whole is one entry of the request log with its status and code, under a batch id
// of its own like any `$batch` entry (decisions.md §8: the id marks the `$batch` entry): refused by the
// endpoint before or while its body arrived (405, 413, 415, a body that does not parse), or after it was
// read (the plan's 400s, 429). Single requests refused with 400 are logged; a batch is no different.
import type { ODataError } from '../errors.js'
import { newBatchId } from '../log/batch-id.js'
import { logger } from '../log/logger.js'
import { shouldLog } from '../log/request-log.js'
import type { SubjectModel } from '../model/model.js'
import type { ServiceContext } from '../service/service-context.js'

export interface RefusedBatch {
  readonly subject: SubjectModel
  /** The batch request's method (`GET $batch` is refused 405, and logged as the GET it was). */
  readonly method: string
  /** The request URL as received (the log stores it without credentials). */
  readonly url: string
}

/** Written in the background of the answer: the refusal is answered whether or not its entry could be written. */
export async function logBatchRefusal(
  context: ServiceContext,
  batch: RefusedBatch,
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
