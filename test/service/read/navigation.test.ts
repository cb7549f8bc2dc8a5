// GET of navigation properties: table parts, record sets and extra-dimension lines as collections (with
// their query options and /$count), references as single entities (204 when empty), 404 when the parent
// does not exist.
import t from 'tap'
import { accountRefKey } from '../../../src/model/account-key.js'
import { READER_BASIC, startTestService } from '../../support/test-service.js'
import { R, RECEIPT_TYPE, S, SALE_TYPE, W } from './support/read-fixture.js'

const service = await startTestService('read_navigation', { data: 'reads' })
t.teardown(() => service.close())
const root = `http://127.0.0.1:${service.port}/odata/standard.odata/v4/`
const MISSING = '99999999-0000-4000-8000-000000000000'

t.test('table parts', async (t) => {
  const response = await service.get(`Document_GoodsReceipt(${R.first})/Goods?$select=LineNumber,Quantity`)
  t.equal(response.status, 200)
  t.equal(response.json()['@odata.context'], `${root}$metadata#Document_GoodsReceipt_Goods(LineNumber,Quantity)`)
  t.same(response.json().value, [
    { LineNumber: 1, Quantity: 10 },
    { LineNumber: 2, Quantity: 5 },
    { LineNumber: 3, Quantity: 1.5 },
  ])
  t.same(
    await service.values(`Document_GoodsReceipt(guid'${R.first}')/Goods?$filter=Quantity lt 10&$orderby=Quantity&$select=LineNumber`),
    [{ LineNumber: 3 }, { LineNumber: 2 }],
  )
  t.same(
    await service.values(`Document_GoodsReceipt(Ref_Key=${R.first})/Goods?$top=1&$skip=1&$select=LineNumber&$expand=Product($select=Code)`),
    [{ LineNumber: 2, Product: { Code: '002' } }],
  )
  t.equal((await service.get(`Document_GoodsReceipt(${R.first})/Goods/$count`)).text, '3')
  t.equal((await service.get(`Document_GoodsReceipt(${R.first})/Goods/$count?$filter=Quantity gt 2`)).text, '2')
  t.same(await service.values(`Document_GoodsReceipt(${R.empty})/Goods`), [], 'a document without goods')
  t.equal((await service.get(`Document_GoodsReceipt(${MISSING})/Goods`)).status, 404)
  t.equal((await service.get(`Document_GoodsReceipt(${MISSING})/Goods/$count`)).status, 404)
  t.same(await service.values(`Document_GoodsSale(${S.first})/Goods?$select=LineNumber`), [{ LineNumber: 1 }, { LineNumber: 2 }])
})

t.test('record sets and extra-dimension lines', async (t) => {
  const key = `Recorder=${R.first},Recorder_Type='${RECEIPT_TYPE}'`
  const movements = await service.values(`AccumulationRegister_Stock(${key})/RecordSet?$select=LineNumber,Quantity&$filter=Quantity ge 5`)
  t.same(movements, [
    { LineNumber: 1, Quantity: 10 },
    { LineNumber: 2, Quantity: 5 },
  ])
  t.equal((await service.get(`AccumulationRegister_Stock(${key})/RecordSet/$count`)).text, '3')
  t.same(
    await service.values(`AccumulationRegister_Stock(Recorder=${R.empty},Recorder_Type='${RECEIPT_TYPE}')/RecordSet`),
    [],
    'an unposted recorder: an empty record set',
  )
  t.equal((await service.get(`AccumulationRegister_Stock(Recorder=${MISSING},Recorder_Type='${RECEIPT_TYPE}')/RecordSet`)).status, 404)
  t.equal(
    (await service.get(`AccumulationRegister_Stock(Recorder=${R.first},Recorder_Type='${SALE_TYPE}')/RecordSet`)).status,
    404,
    'a recorder of another type',
  )
  const lines = await service.values(`ChartOfAccounts_Main(${accountRefKey('Main', '41')})/ExtDimensionTypes?$select=ExtDimensionType`)
  t.same(lines, [{ ExtDimensionType: 'Products' }, { ExtDimensionType: 'Warehouses' }])
})

t.test('single-valued navigations', async (t) => {
  const warehouse = await service.get(`Document_GoodsReceipt(${R.first})/Warehouse`)
  t.equal(warehouse.status, 200)
  t.equal(warehouse.json()['@odata.context'], `${root}$metadata#Catalog_Warehouses/$entity`)
  t.equal(warehouse.json().Ref_Key, W.main)
  t.equal(warehouse.json().Description, 'Main')
  t.equal(warehouse.headers.etag, 'W/"1"')
  const product = await service.get(
    `AccumulationRegister_Stock_RecordType(Recorder=${S.first},Recorder_Type='${SALE_TYPE}',LineNumber=2)/Product?$select=Code,Description`,
  )
  t.same(product.json(), {
    '@odata.context': `${root}$metadata#Catalog_Products(Code,Description)/$entity`,
    '@odata.etag': 'W/"1"',
    Code: '003',
    Description: 'Nut 100%',
  })
  const empty = await service.get(`Document_GoodsReceipt(${R.empty})/Warehouse`)
  t.equal(empty.status, 204, 'an empty reference: no content')
  t.equal(empty.body.length, 0)
  t.equal((await service.get(`Document_GoodsReceipt(${MISSING})/Warehouse`)).status, 404)
  const reader = await service.get(`Document_GoodsReceipt(${R.first})/Goods/$count`, { Authorization: READER_BASIC })
  t.equal(reader.status, 200, 'a read-only profile reads navigations')
  t.equal((await service.get(`Document_GoodsReceipt(${R.first})/Warehouse/$count`)).status, 404, '$count after a single-valued navigation')
  t.equal((await service.get(`Document_GoodsReceipt(${R.first})/Warehouse?$top=1`)).status, 400, '$top on a single entity')
})
