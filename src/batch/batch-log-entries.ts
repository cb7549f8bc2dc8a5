// The request log's entries for a batch that ran (decisions.md §8, service.md §4.4 rule 8): the `$batch`
// entry and its operations under one batch id (`Пакет`), each at the level's rules; at `errors` the
// `$batch` entry goes with any failed operation; at `writes` a batch of reads only is not logged. An
// operation's error code is the one its answer carried; members of a rolled-back change set are 424
// `FailedDependency`.
import { shouldLog, type RequestLogEntry } from '../log/request-log.js'
import type { ResolvedSettings } from '../model/model.js'
import type { RecordedOperation } from './outcome-recorder.js'

export interface BatchLogContext {
  readonly level: ResolvedSettings['logLevel']
  /** What every entry of the batch shares: time, subject, profile, batch id. */
  readonly base: Pick<RequestLogEntry, 'at' | 'subject' | 'profile' | 'batchId'>
  readonly url: string
  readonly durationMs: number
  readonly operationCount: number
  readonly writesAnything: boolean
}

export function batchLogEntries(batch: BatchLogContext, operations: readonly RecordedOperation[]): RequestLogEntry[] {
  const { level, base } = batch
  const entries: RequestLogEntry[] = []
  const batchEntry: RequestLogEntry = {
    ...base,
    method: 'POST',
    url: batch.url,
    status: 200,
    durationMs: batch.durationMs,
    operations: batch.operationCount,
  }
  if (shouldLog(level, 'POST', 200) && (level !== 'writes' || batch.writesAnything)) entries.push(batchEntry)
  for (const { outcome, status } of operations) {
    const operation = outcome.planned.operation
    if (!shouldLog(level, operation.method, status)) continue
    const rolledBack = status === 424 && outcome.response.status !== 424
    const errorCode = rolledBack ? 'FailedDependency' : status >= 400 ? outcome.response.errorCode : undefined
    // Written out rather than spread from `base`: one entry per operation, up to thousands per batch.
    entries.push({
      at: base.at,
      subject: base.subject,
      profile: base.profile,
      batchId: base.batchId,
      method: operation.method,
      url: operation.url,
      status,
      durationMs: 0,
      contentId: operation.id,
      errorCode,
    })
  }
  if (level === 'errors' && entries.length > 0 && !entries.includes(batchEntry)) entries.unshift(batchEntry)
  return entries
}
