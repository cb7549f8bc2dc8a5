// $expand of references and of collections (table parts, record sets, extra-dimension lines), nested
// $select/$filter/$orderby/$top/$skip/$count/$expand, the /$ref and /$count forms, `*`, on collections
// and on single entities, and batches of parents larger than one expansion query.
import t from 'tap'
import { C, P, R, RECEIPT_TYPE, S, W } from './support/read-fixture.js'
import { startTestService } from '../../support/test-service.js'

const service = await startTestService('read_expand', { data: 'reads' })
t.teardown(() => service.close())
const root = `http://127.0.0.1:${service.port}/odata/standard.odata/v4/`

t.test('references: the target entity, null for an empty one, nested $select and $expand', async (t) => {
  const receipts = await service.values('Document_GoodsReceipt?$select=Number&$expand=Warehouse($select=Description)&$orderby=Number')
  t.same(receipts, [
    { Number: '0001', Warehouse: { Description: 'Main' } },
    { Number: '0002', Warehouse: { Description: 'Remote' } },
    { Number: '0003', Warehouse: null },
  ])
  const full = await service.values(
    `Document_GoodsReceipt?$filter=Number eq '0002'&$select=Number&$expand=Warehouse,Counterparty($select=TaxId)`,
  )
  t.same(full, [
    {
      Number: '0002',
      Warehouse: { Ref_Key: W.remote, DataVersion: '1', DeletionMark: false, Code: '02', Description: 'Remote' },
      Counterparty: { TaxId: '7700000000' },
    },
  ])
  const movements = await service.values(
    `AccumulationRegister_Stock_RecordType?$filter=Recorder eq ${S.first}&$select=LineNumber&$expand=Product($select=Code),Warehouse($select=Code)`,
  )
  t.same(movements, [
    { LineNumber: 1, Product: { Code: '001' }, Warehouse: { Code: '01' } },
    { LineNumber: 2, Product: { Code: '003' }, Warehouse: { Code: '01' } },
  ])
  const filtered = await service.values(
    `Document_GoodsReceipt_Goods?$select=LineNumber&$expand=Product($filter=Unit eq 'kg';$select=Code)&$filter=Ref_Key eq ${R.first}`,
  )
  t.same(
    filtered,
    [
      { LineNumber: 1, Product: null },
      { LineNumber: 2, Product: null },
      { LineNumber: 3, Product: { Code: '003' } },
    ],
    'a nested $filter on a reference: null when it does not hold',
  )
})

t.test('table parts and record sets: nested $orderby, $top, $skip, $count, $filter', async (t) => {
  const receipts = await service.values('Document_GoodsReceipt?$select=Number&$orderby=Number&$expand=Goods($select=LineNumber,Quantity)')
  t.same(receipts, [
    {
      Number: '0001',
      Goods: [
        { LineNumber: 1, Quantity: 10 },
        { LineNumber: 2, Quantity: 5 },
        { LineNumber: 3, Quantity: 1.5 },
      ],
    },
    { Number: '0002', Goods: [{ LineNumber: 1, Quantity: 100 }] },
    { Number: '0003', Goods: [] },
  ])
  const ordered = await service.values(
    "Document_GoodsReceipt?$filter=Number eq '0001'&$select=Number&$expand=Goods($select=LineNumber;$orderby=Quantity;$skip=1;$top=1;$count=true)",
  )
  t.same(ordered, [{ Number: '0001', 'Goods@odata.count': 3, Goods: [{ LineNumber: 2 }] }])
  const nested = await service.values(
    `Document_GoodsReceipt(${R.first})/Goods?$select=LineNumber&$filter=Quantity gt 2&$expand=Product($select=Description)`,
  )
  t.same(nested, [
    { LineNumber: 1, Product: { Description: 'Bolt M6' } },
    { LineNumber: 2, Product: { Description: 'bolt m8' } },
  ])
  const deep = await service.values(
    "Document_GoodsReceipt?$filter=Number eq '0002'&$select=Number&$expand=Goods($select=LineNumber;$expand=Product($select=Code))",
  )
  t.same(deep, [{ Number: '0002', Goods: [{ LineNumber: 1, Product: { Code: '001' } }] }])
  const recordSets = await service.values(
    `AccumulationRegister_Stock?$filter=Recorder eq ${R.first}&$expand=RecordSet($select=LineNumber,RecordType;$filter=Quantity ge 5)`,
  )
  t.same(recordSets, [
    {
      Recorder: R.first,
      Recorder_Type: RECEIPT_TYPE,
      RecordSet: [
        { LineNumber: 1, RecordType: 'Receipt' },
        { LineNumber: 2, RecordType: 'Receipt' },
      ],
    },
  ])
  const accounts = await service.values(
    "ChartOfAccounts_Main?$filter=Code eq '41'&$select=Code&$expand=ExtDimensionTypes($select=LineNumber,ExtDimensionType)",
  )
  t.same(accounts, [
    {
      Code: '41',
      ExtDimensionTypes: [
        { LineNumber: 1, ExtDimensionType: 'Products' },
        { LineNumber: 2, ExtDimensionType: 'Warehouses' },
      ],
    },
  ])
})

t.test('/$ref, /$count, * and the context URL', async (t) => {
  const refs = await service.get("Document_GoodsReceipt?$filter=Number eq '0001'&$select=Number&$expand=Warehouse/$ref,Goods/$count")
  t.same(refs.json().value, [
    { Number: '0001', Warehouse: { '@odata.id': `${root}Catalog_Warehouses(${W.main})` }, 'Goods@odata.count': 3 },
  ])
  const goodsRefs = await service.values('Document_GoodsReceipt_Goods?$filter=LineNumber eq 3&$select=LineNumber&$expand=Product/$ref')
  t.same(goodsRefs, [{ LineNumber: 3, Product: { '@odata.id': `${root}Catalog_Products(${P.nut})` } }])
  const star = await service.values('Document_GoodsSale?$select=Number&$expand=*')
  t.same(Object.keys(star[0]!), ['Number', 'Goods', 'Warehouse', 'Counterparty', 'Organization'])
  t.equal((star[0]!.Counterparty as { Ref_Key: string }).Ref_Key, C.acme)
  const context = (
    await service.get('Document_GoodsReceipt?$select=Number&$expand=Goods($select=LineNumber;$expand=Product),Warehouse')
  ).json()['@odata.context']
  t.equal(context, `${root}$metadata#Document_GoodsReceipt(Number,Goods(LineNumber,Product()),Warehouse())`)
})

t.test('a single entity with $select and $expand', async (t) => {
  const response = await service.get(
    `Document_GoodsReceipt(${R.first})?$select=Number,Date&$expand=Goods($select=LineNumber;$top=2),Warehouse($select=Code)`,
  )
  t.equal(response.status, 200)
  const body = response.json()
  t.equal(body['@odata.context'], `${root}$metadata#Document_GoodsReceipt(Number,Date,Goods(LineNumber),Warehouse(Code))/$entity`)
  t.equal(body['@odata.etag'], 'W/"1"')
  t.same(
    { Number: body.Number, Date: body.Date, Goods: body.Goods, Warehouse: body.Warehouse },
    { Number: '0001', Date: '2024-01-15T10:00:00Z', Goods: [{ LineNumber: 1 }, { LineNumber: 2 }], Warehouse: { Code: '01' } },
  )
  const recordSet = await service.get(
    `AccumulationRegister_Stock(Recorder=${S.first},Recorder_Type='StandardODATA.Document_GoodsSale')?$expand=RecordSet($select=LineNumber,Quantity)`,
  )
  t.same(recordSet.json().RecordSet, [
    { LineNumber: 1, Quantity: 4 },
    { LineNumber: 2, Quantity: 0.5 },
  ])
  const emptyRecordSet = await service.get(
    `AccumulationRegister_Stock(Recorder=${R.empty},Recorder_Type='${RECEIPT_TYPE}')?$expand=RecordSet`,
  )
  t.equal(emptyRecordSet.status, 200, 'the record set of an unposted recorder exists')
  t.same(emptyRecordSet.json().RecordSet, [])
})

t.test('expansion errors', async (t) => {
  const cases: [string, string][] = [
    ['Document_GoodsReceipt?$expand=Number', 'InvalidExpand'],
    ['Document_GoodsReceipt?$expand=Goods($select=Colour)', 'InvalidExpand'],
    ['Document_GoodsReceipt?$expand=Warehouse($top=1)', 'InvalidExpand'],
    ['Document_GoodsReceipt?$expand=Goods,Goods', 'InvalidExpand'],
    ['Document_GoodsReceipt?$expand=Goods($apply=aggregate($count as N))', 'InvalidExpand'],
    ['Document_GoodsReceipt?$expand=Goods($filter=Colour eq 1)', 'InvalidExpand'],
    ['Catalog_Products?$apply=groupby((Unit))&$expand=Nothing', 'InvalidExpand'],
  ]
  for (const [path, code] of cases) {
    const response = await service.get(path)
    t.equal(response.status, 400, path)
    t.equal(response.json().error.code, code, `${path}: ${response.json().error.message}`)
    t.equal(response.json().error.target, '$expand', path)
  }
})

t.test('many parents: expansions are read in batches and every parent gets its own', async (t) => {
  const pool = service.database.pool
  // 1,200 more documents with two lines each: more than two expansion batches.
  const documents = Array.from({ length: 1200 }, (_, i) => `20000000-0000-4000-8000-${String(i).padStart(12, '0')}`)
  await pool.query(
    `INSERT INTO d_GoodsSale (Ref_Key, DataVersion, Number, Date, Warehouse_Key, Comment) VALUES ${documents.map(() => "(?, 1, ?, ?, ?, '')").join(',')}`,
    documents.flatMap((k, i) => [k, `B${String(i).padStart(5, '0')}`, '2024-06-01 00:00:00', i % 2 === 0 ? W.main : W.remote]),
  )
  await pool.query(
    `INSERT INTO d_GoodsSale__Goods (Ref_Key, LineNumber, Product_Key, Quantity) VALUES ${documents.map(() => '(?, 1, ?, ?), (?, 2, ?, ?)').join(',')}`,
    documents.flatMap((k, i) => [k, P.boltM6, i, k, P.nut, i + 0.5]),
  )
  const sales = await service.values(
    "Document_GoodsSale?$filter=startswith(Number,'B')&$select=Number&$orderby=Number&$expand=Goods($select=Quantity),Warehouse($select=Code)",
  )
  t.equal(sales.length, 1200)
  let wrong = 0
  sales.forEach((sale, i) => {
    const goods = sale.Goods as { Quantity: number }[]
    if (
      goods.length !== 2 ||
      goods[0]!.Quantity !== i ||
      goods[1]!.Quantity !== i + 0.5 ||
      (sale.Warehouse as { Code: string }).Code !== (i % 2 === 0 ? '01' : '02')
    )
      wrong++
  })
  t.equal(wrong, 0, 'every document has its own goods and warehouse')
})

t.test('more concurrent expanded reads than the pool has connections all complete', async (t) => {
  // Each holds its stream's connection and needs another for expansions: without a limit, a pool of
  // eight would deadlock with eight of them waiting for a second connection.
  const reads = Array.from({ length: 24 }, () =>
    service.values('Document_GoodsSale?$select=Number&$expand=Goods($select=LineNumber),Warehouse($select=Code)'),
  )
  const timeout = new Promise<never>((_, reject) =>
    setTimeout(() => reject(new Error('expanded reads did not complete: deadlock?')), 30_000).unref(),
  )
  const results = await Promise.race([Promise.all(reads), timeout])
  t.ok(
    results.every((rows) => rows.length === 1201),
    'every read got every document',
  )
})
