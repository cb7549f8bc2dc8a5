// The read-only check of the totals (`odata-registers verify`): every totals table against a recomputation
// from the movements, made by the same SELECT the rebuild inserts (totals.ts, totals-rebuild.ts), so the check and the
// rebuild cannot disagree about what right totals are.
//
// The comparison is done by the database, one statement per totals table, and only the differing groups
// come back, streamed: at ten million movements neither side is ever held in memory. The statement puts
// the kept rows and the recomputed rows under one another (UNION ALL, each resource once as "kept" and once
// as "recomputed", the other side 0) and sums them per key: a group whose sums differ is a difference. A
// kept row of zeros that the recomputation does not have (a group whose movements were all removed,
// totals.ts says why writes leave it) sums to the same zeros, so it is no difference, as it must not be.
//
// One statement reads the totals and the movements in one snapshot (InnoDB's consistent read), so the
// check is right while writes go on: a write committed after the statement began is in neither side.
// Nothing is written, and nothing is locked.
import type { Readable } from 'node:stream'
import type { Connection as CallbackConnection } from 'mysql2'
import type { ServiceModel } from '../model/model.js'
import { id, join, raw, sql, type Statement } from '../sql/sql-template.js'
import type { Pool } from './pool.js'
import { totalsSources, type TotalsSource } from './totals.js'

/** One group (a totals key) whose kept resources are not those of the recomputation. */
export interface TotalsDifference {
  readonly table: string
  /** Key column → value (`Period`, dimensions; accounting: `Account_Key`, extra dimensions). */
  readonly key: Record<string, unknown>
  /** Resource column → [kept, recomputed], only the columns that differ. */
  readonly resources: Record<string, [kept: string, recomputed: string]>
}

export interface TotalsCheck {
  /** The totals tables compared. */
  readonly tables: string[]
  /** How many groups differ, per table (0 for an equal table). */
  readonly differingGroups: Record<string, number>
  /** The first differences found (at most `keep`), in key order per table. */
  readonly differences: TotalsDifference[]
}

const kept = (column: string) => `kept_${column}`
const recomputed = (column: string) => `recomputed_${column}`

/** The SELECT of the groups where a totals table and its recomputation differ: keys, then kept and recomputed sums. */
export function totalsDifferenceStatement(source: TotalsSource): Statement {
  const keys = join(source.keyColumns.map((c) => id(c)))
  const zero = (column: string) => sql`0 AS ${id(column)}`
  const keptSide = sql`SELECT ${join([
    ...source.keyColumns.map((c) => id(c)),
    ...source.resourceColumns.map((c) => sql`${id(c)} AS ${id(kept(c))}`),
    ...source.resourceColumns.map((c) => zero(recomputed(c))),
  ])} FROM ${id(source.totalsTable)}`
  const recomputedSide = sql`SELECT ${join([
    ...source.keyColumns.map((c) => id(c)),
    ...source.resourceColumns.map((c) => zero(kept(c))),
    ...source.resourceColumns.map((c) => id(c)),
  ])} FROM (${source.select(raw(''), 1)}) AS ${id('recomputation')}`
  const sums = source.resourceColumns.flatMap((c) => [
    sql`SUM(${id(kept(c))}) AS ${id(kept(c))}`,
    sql`SUM(${id(recomputed(c))}) AS ${id(recomputed(c))}`,
  ])
  const differs = join(
    source.resourceColumns.map((c) => sql`SUM(${id(kept(c))}) <> SUM(${id(recomputed(c))})`),
    ' OR ',
  )
  return sql`SELECT ${join([keys, ...sums])} FROM (${keptSide} UNION ALL ${recomputedSide}) AS ${id('both_sides')} GROUP BY ${keys} HAVING ${differs} ORDER BY ${keys}`
}

/**
 * Compares every totals table of the model with a recomputation from its movements, writing nothing.
 * Keeps the first `keep` differences (all of them are counted).
 */
export async function checkTotals(pool: Pool, model: ServiceModel, keep = 20): Promise<TotalsCheck> {
  const check: TotalsCheck = { tables: [], differingGroups: {}, differences: [] }
  const connection = await pool.getConnection()
  try {
    for (const source of totalsSources(model)) {
      check.tables.push(source.totalsTable)
      check.differingGroups[source.totalsTable] = 0
      const statement = totalsDifferenceStatement(source)
      // The callback connection's query stream: rows arrive as the server sends them, a few hundred buffered.
      const callbackConnection = (connection as unknown as { connection: CallbackConnection }).connection
      // A connection lost under the statement is told to the connection only (mysql2 tells commands without a
      // callback nothing): heard there, before the statement is sent, it fails the stream, and so the check.
      let rows: Readable | undefined
      let lost: Error | undefined
      const onLost = (error: Error) => {
        lost = error
        rows?.destroy(error)
      }
      callbackConnection.on('error', onLost)
      try {
        rows = callbackConnection.query({ sql: statement.text, values: [...statement.parameters] }).stream() as Readable
        if (lost !== undefined) rows.destroy(lost)
        for await (const row of rows as AsyncIterable<Record<string, unknown>>) {
          check.differingGroups[source.totalsTable]! += 1
          if (check.differences.length < keep) check.differences.push(difference(source, row))
        }
      } finally {
        callbackConnection.off('error', onLost)
      }
    }
  } finally {
    connection.release()
  }
  return check
}

function difference(source: TotalsSource, row: Record<string, unknown>): TotalsDifference {
  const key = Object.fromEntries(source.keyColumns.map((c) => [c, row[c]]))
  const resources: Record<string, [string, string]> = {}
  for (const column of source.resourceColumns) {
    const keptValue = String(row[kept(column)])
    const recomputedValue = String(row[recomputed(column)])
    if (Number(keptValue) !== Number(recomputedValue)) resources[column] = [keptValue, recomputedValue]
  }
  return { table: source.totalsTable, key, resources }
}

/** The check as a person reads it: one line per table, then the differences found. */
export function describeTotalsCheck(check: TotalsCheck): string[] {
  const lines = check.tables.map((table) => {
    const count = check.differingGroups[table] ?? 0
    return `${table}: ${count === 0 ? 'equal to a recomputation from the movements' : `${count} group(s) differ`}`
  })
  for (const { table, key, resources } of check.differences) {
    const keyText = Object.entries(key)
      .map(([column, value]) => `${column}=${value === null ? 'null' : String(value)}`)
      .join(' ')
    const resourceText = Object.entries(resources)
      .map(([column, [keptValue, recomputedValue]]) => `${column} kept ${keptValue}, recomputed ${recomputedValue}`)
      .join('; ')
    lines.push(`  ${table} ${keyText}: ${resourceText}`)
  }
  const shown = check.differences.length
  const total = Object.values(check.differingGroups).reduce((sum, count) => sum + count, 0)
  if (total > shown) lines.push(`  … and ${total - shown} more`)
  return lines
}
