// One change set of a batch (service.md §4.4 rule 3): its operations in order inside one transaction of
// the runtime, consecutive creates together where they can be; the first failure rolls the whole set back,
// and so does a failed COMMIT. A set that runs again (runtime) starts over with no outcome kept.
import type { PlanStep } from '../plan/plan-batch.js'
import type { BatchReferences } from './batch-references.js'
import { errorResponse } from './collecting-sink.js'
import type { BatchRuntime, OperationOutcome } from './execute-batch.js'
import { answeredError, type BatchOperations } from './run-operation.js'

export interface ChangeSetResult {
  readonly outcomes: readonly OperationOutcome[]
  /** The operation that failed (its outcome, or the COMMIT's failure charged to it); undefined: committed. */
  readonly failure: OperationOutcome | undefined
}

export async function runChangeSetStep(
  step: Extract<PlanStep, { kind: 'changeSet' }>,
  last: boolean,
  runtime: BatchRuntime,
  operations: BatchOperations,
  references: BatchReferences,
): Promise<ChangeSetResult> {
  const outcomes: OperationOutcome[] = []
  // An object, not a variable: the transaction's body sets it, which the flow analysis cannot see.
  const state: { failure: OperationOutcome | undefined } = { failure: undefined }
  try {
    await runtime.changeSet(async (scope) => {
      outcomes.length = 0
      state.failure = undefined
      for (let i = 0; i < step.operations.length; ) {
        const together = await operations.runTogether(step.operations, i, scope)
        if (together) {
          outcomes.push(...together)
          i += together.length
          continue
        }
        const planned = step.operations[i++]!
        const outcome = { planned, response: await operations.run(planned, scope) }
        outcomes.push(outcome)
        if (outcome.response.status >= 400) {
          state.failure = outcome
          return undefined
        }
      }
      return outcomes
    }, last)
  } catch (error) {
    // The commit itself failed (deadlock, lost connection): the whole set failed with it, or, when the
    // connection was lost during the COMMIT, may have been applied: the answer says so.
    // It is charged to the last operation that ran, whose outcome it replaces: one outcome per operation.
    const answer = answeredError(error)
    const lastRan = outcomes.length - 1
    state.failure = {
      planned: step.operations[Math.max(0, lastRan)]!,
      response: errorResponse(answer),
      commitOutcomeUnknown: answer.outcomeUnknown,
    }
    if (lastRan >= 0) outcomes[lastRan] = state.failure
  }
  if (state.failure) {
    references.rolledBack(
      outcomes.map((outcome) => outcome.planned),
      step.operations,
    )
  }
  return { outcomes, failure: state.failure }
}
