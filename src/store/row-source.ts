// The rows of one SELECT, pulled one at a time by whoever writes them out (src/respond/stream-rows.ts frames
// them as JSON for the socket); opened by the database port (database.ts). On the pool they come from a
// mysql2 query stream on a connection of their own (StreamedRows). The reader decides the pace: while it
// reads nothing (a full socket, a batch of expansions being read) the stream's buffer fills and mysql2
// pauses the connection, so the statement waits and memory holds a few hundred rows whatever the result
// size.
//
// A result given up before its end is stopped, not drained: `cancel` ends the statement with KILL QUERY
// from another connection (MySQL and MariaDB otherwise go on running a statement whose client has left:
// MariaDB scanned a whole million-row register for seconds) and destroys the query's connection, since a
// connection given back with an unread result would hold its statement and its next user. `close` does
// the same when rows are left unread, and gives the connection back otherwise.
//
// A connection lost while its statement runs (KILL CONNECTION, a server restart, a failover) ends the read
// with that failure: mysql2 tells a lost connection only to a command with a callback, and a streamed query
// has none, so its stream would never end or fail; the connection's own `error` event is heard instead.
import type { Readable } from 'node:stream'
import type { Connection as CallbackConnection, Query } from 'mysql2'
import type { Statement } from '../statement.js'
import type { Pool, PoolConnection } from './pool.js'
import { translateQueryError } from './query-errors.js'

/**
 * Rows pulled from MySQL by this process so far, and rows read and dropped because their reader had given
 * up first (gone, or failed half-way): lets tests prove a stalled reader stalls the query, and a departed
 * one stops it before its end (a result that runs to its end arrives whole, pulled or dropped).
 */
export const streamStatistics = { rowsPulled: 0, rowsDropped: 0 }

/** Rows mysql2 buffers before it pauses the connection. */
const HIGH_WATER_MARK = 256

/** Rows of a statement as their reader pulls them. */
export interface RowSource {
  /** The next row if one has arrived, else null (see `ended` and `wait`); throws the statement's failure. */
  read(): unknown[] | null
  /** Every row has been read (or the statement failed, or was cancelled). */
  readonly ended: boolean
  /** Resolves when a row arrives or the result ends. */
  wait(): Promise<void>
  /** Throws the statement's failure, if it failed. */
  throwIfFailed(): void
  /** The reader gives up before the end: the statement is stopped. */
  cancel(): void
  /** Gives the statement up after a failure of its reader. */
  discard(): void
  /** The end of the read. */
  close(): void
}

/** Rows already read whole (a statement on a connection the source does not own, database.ts). */
export function rowsReadWhole(rows: readonly unknown[][]): RowSource {
  let next = 0
  return {
    read: () => (next < rows.length ? rows[next++]! : null),
    get ended() {
      return next >= rows.length
    },
    wait: () => Promise.resolve(),
    throwIfFailed: () => undefined,
    cancel: () => {
      next = rows.length
    },
    discard: () => {
      next = rows.length
    },
    close: () => {
      next = rows.length
    },
  }
}

export class StreamedRows implements RowSource {
  private finished = false
  private stopped = false
  private destroyed = false
  private closed = false
  private failure: unknown
  private wake: (() => void) | undefined
  private readonly query: Query
  private readonly rows: Readable

  private constructor(
    private readonly pool: Pool,
    private readonly connection: PoolConnection,
    private readonly callbackConnection: CallbackConnection,
    statement: Statement,
  ) {
    // Heard before the statement is sent: a connection already closed fails the statement at once, on
    // the connection only.
    callbackConnection.on('error', this.connectionLost)
    this.query = callbackConnection.query({ sql: statement.text, rowsAsArray: true, values: statement.parameters as unknown[] })
    this.rows = this.query.stream({ highWaterMark: HIGH_WATER_MARK }) as unknown as Readable
    // Awaited only when the stream has no row: an async iterator would cost a promise per row.
    this.rows.on('readable', this.notify)
    this.rows.on('end', () => {
      this.finished = true
      this.notify()
    })
    this.rows.on('close', () => {
      this.finished = true
      this.notify()
    })
    this.rows.on('error', (error: unknown) => {
      this.failure = translateQueryError(error)
      this.finished = true
      this.notify()
    })
  }

  /**
   * Takes a connection and starts the statement on it, rows as arrays in SELECT order; undefined, with
   * the connection given back unused, when `wanted` says the reader has gone while a connection was
   * awaited (a statement started for it would only be killed).
   */
  static async open(pool: Pool, statement: Statement, wanted: () => boolean = () => true): Promise<RowSource | undefined> {
    const connection = await pool.getConnection()
    if (!wanted()) {
      connection.release()
      return undefined
    }
    try {
      // Streaming needs the callback API underneath the promise wrapper.
      const callbackConnection = (connection as unknown as { connection: CallbackConnection }).connection
      return new StreamedRows(pool, connection, callbackConnection, statement)
    } catch (error) {
      connection.destroy()
      throw error
    }
  }

  /** The connection failed under the statement: the read ends with that failure, unless it had ended already. */
  private readonly connectionLost = (error: unknown) => {
    if (this.finished) return
    this.failure = translateQueryError(error)
    this.finished = true
    this.destroy()
    this.notify()
  }

  private readonly notify = () => {
    const resolve = this.wake
    this.wake = undefined
    resolve?.()
  }

  read(): unknown[] | null {
    const row = this.rows.read() as unknown[] | null
    if (row === null) {
      if (this.failure !== undefined) throw this.failure
      return null
    }
    streamStatistics.rowsPulled++
    return row
  }

  get ended(): boolean {
    return this.finished
  }

  wait(): Promise<void> {
    return new Promise<void>((resolve) => (this.wake = resolve))
  }

  throwIfFailed(): void {
    if (this.failure !== undefined) throw this.failure
  }

  /**
   * Stops the statement when its reader gives up before its end; nothing once the result has ended or
   * the connection has been given back (its thread id then belongs to another request).
   */
  cancel(): void {
    if (this.stopped || this.finished || this.closed) return
    this.stopped = true
    // Destroying the stream resumes the connection: the rows sent until the KILL lands are still read,
    // and dropped. The interruption that ends them is expected; unheard, mysql2 would take it for a
    // fatal error of the connection.
    streamStatistics.rowsDropped += this.rows.readableLength
    this.query.on('result', () => streamStatistics.rowsDropped++)
    this.query.on('error', () => undefined)
    this.rows.destroy()
    // Thread ids only grow, so the id cannot name another client's statement.
    const threadId = (this.connection as unknown as { threadId?: number }).threadId
    if (typeof threadId === 'number') this.pool.query('KILL QUERY ?', [threadId]).catch(() => undefined)
    this.destroy()
  }

  /** Gives the statement up after a failure of its reader: stopped if still running, the connection destroyed. */
  discard(): void {
    this.cancel()
    this.destroy()
  }

  /** The end of the read: the connection goes back to the pool, or, with rows left unread, the statement is stopped. */
  close(): void {
    if (this.closed) return
    this.cancel()
    this.closed = true
    this.callbackConnection.off('error', this.connectionLost)
    if (!this.destroyed) this.connection.release()
  }

  private destroy(): void {
    if (this.destroyed) return
    this.destroyed = true
    this.callbackConnection.off('error', this.connectionLost)
    this.connection.destroy()
  }
}
