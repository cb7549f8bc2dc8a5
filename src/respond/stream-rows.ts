// Rows from a mysql2 query stream → JSON text → the response, with backpressure both ways:
// the query stream is paused while the socket is full and resumed when it drains, so memory holds
// a few chunks whatever the result size; a client that goes away kills the statement and destroys the
// query's connection (MySQL cannot stop a running result otherwise), and no more rows are pulled: what
// MySQL sent before the kill landed is read and dropped.
//
// Two additions serve paging and `$expand`:
// - `rowLimit`: rows past it are not written, only noticed (`more` in the tail), so a page can ask for one
//   row more than it shows and know whether a next page exists;
// - a writer with `prepareBatch`: rows are taken in batches of `batchSize`, the batch is prepared (the
//   expanded entities of those rows are read, src/service/read/expansion.ts) and then written.
//   While a batch is prepared no row is pulled, so the query waits, as it does for a slow socket.
import type { Readable } from 'node:stream'
import type { Connection as CallbackConnection } from 'mysql2'
import type { Pool } from '../store/pool.js'
import type { ResponseHeaders, ResponseSink } from './response-sink.js'

/** Text is handed to the socket in chunks of about this size: fewer syscalls, bounded memory. */
const FLUSH_BYTES = 64 * 1024
/**
 * The first chunk leaves sooner, so the first byte of a million-row export arrives about when a
 * ten-row answer would; a result smaller than this still goes out whole, with a Content-Length.
 */
const FIRST_FLUSH_BYTES = 8 * 1024

/**
 * Rows pulled from MySQL by this process so far, and rows read and dropped because their answer had ended
 * first (the reader gone, or a failure half-way): lets tests prove a stalled reader stalls the query, and
 * a departed one stops it before its end (a result that runs to its end arrives whole, pulled or dropped).
 */
export const streamStatistics = { rowsPulled: 0, rowsDropped: 0 }

/** Turns one row (an array in SELECT order) into JSON text. */
export interface RowWriter {
  write(row: readonly unknown[]): string
  /** Called with each batch of rows before they are written (reads what the rows expand to). */
  prepareBatch?(rows: readonly (readonly unknown[])[]): Promise<void>
  /** Rows per batch when `prepareBatch` is present. */
  readonly batchSize?: number
}

export interface StreamRowsOptions {
  readonly sql: string
  readonly values: readonly unknown[]
  readonly writer: RowWriter
  readonly status: number
  readonly headers: ResponseHeaders
  /** Text before the first row (`{"@odata.context":…,"value":[`) and after the last (`]}`). */
  readonly head: string
  readonly tail: string | ((rowCount: number, lastRow: readonly unknown[] | undefined, more: boolean) => string)
  /** Write at most this many rows; a further row only sets `more` for the tail. */
  readonly rowLimit?: number
}

export async function streamRows(sink: ResponseSink, pool: Pool, options: StreamRowsOptions): Promise<void> {
  const connection = await pool.getConnection()
  // Abort listeners hear only of an abort still to come: a reader that left while this request waited
  // (for a connection, for its $count) is known by `aborted` alone, and a query started for it would
  // only be killed.
  if (sink.aborted) {
    connection.release()
    return
  }
  let destroyed = false
  let settled = false
  let stop: (() => void) | undefined
  const destroy = () => {
    if (destroyed) return
    destroyed = true
    connection.destroy()
  }
  try {
    // Streaming needs the callback API underneath the promise wrapper.
    const callbackConnection = (connection as unknown as { connection: CallbackConnection }).connection
    const query = callbackConnection.query({ sql: options.sql, rowsAsArray: true, values: options.values as unknown[] })
    const stream = query.stream({ highWaterMark: 256 })
    const rows = stream as unknown as Readable
    let finished = false
    let stopped = false
    // Ends the statement when its answer ends first: the reader gone (heard by the abort listener, or seen
    // by the loop as `aborted`: a batch's operations share their client's `aborted` but hear of no abort),
    // or a failure. A connection released with its result unread stays paused on a full stream: its
    // statement stalls on the server and the next user of the connection waits behind it.
    stop = () => {
      // Once released, the connection and its thread id belong to another request.
      if (stopped || finished || settled) return
      stopped = true
      // Destroying the stream resumes the connection: the rows sent until the KILL lands are still read,
      // and dropped. The interruption that ends them is expected; unheard, mysql2 would take it for a
      // fatal error of the connection.
      streamStatistics.rowsDropped += rows.readableLength
      query.on('result', () => streamStatistics.rowsDropped++)
      query.on('error', () => undefined)
      stream.destroy()
      // MySQL and MariaDB go on running a statement whose client has left (MariaDB scanned a whole
      // million-row register for seconds): end the statement itself, from another connection.
      // Thread ids only grow, so the id cannot name another client's statement.
      const threadId = (connection as unknown as { threadId?: number }).threadId
      if (typeof threadId === 'number') pool.query('KILL QUERY ?', [threadId]).catch(() => undefined)
      destroy()
    }
    sink.onAbort(stop)
    const writer = options.writer
    const limit = options.rowLimit ?? Infinity
    const batchSize = writer.prepareBatch ? Math.max(1, writer.batchSize ?? 500) : 0
    let batch: (readonly unknown[])[] = []
    let buffer = options.head
    let count = 0
    let more = false
    let last: readonly unknown[] | undefined
    let begun = false

    const flush = async () => {
      if (!begun) {
        sink.begin(options.status, options.headers)
        begun = true
      }
      const ok = sink.write(buffer)
      buffer = ''
      // No row is read while we wait here, which pauses the query stream.
      if (!ok) await sink.drained()
    }
    // Synchronous on purpose: the per-row path of a million-row export must not allocate a promise.
    const writeRow = (row: readonly unknown[]) => {
      buffer += (count === 0 ? '' : ',') + writer.write(row)
      count++
      last = row
      return buffer.length >= (begun ? FLUSH_BYTES : FIRST_FLUSH_BYTES)
    }
    const writeBatch = async () => {
      const rows = batch
      batch = []
      await writer.prepareBatch!(rows)
      for (const row of rows) {
        if (sink.aborted) return
        if (writeRow(row)) await flush()
      }
    }

    // Rows are taken with read() while the stream has them, and awaited only when it has none: an async
    // iterator would cost a promise per row. While nothing is read (a full socket, a batch being
    // prepared) the stream's buffer fills and mysql2 pauses the connection.
    let failure: unknown
    let wake: (() => void) | undefined
    const notify = () => {
      const resolve = wake
      wake = undefined
      resolve?.()
    }
    rows.on('readable', notify)
    rows.on('end', () => ((finished = true), notify()))
    rows.on('close', () => ((finished = true), notify()))
    rows.on('error', (error: unknown) => ((failure = error), (finished = true), notify()))
    const available = () => new Promise<void>((resolve) => (wake = resolve))

    for (;;) {
      if (sink.aborted) break
      const row = rows.read() as unknown[] | null
      if (row === null) {
        if (failure !== undefined) throw failure
        if (finished) break
        await available()
        continue
      }
      streamStatistics.rowsPulled++
      if (count + batch.length >= limit) {
        more = true
        continue
      }
      if (batchSize === 0) {
        if (writeRow(row)) await flush()
      } else if (batch.push(row) >= batchSize) await writeBatch()
    }
    if (failure !== undefined) throw failure
    if (batch.length > 0 && !sink.aborted) await writeBatch()
    if (sink.aborted) {
      stop()
      return
    }
    buffer += typeof options.tail === 'string' ? options.tail : options.tail(count, last, more)
    if (!begun) {
      // The whole result fitted in one chunk: send it with a Content-Length.
      sink.send(options.status, options.headers, buffer)
    } else {
      sink.end(buffer)
    }
  } catch (error) {
    // A failure of the writer or of an expansion leaves the statement running; one of the query itself does not.
    stop?.()
    destroy()
    throw error
  } finally {
    settled = true
    if (!destroyed) connection.release()
  }
}
