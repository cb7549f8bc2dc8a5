// Rows from a mysql2 query stream → JSON text → the response, with backpressure both ways:
// the query stream is paused while the socket is full and resumed when it drains, so memory holds
// a few chunks whatever the result size; a client that goes away destroys the query's connection
// (MySQL cannot stop a running result otherwise) and nothing more is read.
import type { Connection as CallbackConnection } from 'mysql2'
import type { Pool } from '../store/pool.js'
import type { ResponseHeaders, ResponseSink } from './response-sink.js'
import type { EntityWriter } from './entity-writer.js'

/** Text is handed to the socket in chunks of about this size: fewer syscalls, bounded memory. */
const FLUSH_BYTES = 64 * 1024

/** Rows pulled from MySQL by this process so far: lets tests prove a stalled reader stalls the query. */
export const streamStatistics = { rowsPulled: 0 }

export interface StreamRowsOptions {
  readonly sql: string
  readonly values: readonly unknown[]
  readonly writer: EntityWriter
  readonly status: number
  readonly headers: ResponseHeaders
  /** Text before the first row (`{"@odata.context":…,"value":[`) and after the last (`]}`). */
  readonly head: string
  readonly tail: string | ((rowCount: number, lastRow: readonly unknown[] | undefined) => string)
}

export async function streamRows(sink: ResponseSink, pool: Pool, options: StreamRowsOptions): Promise<void> {
  const connection = await pool.getConnection()
  let destroyed = false
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
    sink.onAbort(() => {
      stream.destroy()
      destroy()
    })
    let buffer = options.head
    let count = 0
    let last: readonly unknown[] | undefined
    let begun = false
    const begin = () => {
      if (!begun) {
        sink.begin(options.status, options.headers)
        begun = true
      }
    }
    for await (const row of stream as AsyncIterable<unknown[]>) {
      if (sink.aborted) break
      streamStatistics.rowsPulled++
      buffer += (count === 0 ? '' : ',') + options.writer.write(row)
      count++
      last = row
      if (buffer.length >= FLUSH_BYTES) {
        begin()
        const ok = sink.write(buffer)
        buffer = ''
        // `for await` stops pulling rows while we wait here, which pauses the query stream.
        if (!ok) await sink.drained()
      }
    }
    if (sink.aborted) return
    buffer += typeof options.tail === 'string' ? options.tail : options.tail(count, last)
    if (!begun) {
      // The whole result fitted in one chunk: send it with a Content-Length.
      sink.send(options.status, options.headers, buffer)
    } else {
      sink.end(buffer)
    }
  } catch (error) {
    destroy()
    throw error
  } finally {
    if (!destroyed) connection.release()
  }
}
