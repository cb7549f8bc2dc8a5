// The one port to the database: every statement of the service runs through a `Database`, on the pool (each
// statement on a connection of its own, given back at once; src/store/pool.ts) or on one connection (a
// write's transaction, src/store/transaction.ts; a connection holding a session setting or a lock). It takes
// the one `Statement` (src/statement.ts) and hands back rows, a result header or an opened row source, so no
// module outside src/store knows the driver (the pipeline-order check refuses mysql2 elsewhere).
//
// A read's failure that the request caused (a value MySQL cannot compute) is translated here, once, into
// the client's 400 (query-errors.ts); a statement that changes rows keeps the driver's error, which the
// write path tells apart by number (duplicate key, deadlock: transaction.ts).
import type { ResultSetHeader } from 'mysql2'
import type { Statement } from '../statement.js'
import { isPool, sqlValues, type Pool, type PoolConnection } from './pool.js'
import { translateQueryError } from './query-errors.js'
import { type RowSource, rowsReadWhole, StreamedRows } from './row-source.js'

/** What a statement that changes rows answers: affectedRows, insertId, … */
export type RunResult = ResultSetHeader

export interface StatementOptions {
  /**
   * Prepared on the server (cached per connection) instead of sent as text with its values formatted in:
   * for the short statements that run on every request (a key read, a rate counter). Reads that build
   * many distinct statements stay text, which would only fill the server's prepared-statement cache.
   */
  readonly prepared?: boolean
}

export interface Database {
  /** A query's rows, objects by column name. */
  rows<T = Record<string, unknown>>(statement: Statement, options?: StatementOptions): Promise<T[]>
  /** A query's rows as arrays in the order of the select list. */
  arrays(statement: Statement, options?: StatementOptions): Promise<unknown[][]>
  /** A statement that changes rows. */
  run(statement: Statement, options?: StatementOptions): Promise<RunResult>
  /**
   * The rows of a query, pulled one at a time by their reader (row-source.ts); undefined, starting nothing,
   * when `wanted` says the reader has gone while a connection was awaited.
   */
  open(statement: Statement, wanted?: () => boolean): Promise<RowSource | undefined>
}

type Source = Pool | PoolConnection

/** What the driver answers a statement: its result (rows or a header) and its fields. */
export type Answer = Promise<[unknown, unknown]>

// Plain promise chains rather than async functions: one promise per statement beyond the driver's, on the
// paths every request takes (the key read, the rate counters).
function send(source: Source, statement: Statement, arrays: boolean, options: StatementOptions | undefined): Answer {
  const values = sqlValues(statement.parameters)
  if (options?.prepared)
    return (arrays ? source.execute({ sql: statement.text, rowsAsArray: true }, values) : source.execute(statement.text, values)) as Answer
  return (arrays ? source.query({ sql: statement.text, rowsAsArray: true }, values) : source.query(statement.text, values)) as Answer
}

const resultOf = (answer: [unknown, unknown]) => answer[0]

const translated = (error: unknown): never => {
  throw translateQueryError(error)
}

/** The port over a pool, or over one connection (its statements in the order they are given). */
export class SourceDatabase implements Database {
  constructor(private readonly source: Source) {}

  /** Sends one statement; a transaction's port (transaction.ts) sends its first one behind its START TRANSACTION. */
  protected send(statement: Statement, arrays: boolean, options: StatementOptions | undefined): Answer {
    return send(this.source, statement, arrays, options)
  }

  rows<T = Record<string, unknown>>(statement: Statement, options?: StatementOptions): Promise<T[]> {
    return this.send(statement, false, options).then(resultOf, translated) as Promise<T[]>
  }

  arrays(statement: Statement, options?: StatementOptions): Promise<unknown[][]> {
    return this.send(statement, true, options).then(resultOf, translated) as Promise<unknown[][]>
  }

  run(statement: Statement, options?: StatementOptions): Promise<RunResult> {
    return this.send(statement, false, options).then(resultOf) as Promise<RunResult>
  }

  /**
   * On the pool the rows stream from a connection of their own, which a reader that gives up stops. On a
   * connection that belongs to someone else (a transaction's) a statement could not be stopped without
   * breaking its owner's work, so its rows are read whole first (a write reads bounded rows).
   */
  async open(statement: Statement, wanted: () => boolean = () => true): Promise<RowSource | undefined> {
    if (isPool(this.source)) return StreamedRows.open(this.source, statement, wanted)
    return rowsReadWhole(await this.arrays(statement))
  }
}

const ports = new WeakMap<Source, Database>()

/** The port over a pool or a connection, made once per pool or connection. */
export function databaseOf(source: Source): Database {
  let port = ports.get(source)
  if (port === undefined) {
    port = new SourceDatabase(source)
    ports.set(source, port)
  }
  return port
}
