// Table parts and record sets are properties of their owner (decisions.md §2: "the array property
// `<TablePart>` of the owner"; service.md §2.1: "the collection property is `RecordSet`"): a plain GET of
// a document, by key and in a collection, carries `Goods`, a record set its `RecordSet`, without
// `$expand`, as the reference system's reads do and as `$metadata` declares them. `$select` may leave them
// out, and then no table-part row is read (shown with the table-part table locked by another session);
// `$expand=Goods` keeps working; the `Document_X_Goods` sets stay readable.
import { setTimeout as sleep } from 'node:timers/promises'
import t from 'tap'
import { DEMO_BASIC, REFERENCE_ROOT, startTestService } from '../../support/test-service.js'
import { P, R, RECEIPTS, RECEIPT_TYPE, S, SALE_TYPE, STOCK, W } from './support/read-fixture.js'

const service = await startTestService('read_table_part_properties', { data: 'reads' })
t.teardown(() => service.close())

type Row = Record<string, unknown>
const goodsOf = (key: string) =>
  RECEIPTS.find((r) => r.key === key)!.goods.map(([product, quantity, price, amount], i) => ({
    Ref_Key: key,
    LineNumber: i + 1,
    Product_Key: product,
    Quantity: Number(quantity),
    Price: Number(price),
    Amount: Number(amount),
  }))

t.test('a plain GET of a document carries its table part, by key and in a collection', async (t) => {
  const response = await service.get(`Document_GoodsReceipt(${R.first})`)
  t.equal(response.status, 200)
  const document = response.json()
  t.same(document.Goods, goodsOf(R.first), 'every row, in line order, with every property')
  t.equal(document.Number, '0001')
  t.equal(
    document['@odata.context'],
    `http://127.0.0.1:${service.port}${REFERENCE_ROOT}$metadata#Document_GoodsReceipt/$entity`,
    'a property: the context names no expansion',
  )
  t.equal(response.headers.etag, 'W/"1"')
  t.same(Object.keys(document).slice(-1), ['Goods'], 'after the other properties')

  const documents = await service.values('Document_GoodsReceipt')
  t.same(
    documents.map((d) => d.Number),
    ['0001', '0002', '0003'],
  )
  for (const receipt of RECEIPTS)
    t.same(documents.find((d) => d.Ref_Key === receipt.key)!.Goods, goodsOf(receipt.key), `${receipt.number}: its rows`)
  t.same(documents.find((d) => d.Ref_Key === R.empty)!.Goods, [], 'a document without rows has an empty array')
  const sales = await service.values('Document_GoodsSale')
  t.equal((sales[0]!.Goods as Row[]).length, 2)
  const paged = await service.get('Document_GoodsReceipt', { Prefer: 'odata.maxpagesize=2' })
  t.same(
    paged.json().value.map((d: Row) => (d.Goods as Row[]).length),
    [3, 1],
    'a page carries its rows',
  )
  const accounts = await service.values("ChartOfAccounts_Main?$filter=Code eq '41'")
  t.same(
    (accounts[0]!.ExtDimensionTypes as Row[]).map((line) => line.ExtDimensionType),
    ['Products', 'Warehouses'],
    'a chart of accounts carries its extra-dimension lines',
  )
})

t.test('a plain GET of a record set carries its RecordSet', async (t) => {
  const byKey = (await service.get(`AccumulationRegister_Stock(Recorder=${S.first},Recorder_Type='${SALE_TYPE}')`)).json()
  t.equal(byKey.Recorder, S.first)
  const movements = STOCK.filter(([recorder]) => recorder === S.first)
  t.same(
    (byKey.RecordSet as Row[]).map((m) => [m.LineNumber, m.RecordType, m.Warehouse_Key, m.Product_Key, m.Quantity]),
    movements.map(([, , line, , kind, warehouse, product, quantity]) => [line, kind, warehouse, product, Number(quantity)]),
  )
  const empty = (await service.get(`AccumulationRegister_Stock(Recorder=${R.empty},Recorder_Type='${RECEIPT_TYPE}')`)).json()
  t.same(empty.RecordSet, [], 'the record set of a recorder without movements is empty')
  const sets = await service.values('AccumulationRegister_Stock')
  t.same(
    sets.map((set) => (set.RecordSet as Row[]).length),
    [3, 1, 2],
    'in a collection, every record set with its movements',
  )
})

t.test('$select may leave them out; $expand=Goods keeps working', async (t) => {
  const selected = (await service.get(`Document_GoodsReceipt(${R.first})?$select=Number,Date`)).json()
  t.same(
    Object.keys(selected).filter((k) => !k.startsWith('@')),
    ['Number', 'Date'],
    'no Goods when $select leaves it out',
  )
  const named = (await service.get(`Document_GoodsReceipt(${R.first})?$select=Number,Goods`)).json()
  t.same(named.Goods, goodsOf(R.first), '$select=Goods includes it')
  t.match(named['@odata.context'], /#Document_GoodsReceipt\(Number,Goods\)\/\$entity$/)
  const star = (await service.get(`Document_GoodsReceipt(${R.first})?$select=*`)).json()
  t.same(star.Goods, goodsOf(R.first), '$select=* includes it')

  const expanded = (await service.get(`Document_GoodsReceipt(${R.first})?$expand=Goods`)).json()
  t.same(expanded.Goods, goodsOf(R.first), '$expand=Goods gives the same rows')
  const shaped = (
    await service.get(
      `Document_GoodsReceipt(${R.first})?$expand=Goods($select=LineNumber,Quantity;$orderby=LineNumber desc;$top=2;$count=true)`,
    )
  ).json()
  t.same(
    shaped.Goods,
    [
      { LineNumber: 3, Quantity: 1.5 },
      { LineNumber: 2, Quantity: 5 },
    ],
    'the expansion keeps its own options',
  )
  t.equal(shaped['Goods@odata.count'], 3)
  const nested = (await service.get(`Document_GoodsReceipt(${R.first})?$expand=Goods($expand=Product($select=Code))&$select=Number`)).json()
  t.same(
    (nested.Goods as Row[]).map((row) => (row.Product as Row).Code),
    ['001', '002', '003'],
    'references inside the rows expand',
  )
  const counted = (await service.get(`Document_GoodsReceipt(${R.first})?$expand=Goods/$count`)).json()
  t.equal(counted['Goods@odata.count'], 3)
  t.notOk('Goods' in counted, 'Goods/$count instead of the rows')
  const references = (await service.values("Document_GoodsReceipt?$expand=Warehouse($select=Code)&$filter=Number eq '0001'"))[0]!
  t.same(
    [(references.Warehouse as Row).Code, (references.Goods as Row[]).length],
    ['01', 3],
    'another expansion leaves the table part in place',
  )

  const grouped = await service.values('Document_GoodsReceipt?$apply=groupby((Warehouse_Key))')
  t.ok(
    grouped.every((row) => !('Goods' in row)),
    'rows $apply made have no table part',
  )
  t.equal((await service.values('Document_GoodsReceipt_Goods')).length, 4, 'the table-part set stays readable')
  t.equal((await service.values(`Document_GoodsReceipt(${R.first})/Goods`)).length, 3, 'so does the path to the property')
})

t.test('a $select without the table part reads no table-part row', async (t) => {
  // Another session holds the table-part table locked for writing: any statement that reads it waits.
  const connection = await service.database.pool.getConnection()
  await connection.query('LOCK TABLES d_GoodsReceipt__Goods WRITE')
  let unlocked = false
  const unlock = async () => {
    if (unlocked) return
    unlocked = true
    await connection.query('UNLOCK TABLES')
    connection.release()
  }
  t.teardown(unlock)
  const started = Date.now()
  const collection = await service.get('Document_GoodsReceipt?$select=Number,Date,Warehouse_Key')
  const entity = await service.get(`Document_GoodsReceipt(${R.first})?$select=Number`)
  t.equal(collection.status, 200)
  t.equal(collection.json().value.length, 3)
  t.equal(entity.status, 200)
  t.ok(Date.now() - started < 5000, 'answered while the table-part table is locked')

  // Control: a plain GET reads the table part, so it waits for the lock.
  let answered = false
  const plain = service.get('Document_GoodsReceipt').then((response) => {
    answered = true
    return response
  })
  await sleep(700)
  t.equal(answered, false, 'a read that includes the table part waits for the lock')
  await unlock()
  const response = await plain
  t.equal(response.status, 200)
  t.equal(response.json().value[0].Goods.length, 3, 'and answers once the lock is gone')
})

t.test('$metadata declares them as properties, in XML and JSON', async (t) => {
  const xml = (await service.request('GET', `${REFERENCE_ROOT}$metadata`, { headers: { Authorization: DEMO_BASIC } })).text
  t.match(xml, /<Property Name="Goods" Type="Collection\(StandardODATA\.Document_GoodsReceipt_Goods_RowType\)" Nullable="false"\/>/)
  t.match(xml, /<Property Name="RecordSet" Type="Collection\(StandardODATA\.AccumulationRegister_Stock_RowType\)" Nullable="false"\/>/)
  t.notMatch(xml, /<NavigationProperty Name="(Goods|RecordSet)"/)
  t.match(xml, /<ComplexType Name="Document_GoodsReceipt_Goods_RowType">/)
  t.match(xml, /<EntitySet Name="Document_GoodsReceipt_Goods" EntityType="StandardODATA\.Document_GoodsReceipt_Goods"/)
  const json = (await service.request('GET', `${REFERENCE_ROOT}$metadata?$format=json`, { headers: { Authorization: DEMO_BASIC } })).json()
  t.same(json.StandardODATA.Document_GoodsReceipt.Goods, { $Collection: true, $Type: 'StandardODATA.Document_GoodsReceipt_Goods_RowType' })
  t.same(json.StandardODATA.EnterpriseV8.Document_GoodsReceipt.$NavigationPropertyBinding['Goods/Product'], 'Catalog_Products')
})

t.test('a create answers the table part as a later GET reads it', async (t) => {
  const body = {
    Number: 'TP-1',
    Date: '2024-05-01T00:00:00Z',
    Warehouse_Key: W.main,
    Goods: [{ Product_Key: P.nut, Quantity: 2, Price: 3, Amount: 6 }],
  }
  const created = await service.request('POST', `${REFERENCE_ROOT}Document_GoodsReceipt`, {
    headers: { Authorization: DEMO_BASIC, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
  t.equal(created.status, 201)
  const read = await service.get(`Document_GoodsReceipt(${created.json().Ref_Key})`)
  t.same(read.json(), created.json(), 'the same entity, Goods included')
})
