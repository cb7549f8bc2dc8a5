// Record sets written whole by recorder (accumulation and accounting registers), records of independent
// information registers, and the read-only sets that answer 405 with Allow.
import t from 'tap'
import { accountRefKey } from '../../../src/model/account-key.js'
import {
  count,
  documentBody,
  fixtures,
  rows,
  totalsAgainstRecomputation,
  totalsSnapshot,
  RECEIPT_TYPE,
  SALE_TYPE,
} from './write-helpers.js'
import { startTestService } from '../../support/test-service.js'

const client = await startTestService('writes_record_sets', { data: 'demo' })
t.teardown(() => client.close())
const { pool } = client.database
const model = client.model
const f = await fixtures(pool)

async function receipt(date = '2024-10-10T10:00:00Z'): Promise<string> {
  const response = await client.send('POST', 'Document_GoodsReceipt', documentBody(f, { date }))
  return response.json().Ref_Key
}
const stockKey = (recorder: string, type = RECEIPT_TYPE) => `AccumulationRegister_Stock(Recorder=guid'${recorder}',Recorder_Type='${type}')`

t.test("PUT of an accumulation record set replaces the recorder's movements, with defaults", async (t) => {
  const recorder = await receipt()
  const response = await client.send('PUT', stockKey(recorder), {
    Recorder: recorder,
    RecordSet: [
      {
        Warehouse_Key: f.warehouses[0],
        Product_Key: f.products[0],
        Quantity: 5,
        Amount: 50,
        LineNumber: 9,
        Recorder: '00000000-0000-4000-8000-000000000001',
      },
      {
        RecordType: 'Expense',
        Period: '2024-11-01T00:00:00Z',
        Active: false,
        Warehouse_Key: f.warehouses[0],
        Product_Key: f.products[0],
        Quantity: 2,
        Amount: 20,
      },
    ],
  })
  t.equal(response.status, 200)
  const body = response.json()
  t.same([body.Recorder, body.Recorder_Type, body.RecordSet.length], [recorder, RECEIPT_TYPE, 2])
  t.same(
    await rows(
      pool,
      'SELECT Recorder, Recorder_Type, LineNumber, Period, Active, RecordType, Quantity FROM ar_Stock WHERE Recorder = ? ORDER BY LineNumber',
      [recorder],
    ),
    [
      {
        Recorder: recorder,
        Recorder_Type: RECEIPT_TYPE,
        LineNumber: 1,
        Period: '2024-10-10 10:00:00',
        Active: 1,
        RecordType: 'Receipt',
        Quantity: '5.000',
      },
      {
        Recorder: recorder,
        Recorder_Type: RECEIPT_TYPE,
        LineNumber: 2,
        Period: '2024-11-01 00:00:00',
        Active: 0,
        RecordType: 'Expense',
        Quantity: '2.000',
      },
    ],
    'Recorder and LineNumber from the key and the order; Period from the document, Active true and Receipt by default',
  )
  t.equal(body.RecordSet[0].Period, '2024-10-10T10:00:00Z', 'the response shows the filled-in defaults')
  let totals = await totalsAgainstRecomputation(pool, model)
  t.same(totals.kept, totals.recomputed, 'inactive rows do not count in totals, active ones do')

  const patched = await client.send('PATCH', stockKey(recorder), {
    RecordSet: [{ Warehouse_Key: f.warehouses[1], Product_Key: f.products[1], Quantity: 1 }],
  })
  t.equal(patched.status, 200)
  t.same(
    await rows(pool, 'SELECT LineNumber, Warehouse_Key FROM ar_Stock WHERE Recorder = ?', [recorder]),
    [{ LineNumber: 1, Warehouse_Key: f.warehouses[1] }],
    'PATCH replaces the whole set too',
  )
  const cleared = await client.send('PUT', stockKey(recorder), { RecordSet: [] })
  t.equal(cleared.status, 200)
  t.equal(await count(pool, 'SELECT COUNT(*) FROM ar_Stock WHERE Recorder = ?', [recorder]), 0, 'an empty array clears the set')
  totals = await totalsAgainstRecomputation(pool, model)
  t.same(totals.kept, totals.recomputed)
  t.same(
    await rows(pool, 'SELECT Posted FROM d_GoodsReceipt WHERE Ref_Key = ?', [recorder]),
    [{ Posted: 0 }],
    'writing a record set does not post the document',
  )
})

t.test('POST to the register writes the set of the recorder named in the body (201 with Location)', async (t) => {
  const recorder = await receipt('2024-12-31T23:00:00Z')
  const response = await client.send('POST', 'AccumulationRegister_Stock', {
    Recorder: recorder,
    Recorder_Type: RECEIPT_TYPE,
    RecordSet: [{ Warehouse_Key: f.warehouses[2], Product_Key: f.products[2], Quantity: 3, Amount: 3 }],
  })
  t.equal(response.status, 201)
  t.equal(
    response.headers.location,
    `http://127.0.0.1:${client.port}/odata/standard.odata/v4/AccumulationRegister_Stock(Recorder=${recorder},Recorder_Type='StandardODATA.Document_GoodsReceipt')`,
  )
  t.equal(await count(pool, 'SELECT COUNT(*) FROM ar_Stock WHERE Recorder = ?', [recorder]), 1)
  const read = await client.send('GET', new URL(response.headers.location!).pathname.replace('/odata/standard.odata/v4/', ''))
  t.equal(read.status, 200, 'the Location reads back')

  const deleted = await client.send('DELETE', `Document_GoodsReceipt(${recorder})`)
  t.equal(deleted.status, 204)
  t.equal(
    await count(pool, 'SELECT COUNT(*) FROM ar_Stock WHERE Recorder = ?', [recorder]),
    0,
    'DELETE of the (unposted) recorder removes movements written directly',
  )
  const totals = await totalsAgainstRecomputation(pool, model)
  t.same(totals.kept, totals.recomputed)
})

t.test('refused record-set writes change nothing', async (t) => {
  const recorder = await receipt()
  await client.send('PUT', stockKey(recorder), {
    RecordSet: [{ Warehouse_Key: f.warehouses[0], Product_Key: f.products[0], Quantity: 1 }],
  })
  const before = await rows(pool, 'SELECT * FROM ar_Stock WHERE Recorder = ?', [recorder])
  const totalsBefore = await totalsSnapshot(pool, model)
  const cases: [string, string, unknown, number, string][] = [
    ['PUT', stockKey(recorder), { RecordSet: [{ Quantity: 1 }, { Quantity: 1.0001 }] }, 400, 'RecordSet/1/Quantity'],
    ['PUT', stockKey(recorder), { RecordSet: [{ RecordType: 'Sideways' }] }, 400, 'RecordSet/0/RecordType'],
    ['PUT', stockKey(recorder), { RecordSet: {} }, 400, 'RecordSet'],
    ['PUT', stockKey(recorder), {}, 400, 'RecordSet'],
    ['PUT', stockKey(recorder), { Recorder: f.products[0], RecordSet: [] }, 400, 'Recorder'],
    ['POST', 'AccumulationRegister_Stock', { Recorder_Type: RECEIPT_TYPE, RecordSet: [] }, 400, 'Recorder'],
    [
      'POST',
      'AccumulationRegister_Stock',
      { Recorder: recorder, Recorder_Type: 'StandardODATA.Catalog_Products', RecordSet: [] },
      400,
      'Recorder_Type',
    ],
    ['POST', 'AccumulationRegister_Sales', { Recorder: recorder, Recorder_Type: RECEIPT_TYPE, RecordSet: [] }, 400, 'Recorder_Type'],
    ['PUT', stockKey('00000000-0000-4000-8000-0000000000aa'), { RecordSet: [] }, 404, ''],
  ]
  for (const [method, path, body, status, target] of cases) {
    const response = await client.send(method, path, body)
    t.equal(response.status, status, `${method} ${JSON.stringify(body)}`)
    if (target) t.equal(response.json().error.target, target)
  }
  t.same(await rows(pool, 'SELECT * FROM ar_Stock WHERE Recorder = ?', [recorder]), before)
  t.same(await totalsSnapshot(pool, model), totalsBefore)
})

t.test('accounting record sets: accounts, extra dimensions, Dr/Cr resources', async (t) => {
  const recorder = await receipt('2024-02-29T12:00:00Z')
  const path = `AccountingRegister_Main(Recorder=${recorder},Recorder_Type='${RECEIPT_TYPE}')`
  const response = await client.send('PUT', path, {
    RecordSet: [
      {
        'AccountDr@odata.bind': `ChartOfAccounts_Main(${accountRefKey('Main', '41')})`,
        ExtDimensionDr1: f.products[0],
        ExtDimensionDr1_Type: 'StandardODATA.Catalog_Products',
        AccountCr_Key: accountRefKey('Main', '51'),
        Organization_Key: f.organizations[1],
        Amount: 100,
        QuantityDr: 4,
        Content: 'manual entry',
      },
    ],
  })
  t.equal(response.status, 200)
  t.same(
    await rows(
      pool,
      'SELECT LineNumber, AccountDr_Key, ExtDimensionDr1, ExtDimensionDr1_Type, AccountCr_Key, ExtDimensionCr1_Type, Amount, QuantityDr, Content FROM acr_Main WHERE Recorder = ?',
      [recorder],
    ),
    [
      {
        LineNumber: 1,
        AccountDr_Key: accountRefKey('Main', '41'),
        ExtDimensionDr1: f.products[0],
        ExtDimensionDr1_Type: 'StandardODATA.Catalog_Products',
        AccountCr_Key: accountRefKey('Main', '51'),
        ExtDimensionCr1_Type: '',
        Amount: '100.00',
        QuantityDr: '4.000',
        Content: 'manual entry',
      },
    ],
  )
  const totals = await totalsAgainstRecomputation(pool, model)
  t.same(totals.kept, totals.recomputed)
  const badType = await client.send('PUT', path, { RecordSet: [{ ExtDimensionDr1_Type: 'StandardODATA.Catalog_Nothing' }] })
  t.same([badType.status, badType.json().error.target], [400, 'RecordSet/0/ExtDimensionDr1_Type'])
  const sale = await client.send('POST', 'AccountingRegister_Main', { Recorder: recorder, Recorder_Type: SALE_TYPE, RecordSet: [] })
  t.equal(sale.status, 404, 'no GoodsSale with this key')
})

t.test('information registers: POST writes or replaces by key, PATCH merges, DELETE removes', async (t) => {
  const product = f.products[7]!
  const first = await client.send('POST', 'InformationRegister_Prices', {
    Period: '2030-01-15T18:30:00+05:00',
    Product_Key: product,
    PriceType: 'Wholesale',
    Price: 12.5,
  })
  t.equal(first.status, 201)
  t.equal(first.json().Period, '2030-01-15T00:00:00Z', 'cut to the start of the day (UTC)')
  t.equal(
    first.headers.location,
    `http://127.0.0.1:${client.port}/odata/standard.odata/v4/InformationRegister_Prices(Period=2030-01-15T00:00:00Z,Product_Key=${product},PriceType='Wholesale')`,
  )
  const again = await client.send('POST', 'InformationRegister_Prices', {
    Period: '2030-01-15T00:00:00Z',
    Product_Key: product,
    PriceType: 'Wholesale',
    Price: 13,
  })
  t.equal(again.status, 201)
  t.same(
    await rows(pool, "SELECT Period, Price FROM ir_Prices WHERE Product_Key = ? AND PriceType = 'Wholesale'", [product]),
    [{ Period: '2030-01-15 00:00:00', Price: '13.00' }],
    'the same key replaces',
  )
  const key = `InformationRegister_Prices(Period=datetime'2030-01-15T00:00:00',Product_Key=guid'${product}',PriceType='Wholesale')`
  const patched = await client.send('PATCH', key, { Price: 14.25, PriceType: 'Ignored' })
  t.equal(patched.status, 200)
  t.same([patched.json().Price, patched.json().PriceType], [14.25, 'Wholesale'], 'key properties in a PATCH body are ignored')
  t.equal((await client.send('PATCH', key, { Price: 1 }, { 'If-Match': 'W/"1"' })).status, 412, 'registers have no ETag')
  t.equal((await client.send('PATCH', key, { Price: 1.001 })).json().error.target, 'Price')
  t.equal((await client.send('DELETE', key, undefined, { 'If-Match': '*' })).status, 204)
  t.equal(await count(pool, "SELECT COUNT(*) FROM ir_Prices WHERE Product_Key = ? AND PriceType = 'Wholesale'", [product]), 0)
  t.equal((await client.send('DELETE', key)).status, 404)
  t.equal((await client.send('PATCH', key, { Price: 1 })).status, 404)
  const noPeriod = await client.send('POST', 'InformationRegister_Prices', { Product_Key: product, PriceType: 'X', Price: 1 })
  t.same([noPeriod.status, noPeriod.json().error.target], [400, 'Period'])

  const rate = await client.send('POST', encodeURIComponent('InformationRegister_КурсыВалют'), {
    Period: '2031-03-03T03:03:03Z',
    Валюта: 'JPY',
    Курс: 0.6543,
    Кратность: 100,
  })
  t.equal(rate.status, 201)
  t.same(await rows(pool, "SELECT `Курс`, `Кратность` FROM `ir_КурсыВалют` WHERE `Валюта` = 'JPY'"), [{ Курс: '0.6543', Кратность: '100' }])
  t.equal(
    (
      await client.send('POST', encodeURIComponent('InformationRegister_КурсыВалют'), { Period: '2031-03-03', Валюта: 'YEN!', Курс: 1 })
    ).json().error.target,
    'Валюта',
  )

  const setting = await client.send('POST', 'InformationRegister_Settings', { Value: 'on', SurrogateKey: 5 })
  t.same([setting.status, setting.json().SurrogateKey], [201, 0], 'a register without dimensions has the single record 0')
  await client.send('POST', 'InformationRegister_Settings', { Value: 'off' })
  t.same(await rows(pool, 'SELECT SurrogateKey, Value FROM ir_Settings'), [{ SurrogateKey: 0, Value: 'off' }])
  const barcode = await client.send('POST', 'InformationRegister_Barcodes', {
    Barcode: '4600000000001',
    'Product@odata.bind': `Catalog_Products(${product})`,
  })
  t.same([barcode.status, barcode.json().Product_Key], [201, product])
})

t.test('read-only sets answer 405 with Allow, and nothing is written', async (t) => {
  const recorder = await receipt()
  const cases: [string, string, string][] = [
    ['POST', 'AccumulationRegister_Stock_RecordType', 'GET, HEAD'],
    ['PATCH', `AccumulationRegister_Stock_RecordType(Recorder=${recorder},Recorder_Type='${RECEIPT_TYPE}',LineNumber=1)`, 'GET, HEAD'],
    ['DELETE', `AccountingRegister_Main_RecordType(Recorder=${recorder},Recorder_Type='${RECEIPT_TYPE}',LineNumber=1)`, 'GET, HEAD'],
    ['POST', 'Document_GoodsReceipt_Goods', 'GET, HEAD'],
    ['PUT', `Document_GoodsReceipt_Goods(Ref_Key=${recorder},LineNumber=1)`, 'GET, HEAD'],
    ['POST', 'ChartOfAccounts_Main', 'GET, HEAD'],
    ['DELETE', stockKey(recorder), 'GET, PUT, PATCH, HEAD'],
    ['PUT', `InformationRegister_Settings(SurrogateKey=0)`, 'GET, PATCH, DELETE, HEAD'],
  ]
  for (const [method, path, allow] of cases) {
    const response = await client.send(method, path, {})
    t.equal(response.status, 405, `${method} ${path}`)
    t.equal(response.headers.allow, allow)
  }
  t.equal(await count(pool, 'SELECT COUNT(*) FROM ar_Stock WHERE Recorder = ?', [recorder]), 0)
})
