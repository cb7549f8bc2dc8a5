// A read's rows to the response: the query opened through the database port, then written by
// src/respond/stream-rows.ts, which sees rows and never SQL. A reader gone while a connection was awaited
// starts no statement.
import type { ResponseSink } from '../../respond/response-sink.js'
import { streamRows, type StreamRowsOptions } from '../../respond/stream-rows.js'
import type { Statement } from '../../statement.js'
import { databaseOf } from '../../store/database.js'
import type { Pool } from '../../store/pool.js'

export async function streamQuery(sink: ResponseSink, pool: Pool, query: Statement, options: StreamRowsOptions): Promise<void> {
  const source = await databaseOf(pool).open(query, () => !sink.aborted)
  if (source) await streamRows(sink, source, options)
}
