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

/**
 * Ways the driver reports that the server cannot be reached or went away. A node killed (kill -9) or cut
 * off shows as any of them, depending on the moment it lands: refused or reset while connecting, reset or
 * closed during a statement, or closed while the connection sat idle between two statements (the next
 * statement then fails at once, with no code: see isConnectionLost).
 */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ECONNABORTED',
  'PROTOCOL_CONNECTION_LOST',
  'PROTOCOL_SEQUENCE_TIMEOUT',
  'ER_CON_COUNT_ERROR',
])

/**
 * Errors the server itself answers when it, as a node, cannot serve the connection any more: nothing of the
 * statement (a COMMIT included) was applied, and another node may serve.
 * - 1047 ER_UNKNOWN_COM_ERROR: a Galera node not in the primary component or not yet synced ("WSREP has not
 *   yet prepared node for application use"), also at a COMMIT when the node left the component meanwhile;
 * - 1053 ER_SERVER_SHUTDOWN: the server is shutting down;
 * - 1927 ER_CONNECTION_KILLED: the connection was killed (a shutdown, a node leaving the cluster);
 * - 1180 ER_ERROR_DURING_COMMIT: the COMMIT failed in the engine or in replication (Galera: the write set
 *   could not be replicated while the cluster changed); the transaction is rolled back;
 * - 1152 ER_ABORTING_CONNECTION, 1158-1161 ER_NET_READ_ERROR, ER_NET_READ_INTERRUPTED, ER_NET_ERROR_ON_WRITE,
 *   ER_NET_WRITE_INTERRUPTED: the server lost the connection's packets (a node going away mid-handshake).
 */
export const NODE_UNAVAILABLE_ERRNOS = new Set([ER_NODE_NOT_READY, 1053, 1927, 1180, 1152, 1158, 1159, 1160, 1161])

/**
 * The connection is gone: the driver reports an unreachable server by its code, or marks the error fatal
 * without a server error number (mysql2's "Can't add new command when connection is in closed state",
 * given to every statement after the connection closed while idle, has no code at all). A fatal error
 * with a server error number (a refused login) is the server's answer, not a lost connection.
 */
export function isConnectionLost(error: unknown): boolean {
  const failure = error as { code?: unknown; errno?: unknown; fatal?: unknown } | null
  if (failure === null || typeof failure !== 'object') return false
  if (typeof failure.code === 'string' && UNREACHABLE_CODES.has(failure.code)) return true
  return failure.fatal === true && typeof failure.errno !== 'number'
}

/**
 * The statement was never sent: the connection had closed before it (mysql2 refuses a command on a closed
 * connection with this message and no code). Even for a COMMIT, the node cannot have had it.
 */
export function wasNeverSent(error: unknown): boolean {
  const failure = error as { fatal?: unknown; code?: unknown; message?: unknown } | null
  return (
    failure?.fatal === true &&
    failure.code === undefined &&
    typeof failure.message === 'string' &&
    failure.message.startsWith("Can't add new command when connection is in closed state")
  )
}

/** The server answered that this node cannot serve (NODE_UNAVAILABLE_ERRNOS): nothing of the statement was applied. */
export function isNodeUnavailable(error: unknown): boolean {
  const errno = (error as { errno?: unknown } | null)?.errno
  return typeof errno === 'number' && NODE_UNAVAILABLE_ERRNOS.has(errno)
}

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

/** The database (this node of it) cannot serve: the connection is lost, or the node says it cannot serve. A 503 to retry. */
export function isDatabaseUnreachable(error: unknown): boolean {
  return isConnectionLost(error) || isNodeUnavailable(error)
}

/**
 * Failures after which a transaction's COMMIT may or may not have happened (the connection lost while the
 * COMMIT was on its way or being answered): runInTransaction marks them when it gives up, so that the answer
 * says the outcome is unknown instead of "nothing was written" (errors.ts, the JSON batch's 424s).
 */
const commitOutcomeUnknown = new WeakSet<object>()

export function markCommitOutcomeUnknown(error: unknown): void {
  if (typeof error === 'object' && error !== null) commitOutcomeUnknown.add(error)
}

export function isCommitOutcomeUnknown(error: unknown): boolean {
  return typeof error === 'object' && error !== null && commitOutcomeUnknown.has(error)
}
