// Concurrent writers (real parallel connections): documents posted at once into the same warehouse and
// product end with movements and totals that agree — no update of a shared totals row is lost, and no
// client sees a deadlock (the transaction helper retries the victim).
import t from 'tap'
import { rawRequest, startTestService } from '../../support/test-service.js'
import { count, documentBody, fixtures, rows, totalsAgainstRecomputation } from './write-helpers.js'

const client = await startTestService('writes_concurrency', { data: 'demo' })
t.teardown(() => client.close())
const { pool } = client.database
const model = client.model
const f = await fixtures(pool)
const CLIENTS = 6
const DOCUMENTS_PER_CLIENT = 8

t.test(`${CLIENTS} clients posting documents into one warehouse and product at once`, async (t) => {
  const product = f.products[0]!
  const warehouse = f.warehouses[0]!
  const balanceRow = () =>
    rows<{ q: string; a: string }>(
      pool,
      "SELECT Quantity AS q, Amount AS a FROM ar_Stock__totals WHERE Period = '2026-02-01' AND Warehouse_Key = ? AND Product_Key = ?",
      [warehouse, product],
    )
  t.same(await balanceRow(), [], 'the month starts empty')
  // Each client creates its documents first, then they all post at the same moment.
  const created: { kind: string; key: string; quantity: number }[][] = []
  for (let c = 0; c < CLIENTS; c++) {
    const mine: { kind: string; key: string; quantity: number }[] = []
    for (let d = 0; d < DOCUMENTS_PER_CLIENT; d++) {
      const kind = (c + d) % 3 === 2 ? 'GoodsSale' : 'GoodsReceipt'
      const quantity = c * 100 + d + 1
      // Two rows each: the same product twice, and another product that other documents share too.
      const body = documentBody(f, { rows: 1, product, warehouse, quantity, date: `2026-02-${String(1 + d).padStart(2, '0')}T10:00:00Z` })
      ;(body.Goods as unknown[]).push(
        { Product_Key: product, Quantity: 1, Amount: 1 },
        { Product_Key: f.products[1], Quantity: 2, Amount: 2 },
      )
      const response = await client.send('POST', `Document_${kind}`, body)
      mine.push({ kind, key: response.json().Ref_Key, quantity })
    }
    created.push(mine)
  }
  const statuses = await Promise.all(
    created.map(async (mine) => {
      const seen: number[] = []
      for (const d of mine) {
        // rawRequest opens a connection of its own for every request (agent: false): truly parallel.
        const response = await rawRequest(client.port, 'POST', `/odata/standard.odata/v4/Document_${d.kind}(${d.key})/Post`, {
          headers: { Authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}` },
        })
        seen.push(response.status)
      }
      return seen
    }),
  )
  t.same(statuses.flat(), Array(CLIENTS * DOCUMENTS_PER_CLIENT).fill(204), 'every post succeeded (no deadlock reached a client)')
  const all = created.flat()
  const expected = all.reduce((sum, d) => sum + (d.kind === 'GoodsReceipt' ? 1 : -1) * (d.quantity + 1), 0)
  t.equal(
    await count(pool, "SELECT COUNT(*) FROM ar_Stock WHERE Period >= '2026-02-01' AND Period < '2026-03-01'"),
    all.length * 3,
    'every movement is there',
  )
  t.equal(
    Number(
      await count(
        pool,
        "SELECT SUM(IF(RecordType = 'Receipt', Quantity, -Quantity)) FROM ar_Stock WHERE Period >= '2026-02-01' AND Period < '2026-03-01' AND Product_Key = ?",
        [product],
      ),
    ),
    expected,
  )
  const [row] = await balanceRow()
  t.equal(Number(row!.q), expected, "the shared totals row has every document's quantity: no lost update")
  const { kept, recomputed } = await totalsAgainstRecomputation(pool, model)
  t.same(kept, recomputed, 'all totals equal a recomputation')
})

t.test('concurrent creates with the same client-given key: exactly one wins', async (t) => {
  const key = '3c3c3c3c-0000-4000-8000-000000000001'
  const results = await Promise.all(
    Array.from({ length: 5 }, () =>
      rawRequest(client.port, 'POST', '/odata/standard.odata/v4/Document_GoodsReceipt', {
        headers: { Authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}`, 'Content-Type': 'application/json' },
        body: JSON.stringify({ ...documentBody(f, { rows: 3 }), Ref_Key: key }),
      }),
    ),
  )
  t.same(results.map((r) => r.status).sort(), [201, 409, 409, 409, 409])
  t.equal(await count(pool, 'SELECT COUNT(*) FROM d_GoodsReceipt__Goods WHERE Ref_Key = ?', [key]), 3, 'one table part, not five')
})
