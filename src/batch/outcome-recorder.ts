// Per operation, what the request log records of a batch: its status, or 424 for the members of a
// rolled-back change set (decisions.md §8), and its error code as the operation's answer carried it.
import type { BatchResultWriter, OperationOutcome } from './execute/execute-batch.js'

export interface RecordedOperation {
  readonly outcome: OperationOutcome
  readonly status: number
}

/** Passes every result on to the response writer and keeps what the log needs of it. */
export class OutcomeRecorder implements BatchResultWriter {
  readonly entries: RecordedOperation[] = []
  constructor(private readonly inner: BatchResultWriter) {}

  operation(outcome: OperationOutcome): void {
    this.entries.push({ outcome, status: outcome.response.status })
    this.inner.operation(outcome)
  }

  changeSet(
    step: Parameters<BatchResultWriter['changeSet']>[0],
    outcomes: readonly OperationOutcome[],
    failed: OperationOutcome | undefined,
  ): void {
    for (const outcome of outcomes) this.entries.push({ outcome, status: failed && failed !== outcome ? 424 : outcome.response.status })
    if (failed && !outcomes.includes(failed)) this.entries.push({ outcome: failed, status: failed.response.status })
    this.inner.changeSet(step, outcomes, failed)
  }
}
