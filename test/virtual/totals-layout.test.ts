// The totals the virtual tables read (src/store/totals.ts): month rows with receipts and expenses, and
// one all-time row per group whose receipts minus expenses are the balance. A database whose totals
// have an older layout is brought up to this one by `migrate`, which recomputes them; a second run
// changes nothing. (That writes keep these totals equal to a recomputation is test/service/writes/totals.test.ts.)
import t from 'tap'
import { loadModel } from '../../src/model/load-model.js'
import { migrate } from '../../src/store/migrate.js'
import { ALL_TIME_PERIOD, TOTALS_LAYOUT_VERSIONS } from '../../src/store/totals.js'
import { recomputeTotals } from '../../src/store/totals-rebuild.js'
import { createTestDatabase } from '../support/test-database.js'
import { ENTRIES, loadVirtualFixture, STOCK } from './support/virtual-fixture.js'

const model = loadModel('config/demo.json')
const db = await createTestDatabase('virtual_totals_layout')
t.teardown(() => db.drop())
await migrate(db.pool, model)
await loadVirtualFixture(db.pool, model)

const rows = async (sql: string) => (await db.pool.query(sql))[0] as Record<string, string>[]
const totals = () => rows('SELECT * FROM ar_Stock__totals ORDER BY Period, Warehouse_Key, Product_Key')

t.test('month rows and all-time rows agree with the movements', async (t) => {
  const active = STOCK.filter((m) => m.active)
  const byGroup = new Map<string, { receipt: number; expense: number }>()
  for (const m of active) {
    const key = `${m.warehouse}|${m.product}`
    const entry = byGroup.get(key) ?? { receipt: 0, expense: 0 }
    if (m.recordType === 'Receipt') entry.receipt += m.quantity
    else entry.expense += m.quantity
    byGroup.set(key, entry)
  }
  const allTime = await rows(
    `SELECT Warehouse_Key, Product_Key, Quantity, QuantityReceipt, QuantityExpense FROM ar_Stock__totals WHERE Period = '${ALL_TIME_PERIOD}' ORDER BY 1, 2`,
  )
  t.equal(allTime.length, byGroup.size, 'one all-time row per group with movements')
  for (const row of allTime) {
    const expected = byGroup.get(`${row.Warehouse_Key}|${row.Product_Key}`)!
    t.same(
      [Number(row.Quantity), Number(row.QuantityReceipt), Number(row.QuantityExpense)],
      [0, expected.receipt, expected.expense],
      `${row.Warehouse_Key}/${row.Product_Key}: net 0, receipts, expenses`,
    )
  }
  const months = await rows(
    `SELECT Period, SUM(Quantity) AS net, SUM(QuantityReceipt) AS receipt, SUM(QuantityExpense) AS expense FROM ar_Stock__totals WHERE Period < '${ALL_TIME_PERIOD}' GROUP BY Period ORDER BY Period`,
  )
  t.same(
    months.map((m) => [m.Period, Number(m.net), Number(m.receipt), Number(m.expense)]),
    [
      ['2024-01-01', 22, 22, 0],
      ['2024-02-01', -8, 0, 8],
      ['2024-03-01', 1, 4, 3],
      ['2024-04-01', 6, 6, 0],
      ['2024-06-01', -1, 0, 1],
      ['2024-07-01', 1, 1, 0],
    ],
    'per month: net = receipts − expenses of active movements (the inactive receipt of February is not there)',
  )
})

t.test('migrate brings totals of an older layout up to this one', async (t) => {
  const current = await totals()
  // The layout before virtual tables: no receipt/expense columns, no all-time rows, no layout marker.
  await db.pool.query(
    'ALTER TABLE ar_Stock__totals DROP COLUMN QuantityReceipt, DROP COLUMN QuantityExpense, DROP COLUMN AmountReceipt, DROP COLUMN AmountExpense',
  )
  await db.pool.query(`DELETE FROM ar_Stock__totals WHERE Period = '${ALL_TIME_PERIOD}'`)
  await db.pool.query("DELETE FROM _service_state WHERE name = 'totals_layout'")
  const report = await migrate(db.pool, model)
  t.same(report.addedColumns.sort(), [
    'ar_Stock__totals.AmountExpense',
    'ar_Stock__totals.AmountReceipt',
    'ar_Stock__totals.QuantityExpense',
    'ar_Stock__totals.QuantityReceipt',
  ])
  t.same(await totals(), current, 'recomputed: the same rows as a fresh build')

  // Without its entry in the marker (an interrupted migration), the accumulation totals are recomputed even
  // with every column there; the accounting totals, whose recorded layout is current, are left alone.
  await db.pool.query(`DELETE FROM ar_Stock__totals WHERE Period = '${ALL_TIME_PERIOD}'`)
  await db.pool.query("UPDATE _service_state SET value = ? WHERE name = 'totals_layout'", [
    JSON.stringify({ acr_Main__totals: TOTALS_LAYOUT_VERSIONS.accounting }),
  ])
  await db.pool.query(
    "INSERT INTO acr_Main__totals (Period, Account_Key, AmountDr) VALUES ('2030-01-01', '00000000-0000-0000-0000-000000000001', 1)",
  )
  const again = await migrate(db.pool, model)
  t.same(again, { createdTables: [], addedColumns: [], widenedColumns: [], warnings: [] })
  t.same(await totals(), current, 'recomputed on a missing marker')
  t.equal(
    Number((await rows("SELECT COUNT(*) AS n FROM acr_Main__totals WHERE Period = '2030-01-01'"))[0]!.n),
    1,
    'accounting totals not recomputed',
  )
  t.same(
    JSON.parse((await rows("SELECT value FROM _service_state WHERE name = 'totals_layout'"))[0]!.value),
    { ar_Stock__totals: 2, acr_Main__totals: 2 },
    'the layouts are recorded',
  )

  // With the marker current, nothing is recomputed: a row only a recomputation would drop stays.
  await db.pool.query(
    "INSERT INTO ar_Stock__totals (Period, Warehouse_Key, Product_Key) VALUES ('2030-01-01', '00000000-0000-0000-0000-000000000001', '00000000-0000-0000-0000-000000000001')",
  )
  await migrate(db.pool, model)
  t.equal((await totals()).length, current.length + 1, 'a current layout is left alone')
})

t.test('accounting totals: a month row per side, account, extra dimensions and dimensions, and an all-time row per group', async (t) => {
  await recomputeTotals(db.pool, model) // the rows the test above left only a recomputation drops
  const active = ENTRIES.filter((e) => e.active)
  const byGroup = new Map<string, { dr: number; cr: number }>()
  for (const e of active) {
    for (const [side, which] of [
      [e.dr, 'dr'],
      [e.cr, 'cr'],
    ] as const) {
      const key = `${side.account}|${side.ext[0]?.[0] ?? '00000000-0000-0000-0000-000000000000'}|${side.ext[1]?.[0] ?? '00000000-0000-0000-0000-000000000000'}|${e.organization}`
      const entry = byGroup.get(key) ?? { dr: 0, cr: 0 }
      entry[which] += e.amount
      byGroup.set(key, entry)
    }
  }
  const allTime = await rows(
    `SELECT Account_Key, ExtDimension1, ExtDimension2, Organization_Key, AmountDr, AmountCr FROM acr_Main__totals WHERE Period = '${ALL_TIME_PERIOD}'`,
  )
  t.equal(allTime.length, byGroup.size, 'one all-time row per group with active entries')
  for (const row of allTime) {
    const expected = byGroup.get(`${row.Account_Key}|${row.ExtDimension1}|${row.ExtDimension2}|${row.Organization_Key}`)
    t.same([Number(row.AmountDr), Number(row.AmountCr)], [expected?.dr, expected?.cr], `${row.Account_Key}: Dr and Cr of all time`)
  }
  const months = await rows(
    `SELECT Period, SUM(AmountDr) AS dr, SUM(AmountCr) AS cr FROM acr_Main__totals WHERE Period < '${ALL_TIME_PERIOD}' GROUP BY Period ORDER BY Period`,
  )
  t.same(
    months.map((m) => [m.Period, Number(m.dr), Number(m.cr)]),
    [
      ['2024-01-01', 150, 150],
      ['2024-02-01', 120, 120],
      ['2024-03-01', 180, 180],
      ['2024-04-01', 55, 55],
    ],
    'per month, Dr and Cr of the active entries are equal (Amount is balanced); the inactive 999 is not there',
  )
})

t.test('migrate recomputes accounting totals of layout 1 (no all-time rows)', async (t) => {
  const before = await rows('SELECT * FROM acr_Main__totals ORDER BY Period, Account_Key, ExtDimension1, ExtDimension2, Organization_Key')
  await db.pool.query(`DELETE FROM acr_Main__totals WHERE Period = '${ALL_TIME_PERIOD}'`)
  await db.pool.query("UPDATE _service_state SET value = ? WHERE name = 'totals_layout'", [
    JSON.stringify({ ar_Stock__totals: TOTALS_LAYOUT_VERSIONS.accumulation, acr_Main__totals: 1 }),
  ])
  await migrate(db.pool, model)
  t.same(
    await rows('SELECT * FROM acr_Main__totals ORDER BY Period, Account_Key, ExtDimension1, ExtDimension2, Organization_Key'),
    before,
    'the all-time rows are back',
  )
})
