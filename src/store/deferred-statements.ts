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

/** Per open transaction, the statements it runs last, in the order they were deferred. */
const deferred = new WeakMap<Transaction, Statement[]>()

/** Runs `statement` in this transaction later: before its next operation or its COMMIT, whichever comes first. */
export function deferStatement(transaction: Transaction, statement: Statement): void {
  const statements = deferred.get(transaction)
  if (statements) statements.push(statement)
  else deferred.set(transaction, [statement])
}

/** Runs the transaction's deferred statements now, in order. */
export async function runDeferredStatements(transaction: Transaction): Promise<void> {
  const statements = deferred.get(transaction)
  if (!statements) return
  deferred.delete(transaction)
  for (const statement of statements) await transaction.run(statement)
}

/** Forgets the deferred statements of a transaction that is rolled back. */
export function discardDeferredStatements(transaction: Transaction): void {
  deferred.delete(transaction)
}
