// $select, $orderby, $top, $skip, $count (and /$count), $format and $search on every kind of readable
// set; SurrogateKey refused where service.md §2.2 says; unknown names and over-limit expressions
// refused with 400, the option as target, and the position or the actual figure.
import t, { type Test } from 'tap'
import { ERROR_CODES } from '../../../src/errors.js'
import { P, R, RECEIPT_TYPE, S, SALE_TYPE } from './support/read-fixture.js'
import { startTestService } from '../../support/test-service.js'

const service = await startTestService('read_query_options', { data: 'reads' })
t.teardown(() => service.close())

async function refused(t: Test, path: string, code: string, target: string, message?: RegExp) {
  const response = await service.get(path)
  t.equal(response.status, ERROR_CODES[code as keyof typeof ERROR_CODES].status, `${path}: status`)
  const error = response.json().error
  t.equal(error.code, code, `${path}: code`)
  t.equal(error.target, target, `${path}: target`)
  if (message) t.match(error.message, message, `${path}: ${error.message}`)
}

t.test('every readable kind of set answers a collection read', async (t) => {
  const counts: Record<string, number> = {
    Catalog_Products: 7,
    Catalog_Warehouses: 2,
    Catalog_Организации: 1,
    Document_GoodsReceipt: 3,
    Document_GoodsReceipt_Goods: 4,
    Document_GoodsSale_Goods: 2,
    AccumulationRegister_Stock: 3,
    AccumulationRegister_Stock_RecordType: 6,
    AccumulationRegister_Sales_RecordType: 2,
    InformationRegister_Prices: 3,
    InformationRegister_КурсыВалют: 1,
    InformationRegister_Settings: 1,
    InformationRegister_Barcodes: 1,
    ChartOfAccounts_Main: 3,
    ChartOfAccounts_Main_ExtDimensionTypes: 4,
    AccountingRegister_Main_RecordType: 0,
  }
  for (const [set, count] of Object.entries(counts)) {
    const response = await service.get(`${set}?$count=true`)
    t.equal(response.status, 200, set)
    const body = response.json()
    t.equal(body.value.length, count, `${set}: rows`)
    t.equal(body['@odata.count'], count, `${set}: @odata.count`)
    t.equal(body['@odata.context'], `http://127.0.0.1:${service.port}/odata/standard.odata/v4/$metadata#${set}`)
    const counted = await service.get(`${set}/$count`)
    t.equal(counted.status, 200)
    t.match(counted.headers['content-type'], /^text\/plain/)
    t.equal(counted.text, String(count), `${set}/$count`)
  }
  const recordSets = await service.values('AccumulationRegister_Stock')
  t.same(
    recordSets.map((set) => (set.RecordSet as unknown[]).length),
    [3, 1, 2],
    'each record set carries its movements, a property of the owner',
  )
  t.same(
    recordSets.map(({ RecordSet: _movements, ...key }) => key),
    [
      { Recorder: R.first, Recorder_Type: RECEIPT_TYPE },
      { Recorder: R.second, Recorder_Type: RECEIPT_TYPE },
      { Recorder: S.first, Recorder_Type: SALE_TYPE },
    ],
    'one record set per recorder, in key order',
  )
})

t.test('$select', async (t) => {
  const products = await service.values("Catalog_Products?$select=Description,Code&$filter=Code eq '001'")
  t.same(products, [{ Code: '001', Description: 'Bolt M6' }], 'the model order, whatever the order written')
  const star = await service.values("Catalog_Products?$select=*&$filter=Code eq '001'")
  t.same(Object.keys(star[0]!), ['Ref_Key', 'DataVersion', 'DeletionMark', 'Code', 'Description', 'Article', 'Unit'])
  const response = await service.get('Catalog_Products?$select=Code,Description')
  t.match(response.json()['@odata.context'], /#Catalog_Products\(Code,Description\)$/)
  const navigation = await service.get("Document_GoodsReceipt?$select=Number,Warehouse&$filter=Number eq '0001'")
  t.same(navigation.json().value, [{ Number: '0001' }], 'a navigation in $select adds no value')
  const settings = await service.values('InformationRegister_Settings?$select=SurrogateKey,Value')
  t.same(settings, [{ SurrogateKey: 0, Value: 'on' }], 'SurrogateKey may be selected')
  await refused(t, 'Catalog_Products?$select=Code,Colour', 'InvalidSelect', '$select', /Colour.*position 5/)
  await refused(t, 'Catalog_Products?$select=Code/x', 'InvalidSelect', '$select')
  await refused(t, 'Catalog_Products?$select=code', 'InvalidSelect', '$select', /"code"/)
})

t.test('$orderby', async (t) => {
  const codes = async (query: string) => (await service.values(`Catalog_Products?${query}&$select=Code`)).map((p) => p.Code)
  t.same(await codes('$orderby=Code desc'), ['007', '006', '005', '004', '003', '002', '001'])
  t.same(
    await codes('$orderby=Unit,Code desc'),
    ['007', '004', '003', '005', '002', '001', '006'],
    'several items; byte order (шт after pcs)',
  )
  t.same(await codes('$orderby=length(Description) desc,Code'), ['005', '004', '007', '003', '001', '002', '006'])
  t.same(await codes('$orderby=DeletionMark desc,Code'), ['004', '001', '002', '003', '005', '006', '007'])
  t.same(
    await codes('$orderby=0,Code desc'),
    ['007', '006', '005', '004', '003', '002', '001'],
    'a constant orders nothing (and is no column position)',
  )
  const movements = async (query: string) =>
    (await service.values(`AccumulationRegister_Stock_RecordType?${query}&$select=Recorder,LineNumber`)).map(
      (m) => `${m.Recorder === R.first ? 'R1' : m.Recorder === R.second ? 'R2' : 'S1'}:${m.LineNumber}`,
    )
  t.same(await movements('$orderby=Period desc'), ['R2:1', 'S1:1', 'S1:2', 'R1:1', 'R1:2', 'R1:3'], 'ties broken by the key')
  t.same(
    await movements('$orderby=Product/Description,Quantity desc'),
    ['R2:1', 'R1:1', 'S1:1', 'R1:3', 'S1:2', 'R1:2'],
    'by a path through a reference',
  )
  t.same(
    await movements('$orderby=RecordType,LineNumber desc'),
    ['S1:2', 'S1:1', 'R1:3', 'R1:2', 'R1:1', 'R2:1'],
    'enumeration-stored values sort as strings (Expense before Receipt)',
  )
  const prices = await service.values('InformationRegister_Prices?$orderby=Price desc&$select=Price')
  t.same(
    prices.map((p) => p.Price),
    [3.5, 3, 2],
  )
  await refused(t, 'InformationRegister_Settings?$orderby=SurrogateKey', 'SurrogateKeyNotFilterable', '$orderby')
  await refused(t, 'Catalog_Products?$orderby=Nope', 'InvalidOrderBy', '$orderby', /Nope.*position 0/)
  await refused(t, 'Catalog_Products?$orderby=Code,Product/Code', 'InvalidOrderBy', '$orderby', /position 5/)
})

t.test('$top, $skip and $count', async (t) => {
  const codes = async (query: string) => (await service.values(`Catalog_Products?${query}&$select=Code`)).map((p) => p.Code)
  t.same(await codes('$orderby=Code&$top=2'), ['001', '002'])
  t.same(await codes('$orderby=Code&$skip=5'), ['006', '007'])
  t.same(await codes('$orderby=Code&$skip=2&$top=2'), ['003', '004'])
  t.same(await codes('$top=0'), [])
  t.same(await codes('$orderby=Code&$skip=100'), [])
  const counted = (await service.get("Catalog_Products?$filter=Unit eq 'pcs'&$top=1&$count=true")).json()
  t.equal(counted['@odata.count'], 3, '@odata.count ignores $top')
  t.equal(counted.value.length, 1)
  t.equal((await service.get("Catalog_Products/$count?$filter=Unit eq 'kg'")).text, '2')
  t.equal((await service.get('AccumulationRegister_Stock_RecordType/$count?$apply=groupby((Product_Key))')).text, '3', '/$count of groups')
  await refused(t, 'Catalog_Products?$top=-1', 'InvalidQueryOption', '$top')
  await refused(t, 'Catalog_Products?$skip=x', 'InvalidQueryOption', '$skip')
  await refused(t, 'Catalog_Products?$count=yes', 'InvalidQueryOption', '$count')
  await refused(t, 'Catalog_Products/$count?$top=1', 'InvalidQueryOption', '$top')
})

t.test('$format, $search and options that do not apply', async (t) => {
  const json = await service.get("Catalog_Products?$format=json&$filter=Code eq '001'&$select=Code")
  t.equal(json.status, 200)
  t.match(json.headers['content-type'], /^application\/json;odata\.metadata=minimal/)
  const none = await service.get("Catalog_Products?$format=application/json;odata.metadata=none&$filter=Code eq '001'&$select=Code")
  t.same(none.json(), { value: [{ Code: '001' }] }, 'metadata=none: no context')
  const ieee = await service.get(
    'AccumulationRegister_Stock_RecordType?$format=application/json;IEEE754Compatible=true&$filter=LineNumber eq 3&$select=Quantity',
  )
  t.same(ieee.json().value, [{ Quantity: '1.500' }], 'IEEE754Compatible: decimals as strings')
  await refused(t, 'Catalog_Products?$format=xml', 'NotAcceptable', '$format')
  await refused(t, 'Catalog_Products?$search=bolt', 'SearchNotSupported', '$search')
  await refused(t, `Catalog_Products(${P.boltM6})?$filter=Code eq '1'`, 'InvalidQueryOption', '$filter')
  await refused(t, 'Catalog_Products?$compute=Code as C', 'InvalidQueryOption', '$compute')
})

t.test('SurrogateKey takes no part in $filter, $orderby or $apply', async (t) => {
  await refused(t, 'InformationRegister_Settings?$filter=SurrogateKey eq 0', 'SurrogateKeyNotFilterable', '$filter')
  await refused(
    t,
    "InformationRegister_Settings?$filter=Value eq 'on' and SurrogateKey gt 0",
    'SurrogateKeyNotFilterable',
    '$filter',
    /position 18/,
  )
  await refused(t, 'InformationRegister_Settings?$apply=groupby((SurrogateKey))', 'SurrogateKeyNotFilterable', '$apply')
  await refused(t, 'InformationRegister_Settings?$apply=aggregate(SurrogateKey with max as M)', 'SurrogateKeyNotFilterable', '$apply')
  t.same(await service.values("InformationRegister_Settings?$filter=Value eq 'on'"), [{ SurrogateKey: 0, Value: 'on' }])
})

t.test('unknown names and type errors: 400 with the option and the position', async (t) => {
  await refused(t, "Catalog_Products?$filter=Colour eq 'red'", 'InvalidFilter', '$filter', /"Colour".*position 0/)
  await refused(t, "Catalog_Products?$filter=Code eq '1' and colour eq 'red'", 'InvalidFilter', '$filter', /position 16/)
  await refused(
    t,
    "AccumulationRegister_Stock_RecordType?$filter=Product/Colour eq 'red'",
    'InvalidFilter',
    '$filter',
    /Catalog_Products has no property "Colour".*position 8/,
  )
  await refused(t, 'AccumulationRegister_Stock_RecordType?$filter=Product eq null', 'InvalidFilter', '$filter', /navigation property/)
  await refused(t, 'Document_GoodsReceipt?$filter=Goods/Quantity gt 1', 'InvalidFilter', '$filter', /any/)
  await refused(t, 'Catalog_Products?$filter=Code eq 1', 'InvalidFilter', '$filter', /cannot compare Edm.String with Edm.Int32/)
  await refused(t, 'Catalog_Products?$filter=Code', 'InvalidFilter', '$filter', /true or false/)
  await refused(t, "Catalog_Products?$filter=Code eq 'x' and 1", 'InvalidFilter', '$filter')
  await refused(t, "Catalog_Products?$filter=Code eq 'x' or", 'InvalidFilter', '$filter', /position/)
  await refused(t, 'Catalog_Products?$filter=Code eq INF', 'InvalidLiteral', '$filter')
  await refused(t, 'Catalog_Products?$filter=Code in Article', 'InvalidFilter', '$filter', /list/)
  await refused(t, "Catalog_Products?$filter=Code eq 'x'&$orderby=Colour", 'InvalidOrderBy', '$orderby')
  await refused(t, 'Catalog_Products?$expand=Colour', 'InvalidExpand', '$expand', /"Colour"/)
  await refused(t, 'Catalog_Products?$apply=groupby((Colour))', 'InvalidApply', '$apply', /"Colour"/)
})

t.test('expression limits: 400 before anything runs, with the actual figure', async (t) => {
  const many = Array.from({ length: 501 }, (_, i) => `'${i}'`).join(',')
  await refused(t, `Catalog_Products?$filter=Code in (${many})`, 'ExpressionTooComplex', '$filter', /501/)
  await refused(t, `Catalog_Products?$filter=${'('.repeat(40)}true${')'.repeat(40)}`, 'ExpressionTooComplex', '$filter', /33|depth|deep/)
  const list = (n: number) => `length(Code) in (${Array.from({ length: n }, () => '1').join(',')})`
  await refused(t, `Catalog_Products?$filter=${list(499)} or ${list(499)} or ${list(100)}`, 'ExpressionTooComplex', '$filter', /1000|nodes/)
  await refused(
    t,
    `Catalog_Products?$orderby=${Array.from({ length: 33 }, () => 'Code').join(',')}`,
    'ExpressionTooComplex',
    '$orderby',
    /33/,
  )
  // The 8,000-character limit is the parser's (test/odata/expression/limits.test.ts): the HTTP layer
  // refuses a request line that long before the service sees it.
  await refused(
    t,
    'Document_GoodsReceipt?$expand=Goods($expand=Product($expand=Nothing($expand=More)))',
    'ExpressionTooComplex',
    '$expand',
    /4/,
  )
})
