// Rows of a hand-made fixture written into a table in one INSERT, every value a parameter.
import type { Pool } from '../../src/store/pool.js'

export async function insertRows(
  pool: Pool,
  table: string,
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): Promise<void> {
  if (rows.length === 0) return
  const placeholders = `(${columns.map(() => '?').join(', ')})`
  await pool.query(
    `INSERT INTO \`${table}\` (${columns.map((c) => `\`${c}\``).join(', ')}) VALUES ${rows.map(() => placeholders).join(', ')}`,
    rows.flat() as unknown[],
  )
}
