// Rows of an opened row source (src/store/row-source.ts) → JSON text → the response, with backpressure both ways:
// no row is read while the socket is full, so the row source's stream fills and the query waits, and
// memory holds a few chunks whatever the result size. A client that goes away stops the statement
// (the row source kills it and destroys its connection), and no more rows are read.
//
// Two additions serve paging and `$expand`:
// - `rowLimit`: rows past it are not written, only noticed (`more` in the tail), so a page can ask for one
//   row more than it shows and know whether a next page exists;
// - a writer with `prepareBatch`: rows are taken in batches of `batchSize`, the batch is prepared (the
//   expanded entities of those rows are read, src/service/read/expansion.ts) and then written.
//   While a batch is prepared no row is read, so the query waits, as it does for a slow socket.
import { rowsStreamedTotal } from '../metrics/service-metrics.js'
import type { RowSource } from '../store/row-source.js'
import type { ResponseHeaders, ResponseSink } from './response-sink.js'

/** Text is handed to the socket in chunks of about this size: fewer syscalls, bounded memory. */
const FLUSH_BYTES = 64 * 1024
/**
 * The first chunk leaves sooner, so the first byte of a million-row export arrives about when a
 * ten-row answer would; a result smaller than this still goes out whole, with a Content-Length.
 */
const FIRST_FLUSH_BYTES = 8 * 1024

/** Turns one row (an array in SELECT order) into JSON text. */
export interface RowWriter {
  write(row: readonly unknown[]): string
  /** Called with each batch of rows before they are written (reads what the rows expand to). */
  prepareBatch?(rows: readonly (readonly unknown[])[]): Promise<void>
  /** Rows per batch when `prepareBatch` is present. */
  readonly batchSize?: number
}

export interface StreamRowsOptions {
  readonly writer: RowWriter
  readonly status: number
  readonly headers: ResponseHeaders
  /** Text before the first row (`{"@odata.context":…,"value":[`) and after the last (`]}`). */
  readonly head: string
  readonly tail: string | ((rowCount: number, lastRow: readonly unknown[] | undefined, more: boolean) => string)
  /** Write at most this many rows; a further row only sets `more` for the tail. */
  readonly rowLimit?: number
}

/**
 * Writes the rows of `source` (opened by the caller, with `wanted` = `() => !sink.aborted`: abort listeners
 * hear only of an abort still to come, so a reader that left while the request waited for a connection or
 * its $count is known by `aborted` alone) and closes it, whatever happens.
 */
export async function streamRows(sink: ResponseSink, source: RowSource, options: StreamRowsOptions): Promise<void> {
  try {
    // The reader gone ends the statement: heard by the abort listener, or seen by the loop as `aborted`
    // (a batch's operations share their client's `aborted` but hear of no abort).
    sink.onAbort(() => source.cancel())
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
      // No row is read while we wait here, which pauses the query.
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

    // Rows are taken while the source has them, and awaited only when it has none.
    for (;;) {
      if (sink.aborted) break
      const row = source.read()
      if (row === null) {
        if (source.ended) break
        await source.wait()
        continue
      }
      if (count + batch.length >= limit) {
        more = true
        continue
      }
      if (batchSize === 0) {
        if (writeRow(row)) await flush()
      } else if (batch.push(row) >= batchSize) await writeBatch()
    }
    source.throwIfFailed()
    if (batch.length > 0 && !sink.aborted) await writeBatch()
    rowsStreamedTotal.inc(count)
    if (sink.aborted) {
      source.cancel()
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
    source.discard()
    throw error
  } finally {
    source.close()
  }
}
