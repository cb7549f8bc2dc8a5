// Runs a compiled query and returns its rows as arrays (the order of the SELECT list). The text
// protocol (query, not execute): reads build many distinct statements, which would only fill the
// server's prepared-statement cache.
import type { Statement } from '../../statement.js'
import { sqlValues, type Pool } from '../../store/pool.js'
import type { Row } from './projection.js'
import { translateQueryError } from './query-errors.js'

export type QueryRunner = (query: Statement) => Promise<Row[]>

export function poolRunner(pool: Pool): QueryRunner {
  return async (query) => {
    try {
      const [rows] = await pool.query({ sql: query.text, rowsAsArray: true }, sqlValues(query.parameters))
      return rows as Row[]
    } catch (error) {
      throw translateQueryError(error)
    }
  }
}
