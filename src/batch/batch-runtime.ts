// Where the executor's operations go: to the one dispatcher (src/service/handle-request.ts), alone outside
// change sets (a write in a transaction of its own, a read streamed from the pool), and inside a change
// set's scope (src/service/change-set.ts) otherwise. Before the COMMIT of the batch's last step, when it is
// a change set, the hook given runs in its transaction with that set's outcomes (the request log,
// batch-log.ts).
import type { ServiceContext } from '../service/service-context.js'
import { endsChangeSet, runChangeSet } from '../service/change-set.js'
import { handleRequest } from '../service/handle-request.js'
import { isDeadlock, type Transaction } from '../store/transaction.js'
import type { BatchRuntime, OperationOutcome } from './execute/execute-batch.js'

export type BeforeLastCommit = (outcomes: readonly OperationOutcome[], transaction: Transaction) => Promise<void>

export function createBatchRuntime(context: ServiceContext, beforeLastCommit?: BeforeLastCommit): BatchRuntime {
  return {
    run: (request, sink) => handleRequest(context, request, sink),
    // A single write still a deadlock victim after its retries (runInTransaction) is no answer of its
    // operation: it fails the batch.
    passesOn: isDeadlock,
    async changeSet(body, last) {
      let outcomes: readonly OperationOutcome[] | undefined
      const hook =
        last && beforeLastCommit !== undefined ? (transaction: Transaction) => beforeLastCommit(outcomes!, transaction) : undefined
      await runChangeSet(
        context,
        async (scope) => {
          outcomes = await body({ run: scope.run, runTogether: scope.runTogether, passesOn: endsChangeSet })
          return outcomes !== undefined
        },
        hook,
      )
    },
  }
}
