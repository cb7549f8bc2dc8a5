// Post, Unpost and DELETE of posted documents (decisions.md §5, demo-configuration.md "Posting rules"):
// the movements written are those the configuration's rules define, totals follow in the same
// transaction, and a failure anywhere in the middle leaves document, movements and totals as they were.
import t from 'tap'
import { accountRefKey } from '../../src/model/account-key.js'
import {
  count,
  documentBody,
  fixtures,
  rows,
  totalsAgainstRecomputation,
  totalsSnapshot,
  RECEIPT_TYPE,
  SALE_TYPE,
} from '../service/writes/write-helpers.js'
import { startTestService } from '../support/test-service.js'

const client = await startTestService('writes_posting', { data: 'demo' })
t.teardown(() => client.close())
const { pool } = client.database
const model = client.model
const f = await fixtures(pool)

async function create(kind: 'GoodsReceipt' | 'GoodsSale', body: Record<string, unknown>): Promise<{ Ref_Key: string; etag: string }> {
  const response = await client.send('POST', `Document_${kind}`, body)
  if (response.status !== 201) throw new Error(`create: ${response.status} ${response.text}`)
  return { Ref_Key: response.json().Ref_Key, etag: response.headers.etag as string }
}

const stockRows = (recorder: string) =>
  rows(
    pool,
    'SELECT LineNumber, Period, Active, RecordType, Warehouse_Key, Product_Key, Quantity, Amount, Recorder_Type FROM ar_Stock WHERE Recorder = ? ORDER BY LineNumber',
    [recorder],
  )
const movementCount = async (recorder: string) =>
  (await count(pool, 'SELECT COUNT(*) FROM ar_Stock WHERE Recorder = ?', [recorder])) +
  (await count(pool, 'SELECT COUNT(*) FROM ar_Sales WHERE Recorder = ?', [recorder])) +
  (await count(pool, 'SELECT COUNT(*) FROM acr_Main WHERE Recorder = ?', [recorder]))

t.test('Post of a receipt writes the movements of its rules and sets Posted; the ETag changes', async (t) => {
  const document = await create('GoodsReceipt', documentBody(f, { rows: 3, date: '2024-04-10T08:30:00Z' }))
  const response = await client.send('POST', `Document_GoodsReceipt(${document.Ref_Key})/Post`)
  t.equal(response.status, 204)
  t.equal(response.body.length, 0)
  const [stored] = await rows<{ Posted: number; DataVersion: string }>(
    pool,
    'SELECT Posted, DataVersion FROM d_GoodsReceipt WHERE Ref_Key = ?',
    [document.Ref_Key],
  )
  t.equal(stored!.Posted, 1)
  t.equal(response.headers.etag, `W/"${stored!.DataVersion}"`)
  t.not(response.headers.etag, document.etag)
  t.same(
    await stockRows(document.Ref_Key),
    [1, 2, 3].map((n) => ({
      LineNumber: n,
      Period: '2024-04-10 08:30:00',
      Active: 1,
      RecordType: 'Receipt',
      Warehouse_Key: f.warehouses[0],
      Product_Key: f.products[n - 1],
      Quantity: `${n}.000`,
      Amount: (n * 10.5).toFixed(2),
      Recorder_Type: RECEIPT_TYPE,
    })),
  )
  t.equal(await count(pool, 'SELECT COUNT(*) FROM ar_Sales WHERE Recorder = ?', [document.Ref_Key]), 0, 'a receipt has no Sales rule')
  const accounting = await rows(
    pool,
    'SELECT LineNumber, AccountDr_Key, ExtDimensionDr1, ExtDimensionDr1_Type, ExtDimensionDr2, ExtDimensionDr2_Type, AccountCr_Key, ExtDimensionCr1, ExtDimensionCr1_Type, Organization_Key, Amount, QuantityDr, QuantityCr FROM acr_Main WHERE Recorder = ? ORDER BY LineNumber',
    [document.Ref_Key],
  )
  t.same(accounting[1], {
    LineNumber: 2,
    AccountDr_Key: accountRefKey('Main', '41'),
    ExtDimensionDr1: f.products[1],
    ExtDimensionDr1_Type: 'StandardODATA.Catalog_Products',
    ExtDimensionDr2: f.warehouses[0],
    ExtDimensionDr2_Type: 'StandardODATA.Catalog_Warehouses',
    AccountCr_Key: accountRefKey('Main', '60'),
    ExtDimensionCr1: f.counterparties[0],
    ExtDimensionCr1_Type: 'StandardODATA.Catalog_Counterparties',
    Organization_Key: f.organizations[0],
    Amount: '21.00',
    QuantityDr: '2.000',
    QuantityCr: '0.000',
  })
  t.equal(accounting.length, 3)
  const totals = await totalsAgainstRecomputation(pool, model)
  t.same(totals.kept, totals.recomputed, 'totals kept in the transaction equal a recomputation')
})

t.test('both call forms, the PostingModeOperational parameter, and the parameter checks', async (t) => {
  const document = await create('GoodsSale', documentBody(f, { rows: 2 }))
  const qualified = await client.send('POST', `Document_GoodsSale(guid'${document.Ref_Key}')/StandardODATA.Post`, {
    PostingModeOperational: true,
  })
  t.equal(qualified.status, 204)
  t.equal(
    await count(pool, 'SELECT COUNT(*) FROM ar_Stock WHERE Recorder = ? AND RecordType = ?', [document.Ref_Key, 'Expense']),
    2,
    'a sale writes Expense rows',
  )
  t.same(
    await rows(pool, 'SELECT Product_Key, Counterparty_Key, Quantity, Revenue FROM ar_Sales WHERE Recorder = ? ORDER BY LineNumber', [
      document.Ref_Key,
    ]),
    [
      { Product_Key: f.products[0], Counterparty_Key: f.counterparties[0], Quantity: '1.000', Revenue: '10.50' },
      { Product_Key: f.products[1], Counterparty_Key: f.counterparties[0], Quantity: '2.000', Revenue: '21.00' },
    ],
  )
  t.same(
    await rows(
      pool,
      'SELECT AccountDr_Key, ExtDimensionDr1, AccountCr_Key, ExtDimensionCr1, QuantityCr FROM acr_Main WHERE Recorder = ? AND LineNumber = 1',
      [document.Ref_Key],
    ),
    [
      {
        AccountDr_Key: accountRefKey('Main', '62'),
        ExtDimensionDr1: f.counterparties[0],
        AccountCr_Key: accountRefKey('Main', '90'),
        ExtDimensionCr1: f.products[0],
        QuantityCr: '1.000',
      },
    ],
  )
  const unknown = await client.send('POST', `Document_GoodsSale(${document.Ref_Key})/Post`, { Mode: 'fast' })
  t.equal(unknown.status, 400)
  t.same([unknown.json().error.code, unknown.json().error.target], ['InvalidParameter', 'Mode'])
  const wrongType = await client.send('POST', `Document_GoodsSale(${document.Ref_Key})/Post`, { PostingModeOperational: 'yes' })
  t.same([wrongType.status, wrongType.json().error.target], [400, 'PostingModeOperational'])
  const unpostWithParameter = await client.send('POST', `Document_GoodsSale(${document.Ref_Key})/Unpost`, {
    PostingModeOperational: true,
  })
  t.equal(unpostWithParameter.status, 400, 'Unpost takes no parameters')
  const notJson = await client.send('POST', `Document_GoodsSale(${document.Ref_Key})/Post`, 'x')
  t.equal(notJson.json().error.code, 'InvalidBody')
  const missing = await client.send('POST', 'Document_GoodsSale(00000000-0000-4000-8000-000000000077)/Post')
  t.equal(missing.status, 404)
  const get = await client.send('GET', `Document_GoodsSale(${document.Ref_Key})/Post`)
  t.same([get.status, get.headers.allow], [405, 'POST'])
  const stale = await client.send('POST', `Document_GoodsSale(${document.Ref_Key})/Post`, undefined, { 'If-Match': document.etag })
  t.equal(stale.status, 412, 'If-Match applies to actions')
})

t.test('posting again replaces the movements; Unpost removes them; totals follow', async (t) => {
  const document = await create('GoodsReceipt', documentBody(f, { rows: 4, date: '2024-06-30T23:59:59Z' }))
  t.equal((await client.send('POST', `Document_GoodsReceipt(${document.Ref_Key})/Post`)).status, 204)
  t.equal(await movementCount(document.Ref_Key), 8)
  // New rows, another month: the old movements go, their totals are subtracted, the new ones added.
  await client.send('PATCH', `Document_GoodsReceipt(${document.Ref_Key})`, {
    Date: '2024-07-01T00:00:00Z',
    Goods: [{ Product_Key: f.products[5], Quantity: 9, Amount: 90 }],
  })
  t.equal(await movementCount(document.Ref_Key), 8, 'PATCH does not touch movements')
  t.equal((await client.send('POST', `Document_GoodsReceipt(${document.Ref_Key})/Post`)).status, 204)
  t.same(await rows(pool, 'SELECT LineNumber, Period, Product_Key, Quantity FROM ar_Stock WHERE Recorder = ?', [document.Ref_Key]), [
    { LineNumber: 1, Period: '2024-07-01 00:00:00', Product_Key: f.products[5], Quantity: '9.000' },
  ])
  t.equal(await movementCount(document.Ref_Key), 2)
  let totals = await totalsAgainstRecomputation(pool, model)
  t.same(totals.kept, totals.recomputed, 'after a repost')

  const unposted = await client.send('POST', `Document_GoodsReceipt(${document.Ref_Key})/Unpost`)
  t.equal(unposted.status, 204)
  t.match(unposted.headers.etag, /^W\/"/)
  t.equal(await movementCount(document.Ref_Key), 0)
  t.same(await rows(pool, 'SELECT Posted FROM d_GoodsReceipt WHERE Ref_Key = ?', [document.Ref_Key]), [{ Posted: 0 }])
  totals = await totalsAgainstRecomputation(pool, model)
  t.same(totals.kept, totals.recomputed, 'after Unpost')
  t.equal(
    (await client.send('POST', `Document_GoodsReceipt(${document.Ref_Key})/Unpost`)).status,
    204,
    'Unpost of an unposted document is harmless',
  )
})

t.test('DELETE of a posted document removes its rows and movements, with totals', async (t) => {
  const before = await totalsSnapshot(pool, model)
  const document = await create('GoodsSale', documentBody(f, { rows: 3, date: '2025-02-01T12:00:00Z' }))
  await client.send('POST', `Document_GoodsSale(${document.Ref_Key})/Post`)
  t.equal(await movementCount(document.Ref_Key), 9)
  const deleted = await client.send('DELETE', `Document_GoodsSale(${document.Ref_Key})`)
  t.equal(deleted.status, 204)
  t.equal(await movementCount(document.Ref_Key), 0)
  t.equal(await count(pool, 'SELECT COUNT(*) FROM d_GoodsSale__Goods WHERE Ref_Key = ?', [document.Ref_Key]), 0)
  t.equal(await count(pool, 'SELECT COUNT(*) FROM d_GoodsSale WHERE Ref_Key = ?', [document.Ref_Key]), 0)
  t.same(await totalsSnapshot(pool, model), before, 'totals are back where they were')
})

t.test('a document marked for deletion cannot be posted', async (t) => {
  const document = await create('GoodsReceipt', documentBody(f, { extra: { DeletionMark: true } }))
  const response = await client.send('POST', `Document_GoodsReceipt(${document.Ref_Key})/Post`)
  t.equal(response.status, 400)
  t.equal(response.json().error.code, 'DeletionMarked')
  t.equal(await movementCount(document.Ref_Key), 0)
  t.same(await rows(pool, 'SELECT Posted FROM d_GoodsReceipt WHERE Ref_Key = ?', [document.Ref_Key]), [{ Posted: 0 }])
})

t.test('a failure in the last movement rolls back document, movements and totals together', async (t) => {
  // The accounting register takes its rows last; a CHECK that the model does not know fails the last of them.
  await pool.query('ALTER TABLE acr_Main ADD CONSTRAINT test_amount_limit CHECK (Amount < 100000)')
  t.teardown(() => pool.query('ALTER TABLE acr_Main DROP CONSTRAINT test_amount_limit'))
  const body = documentBody(f, { rows: 3, date: '2024-08-08T08:00:00Z' })
  ;(body.Goods as Record<string, unknown>[])[2]!.Amount = 200000
  const fresh = await create('GoodsReceipt', body)
  const totalsBefore = await totalsSnapshot(pool, model)
  const [before] = await rows(pool, 'SELECT Posted, DataVersion FROM d_GoodsReceipt WHERE Ref_Key = ?', [fresh.Ref_Key])
  const failed = await client.send('POST', `Document_GoodsReceipt(${fresh.Ref_Key})/Post`)
  t.equal(failed.status, 500)
  t.equal(await movementCount(fresh.Ref_Key), 0, 'no movements, not even the Stock ones written before the failure')
  t.same(await totalsSnapshot(pool, model), totalsBefore, 'totals unchanged, though Stock totals were updated before the failure')
  t.same(
    await rows(pool, 'SELECT Posted, DataVersion FROM d_GoodsReceipt WHERE Ref_Key = ?', [fresh.Ref_Key]),
    [before],
    'Posted and DataVersion unchanged',
  )

  // A posted document whose repost fails keeps its old movements and totals.
  const posted = await create('GoodsReceipt', documentBody(f, { rows: 2, date: '2024-08-09T08:00:00Z' }))
  t.equal((await client.send('POST', `Document_GoodsReceipt(${posted.Ref_Key})/Post`)).status, 204)
  const oldMovements = await stockRows(posted.Ref_Key)
  const totalsPosted = await totalsSnapshot(pool, model)
  await client.send('PATCH', `Document_GoodsReceipt(${posted.Ref_Key})`, {
    Date: '2024-09-01T00:00:00Z',
    Goods: [
      { Product_Key: f.products[3], Quantity: 1, Amount: 1 },
      { Product_Key: f.products[4], Quantity: 1, Amount: 300000 },
    ],
  })
  const repost = await client.send('POST', `Document_GoodsReceipt(${posted.Ref_Key})/Post`)
  t.equal(repost.status, 500)
  t.same(await stockRows(posted.Ref_Key), oldMovements, 'the old movements are back')
  t.equal(await count(pool, 'SELECT COUNT(*) FROM acr_Main WHERE Recorder = ?', [posted.Ref_Key]), 2)
  t.same(await totalsSnapshot(pool, model), totalsPosted, 'and so are the totals')
  const totals = await totalsAgainstRecomputation(pool, model)
  t.same(totals.kept, totals.recomputed)
})

t.test('posting documents into the same warehouse and product one after another sums up in the totals', async (t) => {
  const product = f.products[10]!
  const warehouse = f.warehouses[3]!
  const balance = async () =>
    (
      await rows<{ q: string | null }>(
        pool,
        'SELECT SUM(Quantity) AS q FROM ar_Stock__totals WHERE Warehouse_Key = ? AND Product_Key = ?',
        [warehouse, product],
      )
    )[0]!.q
  const start = Number(await balance())
  for (const [kind, quantity] of [
    ['GoodsReceipt', 7],
    ['GoodsReceipt', 5],
    ['GoodsSale', 3],
  ] as const) {
    const document = await create(kind, documentBody(f, { rows: 1, product, warehouse, quantity, date: '2025-05-05T05:05:05Z' }))
    t.equal((await client.send('POST', `Document_${kind}(${document.Ref_Key})/Post`)).status, 204)
  }
  t.equal(Number(await balance()) - start, 9)
  t.equal(SALE_TYPE, 'StandardODATA.Document_GoodsSale')
})

t.test('a posting whose totals would overflow is a 400 naming the register, and nothing of it stays', async (t) => {
  // Each line's Amount fits its column; their sum does not fit the totals' Amount of the same digits.
  const body = documentBody(f, { rows: 2, date: '2024-09-10T08:30:00Z' })
  for (const line of body.Goods as Record<string, unknown>[]) line.Amount = 9999999999999.99
  const document = await create('GoodsReceipt', body)
  const before = await totalsSnapshot(pool, model)
  const response = await client.send('POST', `Document_GoodsReceipt(${document.Ref_Key})/Post`)
  t.equal(response.status, 400, response.text)
  t.equal(response.json().error.code, 'ValueOutOfRange')
  t.match(response.json().error.message, /^The totals of (AccumulationRegister|AccountingRegister)_\w+ cannot hold this posting/)
  const [stored] = await rows<{ Posted: number }>(pool, 'SELECT Posted FROM d_GoodsReceipt WHERE Ref_Key = ?', [document.Ref_Key])
  t.equal(stored!.Posted, 0, 'the document stays unposted')
  t.equal(await movementCount(document.Ref_Key), 0, 'no movement stays')
  t.same(await totalsSnapshot(pool, model), before, 'the totals are as they were')
})
