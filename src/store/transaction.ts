// The one place where write transactions begin, commit, roll back and retry.
//
// Every write handler is a function of (request, transaction): it receives a `Transaction` and never
// opens, commits or retries one itself. A single HTTP write runs in `runInTransaction(pool, …)`; a
// `$batch` change set runs in one `runInTransaction(pool, work)` (src/service/change-set.ts) whose `work`
// runs every operation of the set, so the operations share one transaction and a deadlock, or a
// connection lost before the COMMIT, runs the whole set again.
//
// Round trips: a transaction's START TRANSACTION travels with its first statement, and its COMMIT with its
// last change notes, each pair as one multi-statement packet (the pool allows them: src/store/pool.ts). A
// single create is then two round trips instead of four; on this machine a round trip to the database is
// mostly the kernel's work of a socket write on both sides (docs/performance.md).
//
// Isolation is READ COMMITTED for writes: every statement reads the latest committed rows (a document
// locked with FOR UPDATE is then read together with its current table part), and InnoDB takes no gap
// locks for searches, which under REPEATABLE READ make concurrent posts into neighbouring keys deadlock.
// Totals stay exact without serialisation because they are maintained by additive upserts under row
// locks (src/store/totals.ts).
import { isDatabaseUnreachable, isNodeUnavailable, markCommitOutcomeUnknown, wasNeverSent } from '../database-failures.js'
import { Statement } from '../statement.js'
import { discardRecordedChanges, notesFailure, takeRecordedChanges } from './change-record.js'
import { type Answer, type Database, SourceDatabase, type StatementOptions } from './database.js'
import { discardDeferredStatements, runDeferredStatements } from './deferred-statements.js'
import { isPool, type Pool, type PoolConnection } from './pool.js'

/**
 * The statements a write runs, on the connection and inside the transaction its caller opened: the database
 * port (database.ts) over that connection.
 */
export interface Transaction extends Database {
  readonly connection: PoolConnection
}

export interface TransactionOptions {
  /** How many times the work runs at most when it is a deadlock victim or loses certification (default 10). */
  readonly attempts?: number
  /**
   * Running the work twice leaves what running it once does (an INSERT IGNORE of a row of zeros): a
   * connection lost during its COMMIT, whose outcome is unknown, runs it again on the next node too,
   * instead of giving up.
   */
  readonly idempotent?: boolean
}

// On a Galera cluster several writers on other nodes move the same totals rows; a change set loses
// certification against each of them in turn, so it gets more attempts than a single server's deadlocks
// need (docs/scale-out.md: five were exhausted by 2 of 32 contended change sets on three nodes).
const DEFAULT_ATTEMPTS = 10

/** MySQL/MariaDB error numbers the write path tells apart. */
export const ER_DUP_ENTRY = 1062
export const ER_LOCK_DEADLOCK = 1213

export function isDeadlock(error: unknown): boolean {
  return (error as { errno?: number } | null)?.errno === ER_LOCK_DEADLOCK
}

export function isDuplicateKey(error: unknown): boolean {
  return (error as { errno?: number } | null)?.errno === ER_DUP_ENTRY
}

/** The text that joins two statements into one packet. mysql2 writes a newline in a value as `\\n`, never raw. */
export const STATEMENT_JOINER = ';\n'

/** Two statements as one: their texts joined, their values in order. */
function joined(first: Statement, second: Statement): Statement {
  return new Statement(`${first.text}${STATEMENT_JOINER}${second.text}`, [...first.parameters, ...second.parameters])
}

const START_TRANSACTION = new Statement('START TRANSACTION', [])
const COMMIT = new Statement('COMMIT', [])

/** The second statement's answer out of a two-statement packet's (one result and one field list per statement). */
const secondAnswer = ([results, fields]: [unknown, unknown]): [unknown, unknown] => [
  (results as unknown[])[1],
  (fields as unknown[] | undefined)?.[1],
]

/**
 * A new Transaction per attempt: what an attempt records (change-record.ts) is keyed by it. It opens itself
 * with its first statement: START TRANSACTION goes in the same packet, so it costs no round trip of its own
 * (a prepared statement cannot share a packet: then it goes ahead alone).
 */
class ConnectionTransaction extends SourceDatabase implements Transaction {
  /** Whether START TRANSACTION has been sent on the connection for this attempt. */
  begun = false

  constructor(readonly connection: PoolConnection) {
    super(connection)
  }

  protected override send(statement: Statement, arrays: boolean, options: StatementOptions | undefined): Answer {
    if (this.begun) return super.send(statement, arrays, options)
    this.begun = true
    if (options?.prepared) return super.send(START_TRANSACTION, false, undefined).then(() => super.send(statement, arrays, options))
    return super.send(joined(START_TRANSACTION, statement), arrays, undefined).then(secondAnswer)
  }

  /**
   * Commits, with the transaction's last statement of change notes in the same packet. The packet stops at a
   * failing statement, so a note that fails leaves the transaction uncommitted, for the caller to roll back.
   */
  async commit(lastNotes: Statement | undefined): Promise<void> {
    if (lastNotes !== undefined) await this.send(joined(lastNotes, COMMIT), false, undefined).catch(notesFailure)
    // Nothing sent at all (work that wrote nothing): nothing to commit.
    else if (this.begun) await super.send(COMMIT, false, undefined)
  }
}

export function transactionOn(connection: PoolConnection): Transaction {
  return new ConnectionTransaction(connection)
}

/**
 * A random pause before a retry, doubling with the attempt (10 ms, 20 ms, … at most a second), so two
 * victims do not collide again. On a cluster the writers of other nodes keep moving the same totals rows: a
 * pause growing by steps of a few milliseconds spent its ten attempts in about 0.7 s, short of a loaded
 * machine's transactions on the other nodes; doubling spreads them over about three seconds, while a single
 * server's deadlock victim still runs again within 15 ms.
 */
function backoff(attempt: number): Promise<void> {
  const base = Math.min(1000, 10 * 2 ** (attempt - 1))
  const ms = base / 2 + Math.floor(Math.random() * base)
  return new Promise((resolve) => setTimeout(resolve, ms))
}

/** How a failed attempt of a transaction goes on. */
type AfterFailure = 'retry-here' | 'retry-elsewhere' | 'give-up'

/**
 * What a failure means for the transaction that met it, whatever statement it met it at (the first, one in
 * the middle, the totals' upsert, the request log's INSERT, or the COMMIT):
 * - a deadlock victim or a lost certification (1213), the connection still usable: it was rolled back whole;
 *   run it again here;
 * - the node cannot serve, before the COMMIT was sent (the connection lost, the node refused: nothing of an
 *   uncommitted transaction survives a lost connection), or at the COMMIT when the node answered with an
 *   error (the COMMIT did not happen) or the connection had closed before the COMMIT could be sent:
 *   nothing was committed; run it again on a fresh connection, which the
 *   failover pool takes from the next node that answers. Only when the transaction owns its connection;
 * - the connection lost during the COMMIT: the COMMIT may have happened on the node, and so on the cluster;
 *   running it again could apply it twice, so it is given up, and answered 503 (errors.ts, toODataError):
 *   the client's repeat with Repeatability-Request-ID or If-None-Match: * is applied once. Unless the work
 *   is idempotent: then it runs again on the next node, as when nothing committed;
 * - anything else is given up.
 */
function afterFailure(error: unknown, committing: boolean, connectionUsable: boolean, owned: boolean, idempotent: boolean): AfterFailure {
  if (isDeadlock(error) && connectionUsable) return 'retry-here'
  const nothingCommitted = isDatabaseUnreachable(error) && !commitMayHaveHappened(error, committing)
  const safeAgain = nothingCommitted || (idempotent && isDatabaseUnreachable(error))
  if (safeAgain && owned) return 'retry-elsewhere'
  return 'give-up'
}

/**
 * The connection was lost while the COMMIT was on its way or being answered (not refused by the node, not
 * closed before it was sent): the node may have committed.
 */
function commitMayHaveHappened(error: unknown, committing: boolean): boolean {
  return committing && isDatabaseUnreachable(error) && !isNodeUnavailable(error) && !wasNeverSent(error)
}

/** Rolls back after a failure; false when the connection itself failed and must not be used again. */
async function rollBack(connection: PoolConnection): Promise<boolean> {
  try {
    await connection.query('ROLLBACK')
    return true
  } catch {
    return false
  }
}

/**
 * Runs `work` in one READ COMMITTED transaction on a connection of the pool (taken and released here) or
 * on the given connection (left open for its owner). Commits when `work` resolves, rolls back when it
 * throws. The whole `work` runs again, a few times, when running it again cannot apply it twice
 * (afterFailure): after a deadlock or a lost certification on the same connection; after a failure of the
 * node before the COMMIT (or a COMMIT the node refused) on a fresh connection, from the next node of a
 * cluster (src/store/failover-pool.ts). A connection lost during the COMMIT is not retried: the commit may
 * have happened. So `work` must have no effect outside the transaction: handlers return their response
 * instead of writing it, and the caller sends it after the commit, so nothing has been answered when it runs
 * again.
 */
export async function runInTransaction<T>(
  source: Pool | PoolConnection,
  work: (transaction: Transaction) => Promise<T>,
  options: TransactionOptions = {},
): Promise<T> {
  const attempts = Math.max(1, options.attempts ?? DEFAULT_ATTEMPTS)
  const owned = isPool(source)
  let connection: PoolConnection | undefined = owned ? await source.getConnection() : source
  let usable = true
  try {
    for (let attempt = 1; ; attempt++) {
      let committing = false
      const transaction = new ConnectionTransaction(connection)
      try {
        const result = await work(transaction)
        // The statements deferred to the end (deferred-statements.ts: the most contended row locks), then the
        // change record's notes, last (change-record.ts), with the COMMIT. Not the other way round: the notes
        // take the change clock's shared lock, and a writer that held it while waiting for another's totals rows
        // would close a cycle with a delta reader waiting for the clock and that other writer queued behind the
        // reader. The notes travel with the COMMIT: a connection lost on the way leaves the outcome unknown, as
        // one lost at a COMMIT alone does.
        await runDeferredStatements(transaction)
        const notes = takeRecordedChanges(transaction)
        const lastNotes = notes.pop()
        for (const statement of notes) await transaction.run(statement).catch(notesFailure)
        committing = true
        await transaction.commit(lastNotes)
        return result
      } catch (error) {
        discardRecordedChanges(transaction)
        discardDeferredStatements(transaction)
        // A node that cannot serve keeps its connection out of the pool even when the ROLLBACK went through.
        usable = (await rollBack(connection)) && !isDatabaseUnreachable(error)
        const next = attempt >= attempts ? 'give-up' : afterFailure(error, committing, usable, owned, options.idempotent === true)
        if (next === 'give-up') {
          if (commitMayHaveHappened(error, committing)) markCommitOutcomeUnknown(error)
          throw error
        }
        if (next === 'retry-here') {
          await backoff(attempt)
          continue
        }
        connection.destroy()
        connection = undefined
        connection = await (source as Pool).getConnection()
        usable = true
      }
    }
  } finally {
    if (owned && connection !== undefined) {
      if (usable) connection.release()
      else connection.destroy()
    }
  }
}
