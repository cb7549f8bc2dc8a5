// Failures of the database that a client can do something about: they are answered 503 with
// Retry-After (errors.ts, toODataError). A leaf of its own, below the error registry that uses it instead of 500, because retrying later is the right move and
// nothing was written (a write's transaction is rolled back, src/store/transaction.ts).

/** InnoDB gave up waiting for a row lock (innodb_lock_wait_timeout): other writes held the rows. */
export const ER_LOCK_WAIT_TIMEOUT = 1205

/**
 * A node of a Galera cluster that is not in the primary component or not yet synced refuses statements
 * with this error ("WSREP has not yet prepared node for application use"); another node may serve.
 */
export const ER_NODE_NOT_READY = 1047

/** Ways the driver reports that the server cannot be reached or went away. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'PROTOCOL_CONNECTION_LOST',
  'ER_CON_COUNT_ERROR',
])

/**
 * A deadlock victim, or (MariaDB Galera) a transaction that lost certification against a write committed
 * on another node: error 1213 either way. The write path retries it (src/store/transaction.ts); one that
 * still conflicts after the retries is a 503 to retry, like a lock wait timeout.
 */
export const ER_LOCK_DEADLOCK = 1213

export function isWriteConflict(error: unknown): boolean {
  return (error as { errno?: number } | null)?.errno === ER_LOCK_DEADLOCK
}

export function isLockWaitTimeout(error: unknown): boolean {
  return (error as { errno?: number } | null)?.errno === ER_LOCK_WAIT_TIMEOUT
}

export function isDatabaseUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return (typeof code === 'string' && UNREACHABLE_CODES.has(code)) || (error as { errno?: unknown } | null)?.errno === ER_NODE_NOT_READY
}
