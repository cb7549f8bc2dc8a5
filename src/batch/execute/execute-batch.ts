// Runs a planned batch in order (service.md §4.4 rules 2, 3, 5, 6; decisions.md §7):
// - each operation becomes the same ServiceRequest a single HTTP request would (operation-request.ts),
//   under the batch's subject and profile, and goes to the runtime, which hands it to the same dispatcher;
// - a change set (atomicity group) runs in one transaction of the runtime: any failure rolls the whole set
//   back (change-set-step.ts);
// - `$<id>` names what an earlier operation created (batch-references.ts);
// - outside change sets the batch stops at the first failure unless continue-on-error was preferred;
// - JSON: an operation whose dependsOn target failed is answered 424 without running.
// The executor sees operations, a runtime and the writer of results: nothing of the request log, of how
// writes are made or of the store.
import type { ChangeSetScope } from '../../service/change-set.js'
import type { BatchPlan, PlannedOperation, PlanStep } from '../plan/plan-batch.js'
import { BatchReferences } from './batch-references.js'
import { runChangeSetStep } from './change-set-step.js'
import type { CollectedResponse } from './collecting-sink.js'
import { OperationRequests, type BatchIdentity } from './operation-request.js'
import { BatchOperations, type OperationRunner } from './run-operation.js'

export interface OperationOutcome {
  readonly planned: PlannedOperation
  readonly response: CollectedResponse
  /** A change set's COMMIT failure charged to this operation left it unknown whether the set was applied. */
  readonly commitOutcomeUnknown?: boolean
}

/** How operations reach the dispatcher: one at a time, or several inside one change set's transaction. */
export interface BatchRuntime extends OperationRunner {
  /**
   * Runs `body` in one transaction: commits when it resolves to the set's outcomes, rolls back when it
   * resolves undefined or throws; may run it again from its start (a deadlock, a connection lost before
   * the COMMIT). A failed COMMIT is thrown. `last`: the batch's last step.
   */
  changeSet(
    body: (scope: OperationRunner & ChangeSetScope) => Promise<readonly OperationOutcome[] | undefined>,
    last: boolean,
  ): Promise<void>
}

/** Receives results as steps complete, so the response can stream where the format allows. */
export interface BatchResultWriter {
  operation(outcome: OperationOutcome): void
  /** `outcomes` of a committed set, or of a failed one: `failed` is the operation that failed. */
  changeSet(
    step: Extract<PlanStep, { kind: 'changeSet' }>,
    outcomes: readonly OperationOutcome[],
    failed: OperationOutcome | undefined,
  ): void
}

export interface BatchExecution extends BatchIdentity {
  readonly continueOnError: boolean
  readonly outer: { readonly aborted: boolean }
}

export async function executeBatch(
  plan: BatchPlan,
  execution: BatchExecution,
  runtime: BatchRuntime,
  writer: BatchResultWriter,
): Promise<void> {
  const references = new BatchReferences(execution.serviceRoot)
  const operations = new BatchOperations(execution, new OperationRequests(execution, references), references, execution.outer)
  const lastStep = plan.steps[plan.steps.length - 1]
  for (const step of plan.steps) {
    if (execution.outer.aborted) return
    let failed: boolean
    if (step.kind === 'operation') {
      const response = await operations.run(step.operation, runtime)
      writer.operation({ planned: step.operation, response })
      failed = response.status >= 400
      if (failed) references.markFailed(step.operation)
    } else {
      const { outcomes, failure } = await runChangeSetStep(step, step === lastStep, runtime, operations, references)
      writer.changeSet(step, outcomes, failure)
      failed = failure !== undefined
    }
    if (failed && !execution.continueOnError) return
  }
}
