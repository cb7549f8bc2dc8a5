// Register totals rebuilt from the movements: per month and dimension combination, the net change of
// each resource (accumulation registers of the Balance kind) or its Dr and Cr turnovers (accounting
// registers). Only active movements count, as for balances (decisions.md §6). Writes keep the totals
// incrementally; this full recomputation is the reference they must agree with, and what the seed
// generator and `cli recompute-totals` run.
import { extDimensionColumns } from '../model/build-model.js'
import type { ServiceModel } from '../model/model.js'
import { quoteIdentifier as q } from '../sql/quote-identifier.js'
import type { Pool, PoolConnection } from './pool.js'

const MONTH_START = (column: string) => `CAST(DATE_FORMAT(${q(column)}, '%Y-%m-01') AS DATE)`

/** The statements that rebuild every totals table of the model (each a DELETE, then an INSERT … SELECT). */
export function recomputeTotalsStatements(model: ServiceModel): string[] {
  const statements: string[] = []
  for (const set of model.entitySets) {
    const source = set.source
    if (source.type === 'accumulationRegister' && source.totalsTable !== undefined) {
      const dims = source.dimensions.map(q)
      const movementTable = q(set.table)
      const signed = source.resources.map((r) => `SUM(CASE WHEN ${q('RecordType')} = 'Receipt' THEN ${q(r)} ELSE -${q(r)} END)`)
      statements.push(`DELETE FROM ${q(source.totalsTable)}`)
      statements.push(
        `INSERT INTO ${q(source.totalsTable)} (${[q('Period'), ...dims, ...source.resources.map(q)].join(', ')}) ` +
          `SELECT ${[MONTH_START('Period'), ...dims, ...signed].join(', ')} FROM ${movementTable} WHERE ${q('Active')} = 1 ` +
          `GROUP BY ${[MONTH_START('Period'), ...dims].join(', ')}`,
      )
    }
    if (source.type === 'accountingRegister') {
      const recordType = model.entitySetByName.get(source.recordTypeSet)!
      const ext = extDimensionColumns('', source.maxExtDimensions)
      const dims = source.dimensions.map(q)
      const keyColumns = ['Account_Key', ...ext.flatMap((c) => [c.value, c.type])]
      const side = (s: 'Dr' | 'Cr') => {
        const sideExt = extDimensionColumns(s, source.maxExtDimensions)
        const resourceValues = source.resources.flatMap((r) => {
          const balanced = recordType.propertyByName.has(r)
          const value = balanced ? q(r) : q(`${r}${s}`)
          return s === 'Dr' ? [`${value} AS ${q(`${r}Dr`)}`, `0 AS ${q(`${r}Cr`)}`] : [`0 AS ${q(`${r}Dr`)}`, `${value} AS ${q(`${r}Cr`)}`]
        })
        return (
          `SELECT ${MONTH_START('Period')} AS ${q('Period')}, ${q(`Account${s}_Key`)} AS ${q('Account_Key')}, ` +
          sideExt.flatMap((c, i) => [`${q(c.value)} AS ${q(ext[i]!.value)}`, `${q(c.type)} AS ${q(ext[i]!.type)}`]).join(', ') +
          (sideExt.length > 0 ? ', ' : '') +
          [...dims, ...resourceValues].join(', ') +
          ` FROM ${q(set.table)} WHERE ${q('Active')} = 1`
        )
      }
      const sums = source.resources.flatMap((r) => [`SUM(${q(`${r}Dr`)})`, `SUM(${q(`${r}Cr`)})`])
      const groupColumns = [q('Period'), ...keyColumns.map(q), ...dims]
      statements.push(`DELETE FROM ${q(source.totalsTable)}`)
      statements.push(
        `INSERT INTO ${q(source.totalsTable)} (${[...groupColumns, ...source.resources.flatMap((r) => [q(`${r}Dr`), q(`${r}Cr`)])].join(', ')}) ` +
          `SELECT ${[...groupColumns, ...sums].join(', ')} FROM (${side('Dr')} UNION ALL ${side('Cr')}) AS movements GROUP BY ${groupColumns.join(', ')}`,
      )
    }
  }
  return statements
}

/** Rebuilds all totals in one transaction. */
export async function recomputeTotals(pool: Pool, model: ServiceModel): Promise<void> {
  const connection: PoolConnection = await pool.getConnection()
  try {
    await connection.beginTransaction()
    for (const statement of recomputeTotalsStatements(model)) await connection.query(statement)
    await connection.commit()
  } catch (error) {
    await connection.rollback().catch(() => undefined)
    throw error
  } finally {
    connection.release()
  }
}
