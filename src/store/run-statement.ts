// Statements of the one builder (src/sql/sql-template.ts) on the pool or a connection outside a write
// transaction (a write's statements go through its Transaction). `query` sends the text with its values
// formatted in by the driver; `execute` prepares it on the server (cached per connection), for the short
// statements that run on every request (a key read, a rate counter).
import type { Statement } from '../sql/sql-template.js'
import { sqlValues, type Pool, type PoolConnection } from './pool.js'

type Source = Pool | PoolConnection

/** The statement's rows (objects by column name) or, for one that changes rows, its result header. */
export async function query<T = unknown>(source: Source, statement: Statement): Promise<T> {
  const [result] = await source.query(statement.text, statement.parameters as unknown[])
  return result as T
}

/** As `query`, as a prepared statement. */
export async function execute<T = unknown>(source: Source, statement: Statement): Promise<T> {
  const [result] = await source.execute(statement.text, sqlValues(statement.parameters))
  return result as T
}
