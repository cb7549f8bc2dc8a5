// A seed interrupted midway resumes when run again instead of starting over (src/seed/seed-data.ts): it
// ends with exactly the tables an uninterrupted seed of the same scale makes (CHECKSUM TABLE of every
// table and totals table), whether it was cut right after a record of its progress or after rows written
// past the last record (sent again with INSERT IGNORE), and says it resumed.
import t from 'tap'
import { loadModel } from '../../src/model/load-model.js'
import { SEED_PROGRESS_MARKER, seedDemoData } from '../../src/seed/seed-data.js'
import { migrate } from '../../src/store/migrate.js'
import { schemaTables } from '../../src/store/schema.js'
import { createTestDatabase, type TestDatabase } from '../support/test-database.js'

const model = loadModel('config/demo.json')
const SCALE = 1
const EVERY = 150

async function checksums(db: TestDatabase): Promise<Record<string, string>> {
  const sums: Record<string, string> = {}
  for (const table of schemaTables(model)) {
    if (['request_log', '_service_state', '_settings', '_repeatability', '_rate_counters'].includes(table.name)) continue
    const [rows] = await db.pool.query(`CHECKSUM TABLE \`${table.name}\``)
    sums[table.name] = String((rows as { Checksum: unknown }[])[0]!.Checksum)
  }
  return sums
}

const reference = await createTestDatabase('seed_resume_reference')
t.teardown(() => reference.drop())
await migrate(reference.pool, model)
await seedDemoData(reference.pool, model, { scale: SCALE, checkpointDocuments: EVERY })
const expected = await checksums(reference)

for (const [cut, at, what] of [
  ['after its record', 450, 'cut once the progress at document 450 was recorded'],
  ['before its record', 750, 'cut with the rows of documents 600 to 750 written but not recorded'],
] as const) {
  t.test(`a seed interrupted ${cut} resumes and makes what an uninterrupted one makes`, async (t) => {
    const db = await createTestDatabase(`seed_resume_${at}`)
    t.teardown(() => db.drop())
    await migrate(db.pool, model)
    const interruption = new Error(what)
    let written = 0
    const failed = await seedDemoData(db.pool, model, {
      scale: SCALE,
      checkpointDocuments: EVERY,
      progress: {
        start() {},
        advance() {},
        stop() {},
        written(documents) {
          written = documents
          // Before its record: thrown when the rows are written, the record not made.
          if (cut === 'before its record' && documents === at) throw interruption
          // After its record: thrown at the next one, whose rows are the next interval's.
          if (cut === 'after its record' && documents === at + EVERY) throw interruption
        },
      },
    }).then(
      () => undefined,
      (error: unknown) => error,
    )
    t.equal(failed, interruption, `the first run stopped (${what})`)
    t.ok(written > 0, 'after writing documents')
    const [marker] = await db.pool.query('SELECT value FROM _service_state WHERE name = ?', [SEED_PROGRESS_MARKER])
    const recorded = JSON.parse((marker as { value: string }[])[0]!.value) as { documentsDone: number }
    t.equal(recorded.documentsDone, cut === 'before its record' ? at - EVERY : at, 'its progress is recorded')
    const [seeded] = await db.pool.query("SELECT COUNT(*) AS n FROM _service_state WHERE name = 'seed'")
    t.equal(Number((seeded as { n: number }[])[0]!.n), 0, 'the seed is not marked done')

    const second = await seedDemoData(db.pool, model, { scale: SCALE, checkpointDocuments: EVERY })
    t.equal(second.seeded, true)
    t.match(second.message, new RegExp(`resumed an interrupted seed at document ${recorded.documentsDone}`))
    t.same(await checksums(db), expected, 'every table is what an uninterrupted seed makes, totals included')
    const [left] = await db.pool.query('SELECT COUNT(*) AS n FROM _service_state WHERE name = ?', [SEED_PROGRESS_MARKER])
    t.equal(Number((left as { n: number }[])[0]!.n), 0, 'the progress record is gone')
  })
}
