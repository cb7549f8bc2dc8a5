// Shared by the write tests: catalog keys to reference, reading the
// database back, and the check that incremental totals equal a recomputation from the movements.
import type { ServiceModel } from '../../../src/model/model.js'
import type { Pool } from '../../../src/store/pool.js'
import { recomputeTotalsStatements } from '../../../src/store/totals.js'

export async function rows<T = Record<string, unknown>>(pool: Pool, sql: string, values: unknown[] = []): Promise<T[]> {
  const [result] = await pool.query(sql, values)
  return result as T[]
}

export async function count(pool: Pool, sql: string, values: unknown[] = []): Promise<number> {
  const [row] = await rows(pool, sql, values)
  return Number(Object.values(row!)[0])
}

export interface Fixtures {
  readonly warehouses: string[]
  readonly products: string[]
  readonly counterparties: string[]
  readonly organizations: string[]
}

export async function fixtures(pool: Pool): Promise<Fixtures> {
  const keys = async (table: string) =>
    (await rows<{ Ref_Key: string }>(pool, `SELECT Ref_Key FROM \`${table}\` ORDER BY Code`)).map((r) => r.Ref_Key)
  return {
    warehouses: await keys('c_Warehouses'),
    products: await keys('c_Products'),
    counterparties: await keys('c_Counterparties'),
    organizations: await keys('c_Организации'),
  }
}

/** Every totals table of the model, as sorted text lines, rows whose resources are all zero left out. */
export async function totalsSnapshot(pool: Pool, model: ServiceModel): Promise<Record<string, string[]>> {
  const snapshot: Record<string, string[]> = {}
  for (const table of totalsTables(model)) {
    const [result] = await pool.query({ sql: `SELECT * FROM \`${table.name}\``, rowsAsArray: true })
    snapshot[table.name] = (result as unknown[][])
      .filter((row) => row.slice(table.keyColumns).some((value) => Number(value) !== 0))
      .map((row) => row.map(String).join('|'))
      .sort()
  }
  return snapshot
}

function totalsTables(model: ServiceModel): { name: string; keyColumns: number }[] {
  const tables: { name: string; keyColumns: number }[] = []
  for (const set of model.entitySets) {
    const source = set.source
    if (source.type === 'accumulationRegister' && source.totalsTable)
      tables.push({ name: source.totalsTable, keyColumns: 1 + source.dimensions.length })
    if (source.type === 'accountingRegister')
      tables.push({ name: source.totalsTable, keyColumns: 2 + 2 * source.maxExtDimensions + source.dimensions.length })
  }
  return tables
}

/** The totals as kept by the writes, and as a recomputation from the movements makes them (which then stays). */
export async function totalsAgainstRecomputation(
  pool: Pool,
  model: ServiceModel,
): Promise<{ kept: Record<string, string[]>; recomputed: Record<string, string[]> }> {
  const kept = await totalsSnapshot(pool, model)
  const connection = await pool.getConnection()
  try {
    await connection.beginTransaction()
    for (const statement of recomputeTotalsStatements(model)) await connection.query(statement.text, [...statement.parameters])
    await connection.commit()
  } finally {
    connection.release()
  }
  return { kept, recomputed: await totalsSnapshot(pool, model) }
}

export const RECEIPT_TYPE = 'StandardODATA.Document_GoodsReceipt'
export const SALE_TYPE = 'StandardODATA.Document_GoodsSale'

/** A document body with `rows` lines of Goods. */
export function documentBody(
  f: Fixtures,
  options: { rows?: number; date?: string; product?: string; warehouse?: string; quantity?: number; extra?: Record<string, unknown> } = {},
): Record<string, unknown> {
  const rows = options.rows ?? 2
  return {
    Number: 'T-1',
    Date: options.date ?? '2024-03-15T10:00:00Z',
    Warehouse_Key: options.warehouse ?? f.warehouses[0],
    Counterparty_Key: f.counterparties[0],
    Organization_Key: f.organizations[0],
    Goods: Array.from({ length: rows }, (_, i) => ({
      Product_Key: options.product ?? f.products[i % f.products.length],
      Quantity: options.quantity ?? i + 1,
      Price: 10.5,
      Amount: (options.quantity ?? i + 1) * 10.5,
    })),
    ...options.extra,
  }
}
