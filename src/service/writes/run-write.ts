// Where a write meets its transaction and its response. The dispatcher (handle-request.ts) hands every
// write here after its refusals, with the change set's transaction when it is an operation of one.
//
// - Alone, a write is prepared (all checks, no SQL), runs in one transaction of its own (retried on
//   deadlock by runInTransaction), and only after the commit is its result written to the sink. With
//   `Repeatability-Request-ID`, a kept response is replayed instead, and the new response is stored in the
//   same transaction.
// - In a change set (src/service/change-set.ts) it runs in the set's transaction, which the set commits;
//   the result goes to the sink at once, and the batch sends it only when the set has committed.
import { errorBody, isODataError, type ODataError } from '../../errors.js'
import { logger } from '../../log/logger.js'
import type { ResponseSink } from '../../respond/response-sink.js'
import { databaseOf } from '../../store/database.js'
import { runInTransaction, type Transaction } from '../../store/transaction.js'
import type { ServiceContext } from '../service-context.js'
import type { ServiceRequest } from '../service-request.js'
import { prepareWrite } from './prepare-write.js'
import {
  purgeExpiredResponses,
  RepeatedConcurrently,
  repeatabilityKey,
  storedResponse,
  storeRefusal,
  storeResponse,
  withAccepted,
  type RepeatabilityKey,
} from './repeatability.js'
import { sendWriteResult, type WriteResult } from './write-result.js'

/** Runs one write inside the caller's transaction, honouring Repeatability-Request-ID; the caller commits and sends. */
async function executeWrite(context: ServiceContext, request: ServiceRequest, transaction: Transaction): Promise<WriteResult> {
  const key = repeatabilityKey(request)
  if (key) {
    const stored = await storedResponse(transaction, key)
    if (stored) return stored
  }
  const result = await prepareWrite(context, request)(transaction)
  if (!key) return result
  await storeResponse(transaction, key, result)
  return withAccepted(result)
}

function refusalResult(error: ODataError): WriteResult {
  return {
    status: error.status,
    headers: { 'Content-Type': 'application/json;charset=utf-8', ...error.headers },
    body: JSON.stringify(errorBody(error)),
  }
}

function purgeLater(context: ServiceContext): void {
  purgeExpiredResponses(context.pool).catch((error: unknown) =>
    logger.debug({ err: error }, 'purging expired repeatability records failed'),
  )
}

async function runRepeatable(context: ServiceContext, request: ServiceRequest, sink: ResponseSink, key: RepeatabilityKey): Promise<void> {
  const stored = await storedResponse(databaseOf(context.pool), key)
  if (stored) return sendWriteResult(sink, stored)
  let result: WriteResult
  try {
    const operation = prepareWrite(context, request)
    result = await runInTransaction(context.pool, async (transaction) => {
      const written = await operation(transaction)
      await storeResponse(transaction, key, written)
      return written
    })
  } catch (error) {
    if (error instanceof RepeatedConcurrently) {
      const winner = await storedResponse(databaseOf(context.pool), key)
      if (winner) return sendWriteResult(sink, winner)
    }
    if (isODataError(error) && error.status < 500) {
      const refusal = refusalResult(error)
      await storeRefusal(context.pool, key, refusal)
      return sendWriteResult(sink, withAccepted(refusal))
    }
    throw error
  }
  sendWriteResult(sink, withAccepted(result))
  purgeLater(context)
}

/** Serves a write: in the change set's `transaction` when given, else prepare, one transaction, then the response. */
export async function runWrite(
  context: ServiceContext,
  request: ServiceRequest,
  sink: ResponseSink,
  transaction?: Transaction,
): Promise<void> {
  if (transaction !== undefined) return sendWriteResult(sink, await executeWrite(context, request, transaction))
  const key = repeatabilityKey(request)
  if (key) return runRepeatable(context, request, sink, key)
  const operation = prepareWrite(context, request)
  const result = await runInTransaction(context.pool, operation)
  sendWriteResult(sink, result)
}
