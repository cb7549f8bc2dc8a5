// Failures of the database that a client can do something about: they are answered 503 with
// Retry-After (errors.ts, toODataError) instead of 500, because retrying later is the right move and
// nothing was written (a write's transaction is rolled back, src/store/transaction.ts).

/** InnoDB gave up waiting for a row lock (innodb_lock_wait_timeout): other writes held the rows. */
export const ER_LOCK_WAIT_TIMEOUT = 1205

/** Ways the driver reports that the server cannot be reached or went away. */
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ENOTFOUND', 'ETIMEDOUT', 'EPIPE', 'EHOSTUNREACH', 'PROTOCOL_CONNECTION_LOST', 'ER_CON_COUNT_ERROR'])

export function isLockWaitTimeout(error: unknown): boolean {
  return (error as { errno?: number } | null)?.errno === ER_LOCK_WAIT_TIMEOUT
}

export function isDatabaseUnreachable(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code
  return typeof code === 'string' && UNREACHABLE_CODES.has(code)
}
