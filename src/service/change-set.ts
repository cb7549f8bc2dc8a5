// A change set (atomicity group, service.md §4.4 rule 3): its operations through the one dispatcher
// (handle-request.ts), inside one transaction. The batch hands over requests and sinks and decides
// nothing of how they are written; this module owns
// - the transaction: every write of the set joins it, and any failure rolls the whole set back. When InnoDB
//   picks the set as a deadlock victim, when it loses certification on a Galera cluster, or when its
//   connection is lost before the COMMIT, the whole set runs again (runInTransaction); nothing of it has
//   been answered then (endsChangeSet);
// - the writing of consecutive creates of one set, and of the Posts of some of them, in multi-row
//   statements (writes/write-many.ts), after the same admission as one by one;
// - one hook that runs last before the COMMIT (the batch writes its request log there);
// - the statements an operation deferred to the end of the transaction (store/deferred-statements.ts) run
//   before the next operation of the set.
import { isDatabaseUnreachable } from '../database-failures.js'
import { ODataError } from '../errors.js'
import type { ResponseSink } from '../respond/response-sink.js'
import { runDeferredStatements } from '../store/deferred-statements.js'
import { isDeadlock, runInTransaction, type Transaction } from '../store/transaction.js'
import { admitRequest, handleRequest } from './handle-request.js'
import type { ServiceContext } from './service-context.js'
import type { ServiceRequest } from './service-request.js'
import { prepareWriteMany } from './writes/write-many.js'
import { sendWriteResult } from './writes/write-result.js'

/** What runs inside a change set's transaction. */
export interface ChangeSetScope {
  /** One operation, through the dispatcher; a write joins the set's transaction. */
  run(request: ServiceRequest, sink: ResponseSink): Promise<void>
  /**
   * Consecutive creates of one set, then the Posts of some of them (`postedIndexes`: indexes into
   * `creates`, in the order of the Posts), written together; each result goes to its sink (creates first,
   * then Posts). False when they must run one by one instead (one is refused, or its key exists): nothing
   * was written then, and running them one by one answers the refusal at its operation.
   */
  runTogether(creates: readonly ServiceRequest[], postedIndexes: readonly number[], sinks: readonly ResponseSink[]): Promise<boolean>
}

/** A failure that ends the set's transaction rather than answering its operation: the set runs again whole. */
export function endsChangeSet(error: unknown): boolean {
  return isDeadlock(error) || isDatabaseUnreachable(error)
}

/** Thrown to roll a change set back after one of its operations answered with an error. */
const ROLL_BACK = Symbol('roll back the change set')

/**
 * Runs `body` in one transaction: commits when it resolves true (after `beforeCommit`), rolls back when it
 * resolves false or throws. `body` may run again from its start (see above); a failure of the COMMIT
 * itself is thrown.
 */
export async function runChangeSet(
  context: ServiceContext,
  body: (scope: ChangeSetScope) => Promise<boolean>,
  beforeCommit?: (transaction: Transaction) => Promise<void>,
): Promise<void> {
  // The pool, not one held connection: a set whose connection is lost before its COMMIT runs again
  // whole on a fresh one (another node of a cluster), as after a deadlock (runInTransaction).
  try {
    await runInTransaction(context.pool, async (transaction) => {
      if (!(await body(scopeOf(context, transaction)))) throw ROLL_BACK
      if (beforeCommit !== undefined) await beforeCommit(transaction)
    })
  } catch (error) {
    if (error !== ROLL_BACK) throw error
  }
}

function scopeOf(context: ServiceContext, transaction: Transaction): ChangeSetScope {
  return {
    // What the operations before deferred (their totals upserts) runs before the next one begins, so that
    // it reads the totals and movements as they would be one request at a time.
    async run(request, sink) {
      await runDeferredStatements(transaction)
      await handleRequest(context, request, sink, transaction)
    },
    async runTogether(creates, postedIndexes, sinks) {
      if (!creates.every(admitted)) return false
      await runDeferredStatements(transaction)
      const operation = prepareWriteMany(context, creates, postedIndexes)
      const results = operation === undefined ? undefined : await operation(transaction)
      if (results === undefined) return false
      for (const [i, result] of results.entries()) sendWriteResult(sinks[i]!, result)
      return true
    },
  }
}

/** Whether the dispatcher admits a create (its refusal is then answered when it runs alone). */
function admitted(request: ServiceRequest): boolean {
  try {
    return admitRequest(request)
  } catch (error) {
    if (error instanceof ODataError) return false
    throw error
  }
}
