// The database the benchmarks read: `odata_bench` (or BENCH_DATABASE_URL), migrated and seeded at the
// scale a benchmark asks for, reused between runs when it already holds that scale.
import { loadModel } from '../../src/model/load-model.js'
import type { ServiceModel } from '../../src/model/model.js'
import { readSeedMarker, seedDemoData } from '../../src/seed/seed-data.js'
import { parseDatabaseUrl, type DatabaseAddress } from '../../src/store/database-url.js'
import { migrate } from '../../src/store/migrate.js'
import { createPool, ensureDatabase, type Pool } from '../../src/store/pool.js'
import { databaseCpuReader } from './database-cpu.js'

export function benchAddress(): DatabaseAddress {
  return parseDatabaseUrl(process.env.BENCH_DATABASE_URL || 'mysql://root@127.0.0.1:3306/odata_bench')
}

export async function prepareBenchDatabase(scale: number): Promise<{ model: ServiceModel; pool: Pool; address: DatabaseAddress }> {
  const model = loadModel('config/demo.json')
  const address = benchAddress()
  await ensureDatabase(address)
  const pool = createPool(address)
  await migrate(pool, model)
  const marker = await readSeedMarker(pool)
  if (!marker || marker.scale < scale) {
    const started = Date.now()
    await seedDemoData(pool, model, { scale, force: marker !== undefined })
    console.log(`  (seeded scale ${scale} in ${((Date.now() - started) / 1000).toFixed(1)} s)`)
  }
  return { model, pool, address }
}

/**
 * Waits until the database server has finished what earlier deletes left it (InnoDB purges deleted rows in
 * the background, after the delete commits), at most `maxSeconds`. A benchmark that deletes its rows at the
 * end would otherwise measure, in the next run, the server's purge as much as its own work (seen: mysql2's
 * own inserts at a fifth of their speed). On this machine the server is quiet when its CPU time grows by
 * less than a twentieth of a second per second; elsewhere InnoDB's history list (transactions not yet
 * purged, from `SHOW ENGINE INNODB STATUS`, printed by MariaDB and MySQL 8) must be empty.
 */
export async function waitForQuietDatabase(pool: Pool, maxSeconds = 180): Promise<void> {
  const deadline = Date.now() + maxSeconds * 1000
  const cpu = databaseCpuReader(benchAddress().host)
  let before = cpu?.()
  while (Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const now = cpu?.()
    if (before !== undefined && now !== undefined) {
      if (now - before < 50_000) return
      before = now
      continue
    }
    const [rows] = (await pool.query('SHOW ENGINE INNODB STATUS')) as unknown as [{ Status: string }[]]
    if (Number(/History list length (\d+)/.exec(rows[0]?.Status ?? '')?.[1] ?? 0) === 0) return
  }
}
