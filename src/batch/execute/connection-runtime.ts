// How batch operations reach the handlers.
// - Outside change sets an operation is served exactly like a single request (a write in a transaction
//   of its own, a read streamed from the pool), one after the other.
// - A change set (atomicity group) holds one connection of the pool and runs every operation inside one
//   transaction on it, through the same write handlers a single request uses (`executeWrite`, which takes
//   the caller's transaction). When InnoDB picks the set as a deadlock victim, when it loses certification
//   on a Galera cluster, or when its connection is lost before the COMMIT, the whole set runs again
//   (runInTransaction); nothing of it has been answered then. Any other failure rolls it back.
import { handleRequest } from '../../service/handle-request.js'
import type { ServiceContext } from '../../service/service-context.js'
import type { ServiceRequest } from '../../service/service-request.js'
import { executeWrite, isWriteRequest } from '../../service/writes/run-write.js'
import { prepareWriteMany } from '../../service/writes/write-many.js'
import { sendWriteResult } from '../../service/writes/write-result.js'
import type { ResponseSink } from '../../respond/response-sink.js'
import { runInTransaction, type Transaction } from '../../store/transaction.js'
import type { BatchRuntime } from './execute-batch.js'

/** Thrown to roll a change set back after one of its operations answered with an error. */
const ROLL_BACK = Symbol('roll back the change set')

export function createBatchRuntime(context: ServiceContext): BatchRuntime {
  const runInside = async (transaction: Transaction, request: ServiceRequest, sink: ResponseSink) => {
    if (isWriteRequest(request)) sendWriteResult(sink, await executeWrite(context, request, transaction))
    else await handleRequest(context, request, sink)
  }
  return {
    run: (request, sink) => handleRequest(context, request, sink),
    async transaction(body) {
      // The pool, not one held connection: a set whose connection is lost before its COMMIT runs again
      // whole on a fresh one (another node of a cluster), as after a deadlock (runInTransaction).
      try {
        await runInTransaction(context.pool, async (transaction) => {
          const commit = await body({
            run: (request, sink) => runInside(transaction, request, sink),
            async writeRun(createRequests, postedIndexes) {
              const operation = prepareWriteMany(context, createRequests, postedIndexes)
              return operation ? operation(transaction) : undefined
            },
            writeLog: (entries) => context.requestLog.writeBatchIn(transaction, entries),
          })
          if (!commit) throw ROLL_BACK
        })
      } catch (error) {
        if (error !== ROLL_BACK) throw error
      }
    },
  }
}
