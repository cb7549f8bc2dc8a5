// The totals tables as they stand, and as `recompute-totals` rebuilds them from the movements: a test of
// writes compares the two (every write kept the totals in step with its movements).
import { loadModel } from '../../src/model/load-model.js'
import type { Pool } from '../../src/store/pool.js'
import { recomputeTotals } from '../../src/store/totals-rebuild.js'

const TOTALS_TABLES = ['ar_Stock__totals', 'acr_Main__totals']

export async function totalsSnapshot(pool: Pool): Promise<Record<string, unknown[]>> {
  const snapshot: Record<string, unknown[]> = {}
  for (const table of TOTALS_TABLES) {
    const [rows] = (await pool.query({ sql: `SELECT * FROM \`${table}\``, rowsAsArray: true })) as unknown as [unknown[][]]
    snapshot[table] = rows.map((row) => JSON.stringify(row)).sort()
  }
  return snapshot
}

/** The totals now, then recomputed from the movements (the recomputed ones stay). */
export async function totalsAndRecomputation(
  pool: Pool,
): Promise<{ kept: Record<string, unknown[]>; recomputed: Record<string, unknown[]> }> {
  const kept = await totalsSnapshot(pool)
  await recomputeTotals(pool, loadModel('config/demo.json'))
  return { kept, recomputed: await totalsSnapshot(pool) }
}
