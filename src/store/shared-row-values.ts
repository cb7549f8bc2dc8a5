// The one exception to "every value a placeholder" (src/sql/sql-template.ts): a value that every row of a
// long multi-row INSERT repeats is written into the text once, escaped by the driver's own escaper exactly
// as the driver would format its placeholder. Here, beside the driver, because only src/store imports it.
import mysql from 'mysql2'
import { Statement } from '../statement.js'

/** The pool's formatting of a value (src/store/pool.ts: dates in UTC), as the driver writes a placeholder. */
function escapeLikeDriver(value: unknown): string {
  return mysql.escape(value as Parameters<typeof mysql.escape>[0], false, 'Z')
}

/**
 * Whether a value's text holds a `?`. Such a value is never written into the text: a formatter that takes
 * every `?` for a placeholder, as mysql2's did with the `sqlstring` module (3.11, which package.json
 * allows), would put the next value inside this one's literal, where that value's own quotes end the
 * literal and its text runs as SQL (a client's Content-ID in the request log, on a pool that allows
 * several statements in one packet).
 */
function holdsPlaceholderMark(value: unknown): boolean {
  return typeof value === 'string' && value.includes('?')
}

/**
 * As `rowValues`, but a column whose value is the same (`===`) in every row is written into the text once,
 * escaped, instead of as a placeholder per row (unless it holds a `?`). A batch's request-log entries share
 * their time, subject, profile, duration and batch id: the driver then formats a few values per row
 * instead of eleven.
 */
export function rowValuesSharing(rows: readonly (readonly unknown[])[], width: number): Statement {
  if (rows.length === 0 || width === 0) throw new Error('an empty VALUES list')
  const first = rows[0]!
  const shared: boolean[] = []
  for (let c = 0; c < width; c++) {
    let same = !holdsPlaceholderMark(first[c])
    for (let r = 1; r < rows.length && same; r++) same = rows[r]![c] === first[c]
    shared.push(same)
  }
  let group = '('
  for (let c = 0; c < width; c++) group += (c === 0 ? '' : ', ') + (shared[c] ? escapeLikeDriver(first[c]) : '?')
  group += ')'
  const parameters: unknown[] = []
  for (let r = 0; r < rows.length; r++) {
    const row = rows[r]!
    if (row.length !== width) throw new Error(`a row of ${row.length} values for ${width} columns`)
    for (let c = 0; c < width; c++) if (!shared[c]) parameters.push(row[c])
  }
  return new Statement(group + `, ${group}`.repeat(rows.length - 1), parameters)
}
