// Statements a transaction runs as late as it can: at its end, just before its change notes and its COMMIT
// (runInTransaction), or earlier, before the next operation of a change set begins (change-set.ts), so
// that no later statement of the same transaction can read around them.
//
// Why: the totals upserts of postings (src/posting/movement-store.ts). Every document posted into the same
// month adds to the same few totals rows (a warehouse and product, an account and organization), so
// concurrent change sets serialise on those rows' locks, which each holds from its upsert to its COMMIT.
// Written in the middle of a change set, the upsert made every other change set wait for the rest of it (the
// other registers' movements, the Posted flags); written last, only for the upserts themselves, the
// change notes and the COMMIT. A loader's change sets of 50 posted documents ran about a fifth as fast as the
// same rows written without that wait (docs/performance.md).
//
// A deferred statement must give the same result late as it would have given at once: the totals upserts
// read the movements of their recorders, which nothing else in the transaction touches before the flush.
import type { Statement } from '../statement.js'
import type { Transaction } from './transaction.js'

/** A deferred statement, with what its failure means to the operation that deferred it. */
interface Deferred {
  readonly statement: Statement
  readonly failure: ((error: unknown) => unknown) | undefined
}

/** Per open transaction, the statements it runs last, in the order they were deferred. */
const deferred = new WeakMap<Transaction, Deferred[]>()

/**
 * Runs `statement` in this transaction later: before its next operation or its COMMIT, whichever comes first.
 * `failure` turns its error into the one its operation would have met had it run at once (a totals overflow is
 * the client's 400, not the service's 500); the error it returns is thrown.
 */
export function deferStatement(transaction: Transaction, statement: Statement, failure?: (error: unknown) => unknown): void {
  const entry = { statement, failure }
  const statements = deferred.get(transaction)
  if (statements) statements.push(entry)
  else deferred.set(transaction, [entry])
}

/** Runs the transaction's deferred statements now, in order. */
export async function runDeferredStatements(transaction: Transaction): Promise<void> {
  const statements = deferred.get(transaction)
  if (!statements) return
  deferred.delete(transaction)
  for (const { statement, failure } of statements) {
    try {
      await transaction.run(statement)
    } catch (error) {
      throw failure ? failure(error) : error
    }
  }
}

/** Forgets the deferred statements of a transaction that is rolled back. */
export function discardDeferredStatements(transaction: Transaction): void {
  deferred.delete(transaction)
}
