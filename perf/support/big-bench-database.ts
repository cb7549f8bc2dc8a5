// The ten-million-movement database of the benchmarks that need it (virtual tables, the totals rebuild):
// opened, and seeded when it holds less than the scale asked for. `make bench` does not seed it (about 40
// minutes): without it the benchmark says so in one line and exits 3, which the runner counts as skipped.
// `make bench-full` (BENCH_FULL=1) seeds it once, resumably, after giving InnoDB a buffer pool the size of
// such a database (server-memory.ts). A scale below `seedAlwaysBelow` is seeded without BENCH_FULL: it takes
// minutes. Ends migrated (which recomputes the totals once if their layout is older than the code's).
import { loadModel } from '../../src/model/load-model.js'
import type { ServiceModel } from '../../src/model/model.js'
import { readSeedMarker, seedDemoData } from '../../src/seed/seed-data.js'
import { parseDatabaseUrl, type DatabaseAddress } from '../../src/store/database-url.js'
import { migrate } from '../../src/store/migrate.js'
import { createPool, ensureDatabase, type Pool } from '../../src/store/pool.js'
import { sizeServerMemory } from './server-memory.js'

export interface BigBenchDatabase {
  readonly address: DatabaseAddress
  readonly pool: Pool
  readonly model: ServiceModel
  /** The scale the database holds (at least the one asked for). */
  readonly scale: number
}

export async function openBigBenchDatabase(
  benchmark: string,
  url: string,
  scale: number,
  options: { seedAlwaysBelow?: number } = {},
): Promise<BigBenchDatabase> {
  const address = parseDatabaseUrl(url)
  await ensureDatabase(address)
  const pool = createPool(address)
  const model = loadModel('config/demo.json')
  const marker = await readSeedMarker(pool).catch(() => undefined)
  if (!marker || marker.scale < scale) {
    if (process.env.BENCH_FULL !== '1' && scale >= (options.seedAlwaysBelow ?? 0)) {
      console.log(
        `${benchmark}: skipped, ${address.database} holds ${marker ? `seed data of scale ${marker.scale}` : 'no seed data'} and needs scale ${scale} (ten million movements); \`make bench-full\` seeds it once (about 40 minutes) and runs it`,
      )
      await pool.end()
      process.exit(3)
    }
    console.log(`  ${await sizeServerMemory(pool)}`)
    const seeding = Date.now()
    console.log(`  seeding ${address.database} at scale ${scale} (about 40 minutes at 1000) …`)
    await migrate(pool, model)
    await seedDemoData(pool, model, { scale, force: marker !== undefined })
    console.log(`  (seeded in ${((Date.now() - seeding) / 60000).toFixed(0)} min)`)
  } else console.log(`  ${await sizeServerMemory(pool)}`)
  const migrating = Date.now()
  await migrate(pool, model)
  if (Date.now() - migrating > 5000) console.log(`  (totals brought up to date in ${((Date.now() - migrating) / 1000).toFixed(0)} s)`)
  return { address, pool, model, scale: marker && marker.scale >= scale ? marker.scale : scale }
}
