// The schema is derived from the model and migrated idempotently: the second run changes nothing,
// new attributes add columns, nothing is dropped silently, and Cyrillic names work in MySQL.
import t from 'tap'
import { buildModel } from '../../src/model/build-model.js'
import { loadConfigurationFile, validateConfiguration } from '../../src/model/configuration.js'
import { loadModel } from '../../src/model/load-model.js'
import { migrate } from '../../src/store/migrate.js'
import { schemaTables } from '../../src/store/schema.js'
import { createTestDatabase } from '../support/test-database.js'

const model = loadModel('config/demo.json')

t.test('migrate creates every table, then changes nothing', async (t) => {
  const db = await createTestDatabase('schema_twice')
  t.teardown(() => db.drop())
  const first = await migrate(db.pool, model)
  t.same(
    first.createdTables.sort(),
    schemaTables(model)
      .map((table) => table.name)
      .sort(),
  )
  const second = await migrate(db.pool, model)
  t.same(second, { createdTables: [], addedColumns: [], widenedColumns: [], warnings: [] }, 'second run: no change, no warning')

  const [tables] = await db.pool.query(
    'SELECT TABLE_NAME AS name, TABLE_COLLATION AS collation FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()',
  )
  for (const table of tables as { name: string; collation: string }[]) t.equal(table.collation, 'utf8mb4_bin', `${table.name} is utf8mb4`)
  t.ok(
    (tables as { name: string }[]).some((table) => table.name === 'ir_КурсыВалют'),
    'Cyrillic table name',
  )

  await db.pool.query('INSERT INTO `ir_КурсыВалют` (`Period`, `Валюта`, `Курс`, `Кратность`) VALUES (?, ?, ?, ?)', [
    '2024-01-01 00:00:00',
    'ЮАН',
    '12.3456',
    '1',
  ])
  const [rows] = await db.pool.query('SELECT `Валюта`, `Курс` FROM `ir_КурсыВалют`')
  t.same(rows, [{ Валюта: 'ЮАН', Курс: '12.3456' }], 'Cyrillic column and value round-trip')
})

t.test('a new attribute adds a column; a removed one is kept and reported; a new recorder widens the enum', async (t) => {
  const db = await createTestDatabase('schema_evolve')
  t.teardown(() => db.drop())
  await migrate(db.pool, model)
  await db.pool.query(
    "INSERT INTO `c_Products` (`Ref_Key`, `Code`, `Description`, `Article`, `Unit`) VALUES ('11111111-1111-1111-1111-111111111111', '1', 'kept', 'A-1', 'pcs')",
  )

  const config = JSON.parse(JSON.stringify(loadConfigurationFile('config/demo.json')))
  config.catalogs[0].attributes = [
    { name: 'Article', type: 'string', length: 25 },
    { name: 'Weight', type: 'number', precision: 10, scale: 3 },
  ]
  config.documents.push({ name: 'StockAdjustment', numberLength: 11, attributes: [], tableParts: [], posting: [] })
  config.accumulationRegisters[0].recorders.push('StockAdjustment')
  const evolved = buildModel(validateConfiguration(config))

  const report = await migrate(db.pool, evolved)
  t.same(report.createdTables, ['d_StockAdjustment'])
  t.same(report.addedColumns, ['c_Products.Weight'])
  t.ok(report.widenedColumns.includes('ar_Stock.Recorder_Type'), 'enum of recorder types widened')
  t.ok(
    report.warnings.some((w) => w.startsWith('c_Products.Unit')),
    'the dropped attribute is reported',
  )
  const [rows] = await db.pool.query('SELECT `Unit`, `Weight` FROM `c_Products`')
  t.same(rows, [{ Unit: 'pcs', Weight: '0.000' }], 'data kept, new column filled with its default')
  const again = await migrate(db.pool, evolved)
  t.same([again.createdTables, again.addedColumns, again.widenedColumns], [[], [], []], 'idempotent after evolving')
})

t.test('an index an earlier version made and this one no longer keeps is dropped; the rows stay', async (t) => {
  const db = await createTestDatabase('schema_retired_index')
  t.teardown(() => db.drop())
  await migrate(db.pool, model)
  await db.pool.query("INSERT INTO request_log (at, method, url, status) VALUES (NOW(3), 'GET', '/kept', 200)")
  await db.pool.query('ALTER TABLE request_log ADD INDEX by_at (at)')
  const indexes = async () =>
    (
      (
        await db.pool.query(
          'SELECT DISTINCT INDEX_NAME AS name FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ?',
          ['request_log'],
        )
      )[0] as { name: string }[]
    )
      .map((row) => row.name)
      .sort()
  t.same(await indexes(), ['PRIMARY', 'by_at', 'by_batch'], 'the log of an earlier version')
  await migrate(db.pool, model)
  t.same(await indexes(), ['PRIMARY', 'by_batch'], 'by_at is gone')
  const [rows] = await db.pool.query('SELECT url FROM request_log')
  t.same(rows, [{ url: '/kept' }], 'the entries are kept')
})
