// Runs a compiled query and returns its rows as arrays (the order of the SELECT list), through the database
// port (which translates a failure the request caused). The text protocol: reads build many distinct
// statements, which would only fill the server's prepared-statement cache.
import type { Statement } from '../../statement.js'
import { databaseOf } from '../../store/database.js'
import type { Pool } from '../../store/pool.js'
import type { Row } from './projection.js'

export type QueryRunner = (query: Statement) => Promise<Row[]>

export function poolRunner(pool: Pool): QueryRunner {
  const database = databaseOf(pool)
  return (query) => database.arrays(query) as Promise<Row[]>
}
