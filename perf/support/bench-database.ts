// The database the benchmarks read: `odata_bench` (or BENCH_DATABASE_URL), migrated and seeded at the
// scale a benchmark asks for, reused between runs when it already holds that scale.
import { loadModel } from '../../src/model/load-model.js'
import type { ServiceModel } from '../../src/model/model.js'
import { readSeedMarker, seedDemoData } from '../../src/seed/seed-data.js'
import { parseDatabaseUrl, type DatabaseAddress } from '../../src/store/database-url.js'
import { migrate } from '../../src/store/migrate.js'
import { createPool, ensureDatabase, type Pool } from '../../src/store/pool.js'

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
