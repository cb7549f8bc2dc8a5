// The seed generator makes the same data on every run, posts documents by the configuration's posting
// rules, keeps totals equal to a recomputation, and is not repeated by a second run.
import t from 'tap'
import { loadModel } from '../../src/model/load-model.js'
import { seedDemoData } from '../../src/seed/seed-data.js'
import { migrate } from '../../src/store/migrate.js'
import { recomputeTotals } from '../../src/store/totals-rebuild.js'
import { createTestDatabase } from '../support/test-database.js'

const model = loadModel('config/demo.json')

async function count(db: Awaited<ReturnType<typeof createTestDatabase>>, sql: string): Promise<number> {
  const [rows] = await db.pool.query(sql)
  return Number(Object.values((rows as Record<string, unknown>[])[0]!)[0])
}

t.test('scale 1 makes the demo data, deterministically, once', async (t) => {
  const db = await createTestDatabase('seed')
  t.teardown(() => db.drop())
  await migrate(db.pool, model)
  const first = await seedDemoData(db.pool, model, { scale: 1 })
  t.equal(first.seeded, true)
  t.equal(first.documents, 1000)
  t.equal(await count(db, 'SELECT COUNT(*) FROM c_Products'), 200)
  t.equal(await count(db, 'SELECT COUNT(*) FROM c_Warehouses'), 10)
  t.equal(await count(db, 'SELECT COUNT(*) FROM c_Counterparties'), 50)
  t.equal(await count(db, 'SELECT COUNT(*) FROM `c_Организации`'), 2)
  t.equal(await count(db, 'SELECT COUNT(*) FROM coa_Main'), 5)
  t.equal((await count(db, 'SELECT COUNT(*) FROM d_GoodsReceipt')) + (await count(db, 'SELECT COUNT(*) FROM d_GoodsSale')), 1000)
  t.equal(await count(db, 'SELECT COUNT(*) FROM d_GoodsSale WHERE Posted = 0'), 0, 'every document is posted')
  t.equal(
    (await count(db, 'SELECT MIN(c) FROM (SELECT COUNT(*) c FROM d_GoodsReceipt__Goods GROUP BY Ref_Key) x')) >= 1,
    true,
    'rows per document ≥ 1',
  )
  t.ok(
    (await count(db, 'SELECT MAX(c) FROM (SELECT COUNT(*) c FROM d_GoodsReceipt__Goods GROUP BY Ref_Key) x')) <= 20,
    'rows per document ≤ 20',
  )
  // Posting rules: one Stock movement per table row of both documents, one Sales movement per sale row.
  const tableRows =
    (await count(db, 'SELECT COUNT(*) FROM d_GoodsReceipt__Goods')) + (await count(db, 'SELECT COUNT(*) FROM d_GoodsSale__Goods'))
  t.equal(await count(db, 'SELECT COUNT(*) FROM ar_Stock'), tableRows)
  t.equal(await count(db, 'SELECT COUNT(*) FROM acr_Main'), tableRows)
  t.equal(await count(db, 'SELECT COUNT(*) FROM ar_Sales'), await count(db, 'SELECT COUNT(*) FROM d_GoodsSale__Goods'))
  t.equal(
    await count(
      db,
      "SELECT COUNT(*) FROM ar_Stock s JOIN d_GoodsSale__Goods g ON g.Ref_Key = s.Recorder AND g.LineNumber = s.LineNumber WHERE s.RecordType <> 'Expense' OR s.Quantity <> g.Quantity OR s.Product_Key <> g.Product_Key",
    ),
    0,
    'sale movements mirror the table rows',
  )
  t.equal(await count(db, 'SELECT COUNT(*) FROM ir_Prices'), 20 * 730, 'daily prices for a tenth of the products')
  t.equal(await count(db, 'SELECT COUNT(*) FROM `ir_КурсыВалют`'), 3 * 730, 'daily rates of three currencies')
  // Products are skewed: the most popular product is far more frequent than the median one.
  const [popularity] = await db.pool.query('SELECT COUNT(*) AS c FROM ar_Stock GROUP BY Product_Key ORDER BY c DESC')
  const counts = (popularity as { c: number }[]).map((r) => Number(r.c))
  t.ok(
    counts[0]! > 5 * counts[Math.floor(counts.length / 2)]!,
    `Zipf-like popularity (top ${counts[0]}, median ${counts[Math.floor(counts.length / 2)]})`,
  )

  const checksum = await count(db, 'SELECT SUM(CRC32(CONCAT(Recorder, LineNumber, Quantity))) FROM ar_Stock')
  const second = await seedDemoData(db.pool, model, { scale: 1 })
  t.equal(second.seeded, false, 'a second run reuses the data')
  t.equal(await count(db, 'SELECT COUNT(*) FROM ar_Stock'), tableRows)

  const forced = await seedDemoData(db.pool, model, { scale: 1, force: true })
  t.equal(forced.seeded, true)
  t.equal(
    await count(db, 'SELECT SUM(CRC32(CONCAT(Recorder, LineNumber, Quantity))) FROM ar_Stock'),
    checksum,
    'the same data on every run',
  )
})

t.test('totals agree with the movements', async (t) => {
  const db = await createTestDatabase('seed_totals')
  t.teardown(() => db.drop())
  await migrate(db.pool, model)
  await seedDemoData(db.pool, model, { scale: 0.2 })
  const [fromTotals] = await db.pool.query(
    'SELECT Warehouse_Key, Product_Key, SUM(Quantity) q, SUM(Amount) a FROM ar_Stock__totals GROUP BY 1, 2 ORDER BY 1, 2',
  )
  const [fromMovements] = await db.pool.query(
    "SELECT Warehouse_Key, Product_Key, SUM(IF(RecordType = 'Receipt', Quantity, -Quantity)) q, SUM(IF(RecordType = 'Receipt', Amount, -Amount)) a FROM ar_Stock WHERE Active = 1 GROUP BY 1, 2 ORDER BY 1, 2",
  )
  t.same(fromTotals, fromMovements)
  // The month rows (the all-time rows, Period 9999-12-31, hold the same sums once more).
  const [accounting] = await db.pool.query(
    "SELECT SUM(AmountDr) dr, SUM(AmountCr) cr, SUM(QuantityDr) qd, SUM(QuantityCr) qc FROM acr_Main__totals WHERE Period < '9999-12-31'",
  )
  const [movements] = await db.pool.query('SELECT SUM(Amount) dr, SUM(Amount) cr, SUM(QuantityDr) qd, SUM(QuantityCr) qc FROM acr_Main')
  t.same(accounting, movements, 'accounting totals: Dr and Cr sides')
  await recomputeTotals(db.pool, model)
  const [again] = await db.pool.query(
    'SELECT Warehouse_Key, Product_Key, SUM(Quantity) q, SUM(Amount) a FROM ar_Stock__totals GROUP BY 1, 2 ORDER BY 1, 2',
  )
  t.same(again, fromMovements, 'recomputation is stable')
})

t.test('stock never goes negative: sales take only what was received before them', async (t) => {
  const db = await createTestDatabase('seed_stock')
  t.teardown(() => db.drop())
  await migrate(db.pool, model)
  await seedDemoData(db.pool, model, { scale: 1 })
  // The balance of each warehouse and product after every movement, in the order they happened.
  const [lowest] = await db.pool.query(`
    SELECT MIN(q) AS q, MIN(a) AS a, COUNT(*) AS movements FROM (
      SELECT SUM(IF(RecordType = 'Receipt', Quantity, -Quantity)) OVER w AS q, SUM(IF(RecordType = 'Receipt', Amount, -Amount)) OVER w AS a
      FROM ar_Stock WHERE Active = 1
      WINDOW w AS (PARTITION BY Warehouse_Key, Product_Key ORDER BY Period, Recorder, LineNumber ROWS UNBOUNDED PRECEDING)
    ) balances`)
  const { q, a, movements } = (lowest as { q: string; a: string; movements: number }[])[0]!
  t.ok(Number(movements) > 5_000, `${movements} movements`)
  t.ok(Number(q) >= 0, `the lowest quantity balance of any warehouse and product is ${q}`)
  t.ok(Number(a) >= 0, `the lowest amount balance of any warehouse and product is ${a}`)
  t.equal(
    await count(
      db,
      "SELECT COUNT(*) FROM ar_Stock s JOIN d_GoodsSale d ON d.Ref_Key = s.Recorder WHERE s.Period <> d.Date OR s.RecordType <> 'Expense'",
    ),
    0,
    'sales are expenses at their date',
  )
  // Still a business that sells: most documents are sales, and they move a good part of what came in.
  const sold = await count(db, "SELECT SUM(Quantity) FROM ar_Stock WHERE RecordType = 'Expense'")
  const received = await count(db, "SELECT SUM(Quantity) FROM ar_Stock WHERE RecordType = 'Receipt'")
  t.ok(sold > received * 0.3, `sold ${sold} of ${received} received`)
  t.ok((await count(db, 'SELECT COUNT(*) FROM d_GoodsSale')) > 500, 'sales are most documents')
  t.equal(
    await count(db, 'SELECT COUNT(*) FROM d_GoodsSale s WHERE NOT EXISTS (SELECT 1 FROM d_GoodsSale__Goods g WHERE g.Ref_Key = s.Ref_Key)'),
    0,
    'every sale has goods',
  )
  t.equal(
    await count(
      db,
      'SELECT COUNT(*) FROM (SELECT Ref_Key, MAX(LineNumber) m, COUNT(*) c FROM d_GoodsSale__Goods GROUP BY Ref_Key HAVING m <> c) gaps',
    ),
    0,
    'line numbers run 1..n',
  )

  const [kept] = await db.pool.query('SELECT * FROM ar_Stock__totals ORDER BY 1, 2, 3')
  await recomputeTotals(db.pool, model)
  const [recomputed] = await db.pool.query('SELECT * FROM ar_Stock__totals ORDER BY 1, 2, 3')
  t.same(kept, recomputed, 'the totals equal a recomputation from the movements')
  const [balances] = await db.pool.query(
    "SELECT MIN(b) AS b FROM (SELECT SUM(IF(RecordType = 'Receipt', Quantity, -Quantity)) b FROM ar_Stock GROUP BY Warehouse_Key, Product_Key) x",
  )
  t.ok(Number((balances as { b: string }[])[0]!.b) >= 0, 'final balances are not negative')
})
