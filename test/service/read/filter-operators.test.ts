// Every $filter operator against real rows with known answers: the rows that must come back and, by
// asserting the whole set, the rows that must not. Comparison, logical, arithmetic and `in` operators;
// null; GUID, date-time and enumeration values; paths through references; lambdas and collection counts.
import t from 'tap'
import { P, R, RECEIPT_TYPE, S, SALE_TYPE, W } from './support/read-fixture.js'
import { startTestService } from '../../support/test-service.js'

const service = await startTestService('read_filter_operators', { data: 'reads' })
t.teardown(() => service.close())

/** Product codes matching a filter, sorted. */
const codes = async (filter: string) =>
  (await service.values(`Catalog_Products?$filter=${filter}&$select=Code`)).map((p) => p.Code as string).sort()
/** Stock movements as recorder-number:line, sorted. */
const movements = async (filter: string) =>
  (await service.values(`AccumulationRegister_Stock_RecordType?$filter=${filter}&$select=Recorder,LineNumber`))
    .map((m) => `${label(m.Recorder as string)}:${m.LineNumber}`)
    .sort()
const label = (recorder: string) => (recorder === R.first ? 'R1' : recorder === R.second ? 'R2' : recorder === S.first ? 'S1' : recorder)
const ALL_CODES = ['001', '002', '003', '004', '005', '006', '007']

t.test('comparison operators', async (t) => {
  t.same(await codes("Code eq '003'"), ['003'])
  t.same(
    await codes("Code ne '003'"),
    ALL_CODES.filter((c) => c !== '003'),
  )
  t.same(await codes("Code gt '005'"), ['006', '007'])
  t.same(await codes("Code ge '005'"), ['005', '006', '007'])
  t.same(await codes("Code lt '002'"), ['001'])
  t.same(await codes("Code le '002'"), ['001', '002'])
  t.same(await movements('Quantity gt 5'), ['R1:1', 'R2:1'])
  t.same(await movements('Quantity ge 5'), ['R1:1', 'R1:2', 'R2:1'])
  t.same(await movements('Quantity lt 1'), ['S1:2'])
  t.same(await movements('Quantity le 1.5'), ['R1:3', 'S1:2'])
  t.same(await movements('Amount eq 15'), ['R1:2', 'R1:3'], 'decimals compare exactly with integer literals')
  t.same(await movements('Amount eq 15.00'), ['R1:2', 'R1:3'])
  t.same(await movements('Quantity eq 0.5'), ['S1:2'])
  t.same(await movements('Quantity ne 0.5 and Quantity ne 100'), ['R1:1', 'R1:2', 'R1:3', 'S1:1'])
  t.same(await movements('LineNumber eq 2'), ['R1:2', 'S1:2'])
})

t.test('logical operators, not, parentheses and precedence', async (t) => {
  t.same(await codes("Code eq '001' or Code eq '002'"), ['001', '002'])
  t.same(await codes("Unit eq 'pcs' and Code gt '001'"), ['002', '005'])
  t.same(await codes("not (Unit eq 'pcs')"), ['003', '004', '006', '007'])
  t.same(await codes("Code eq '001' or Code eq '002' and Unit eq 'kg'"), ['001'], 'and binds tighter than or')
  t.same(await codes("(Code eq '001' or Code eq '002') and Unit eq 'pcs'"), ['001', '002'])
  t.same(await codes('DeletionMark'), ['004'], 'a boolean property alone')
  t.same(
    await codes('not DeletionMark'),
    ALL_CODES.filter((c) => c !== '004'),
  )
  t.same(await codes('DeletionMark eq true'), ['004'])
  t.same(
    await codes('DeletionMark eq false and DeletionMark ne true'),
    ALL_CODES.filter((c) => c !== '004'),
  )
  t.same(await codes('true'), ALL_CODES)
  t.same(await codes('false'), [])
})

t.test('in', async (t) => {
  t.same(await codes("Code in ('001','003','999')"), ['001', '003'])
  t.same(await codes('Code in ("002")'.replace(/"/g, "'")), ['002'])
  t.same(await codes('Code in ["005","006"]'), ['005', '006'], 'the JSON array form')
  t.same(await movements(`Product_Key in (${P.nut}, guid'${P.boltM8}')`), ['R1:2', 'R1:3', 'S1:2'], 'bare and prefixed GUIDs')
  t.same(await movements('LineNumber in (3)'), ['R1:3'])
  t.same(await codes("not (Code in ('001','002','003'))"), ['004', '005', '006', '007'])
})

t.test('arithmetic', async (t) => {
  t.same(await movements('Quantity add 1 eq 6'), ['R1:2'])
  t.same(await movements('Quantity sub 1 eq 0.5'), ['R1:3'])
  t.same(await movements('Quantity mul 2 eq 200'), ['R2:1'])
  t.same(await movements('Amount div Quantity eq 2.5'), ['R1:1'], 'decimal division')
  t.same(await movements('Amount divby 4 eq 5'), ['S1:1'])
  t.same(await movements('LineNumber div 2 eq 1'), ['R1:2', 'R1:3', 'S1:2'], 'integer division of integers')
  t.same(await movements('LineNumber mod 2 eq 0'), ['R1:2', 'S1:2'])
  t.same(await movements('-Quantity lt -50'), ['R2:1'])
  t.same(await movements('Quantity add LineNumber mul 10 gt 30'), ['R1:3', 'R2:1'], 'mul before add')
  t.same(await movements('(Quantity add LineNumber) mul 10 gt 30'), ['R1:1', 'R1:2', 'R1:3', 'R2:1', 'S1:1'])
  const byZero = await service.get('AccumulationRegister_Stock_RecordType?$filter=Amount div 0 eq 1')
  t.equal(byZero.status, 400, 'division by zero is an error, not an empty set')
  t.equal(byZero.json().error.code, 'DivisionByZero')
  for (const overflow of ['LineNumber mul 2147483647 mul 2147483647 mul 2147483647 gt 0', 'Quantity mul 1e308 mul 1e308 gt 0']) {
    const response = await service.get(`AccumulationRegister_Stock_RecordType?$filter=${overflow}`)
    t.equal(response.status, 400, `${overflow}: the client's error, not the service's`)
    t.equal(response.json().error.code, 'ValueOutOfRange')
  }
})

t.test('null', async (t) => {
  t.same(await codes('Description eq null'), [])
  t.same(await codes('Description ne null'), ALL_CODES)
  const receipts = await service.values('Document_GoodsReceipt?$filter=Warehouse/Description eq null&$select=Number')
  t.same(
    receipts.map((r) => r.Number),
    ['0003'],
    'an empty reference leads to null properties',
  )
  const withWarehouse = await service.values('Document_GoodsReceipt?$filter=Warehouse/Description ne null&$select=Number&$orderby=Number')
  t.same(
    withWarehouse.map((r) => r.Number),
    ['0001', '0002'],
  )
})

t.test('GUIDs, date-times and enumeration-stored strings', async (t) => {
  t.same(await movements(`Recorder eq ${R.second}`), ['R2:1'])
  t.same(await movements(`Recorder eq guid'${R.second.toUpperCase()}'`), ['R2:1'], 'upper-case GUIDs')
  t.same(await movements(`Recorder eq '${R.second}'`), ['R2:1'], 'a GUID in a string, as the reference system sends it')
  t.equal((await service.get("AccumulationRegister_Stock_RecordType?$filter=Recorder eq 'not-a-guid'")).status, 400)
  t.same(await movements('Period eq 2024-02-20T23:30:00Z'), ['R2:1'])
  t.same(await movements("Period eq datetime'2024-02-20T23:30:00'"), ['R2:1'], 'the reference form, no offset = UTC')
  t.same(await movements('Period eq 2024-02-21T02:30:00+03:00'), ['R2:1'], 'an offset is converted to UTC')
  t.same(await movements('Period gt 2024-02-20T23:29:59.5Z'), ['R2:1'], 'fractions of a second count')
  t.same(await movements('Period ge 2024-02-20T23:30:00.5Z'), [])
  t.same(await movements('Period lt 2024-02-01'), ['R1:1', 'R1:2', 'R1:3'], 'a date is its midnight')
  t.same(await movements(`RecordType eq 'Expense'`), ['S1:1', 'S1:2'])
  t.same(await movements(`RecordType eq StandardODATA.RecordType'Expense'`), ['S1:1', 'S1:2'], 'an enumeration literal names the member')
  // ENUM('Receipt','Expense') sorts Receipt first by index; as strings 'Expense' < 'Receipt'.
  t.same(await movements(`RecordType lt 'F'`), ['S1:1', 'S1:2'], 'enumeration-stored values compare as strings')
  t.same(await movements(`Recorder_Type eq '${SALE_TYPE}'`), ['S1:1', 'S1:2'])
  t.same(await movements(`Recorder_Type ne '${SALE_TYPE}' and Recorder_Type eq '${RECEIPT_TYPE}'`), ['R1:1', 'R1:2', 'R1:3', 'R2:1'])
  const has = await service.get(`AccumulationRegister_Stock_RecordType?$filter=RecordType has StandardODATA.RecordType'Expense'`)
  t.equal(has.status, 400)
  t.equal(has.json().error.code, 'InvalidFilter')
})

t.test('paths through references', async (t) => {
  t.same(await movements("Product/Description eq 'Nut 100%25'"), ['R1:3', 'S1:2'])
  t.same(await movements("Product/Code eq '001' and Warehouse/Description eq 'Main'"), ['R1:1', 'S1:1'])
  t.same(await movements("Product/Unit eq 'pcs' and Product/Code ne '001'"), ['R1:2'], 'one join serves several properties')
  const goods = await service.values("Document_GoodsReceipt_Goods?$filter=Product/Description eq 'bolt m8'&$select=Ref_Key,LineNumber")
  t.same(goods, [{ Ref_Key: R.first, LineNumber: 2 }])
  t.same(await movements(`Warehouse_Key eq ${W.remote}`), ['R2:1'])
})

t.test('lambdas over table parts and record sets, and collection counts', async (t) => {
  const receipts = async (filter: string) =>
    (await service.values(`Document_GoodsReceipt?$filter=${filter}&$select=Number`)).map((d) => d.Number).sort()
  t.same(await receipts('Goods/any(g: g/Quantity gt 50)'), ['0002'])
  t.same(await receipts('Goods/any(g: g/Quantity gt 1)'), ['0001', '0002'])
  t.same(await receipts('Goods/all(g: g/Quantity gt 1)'), ['0001', '0002', '0003'], 'all() holds for an empty collection')
  t.same(await receipts('Goods/all(g: g/Quantity ge 5)'), ['0002', '0003'])
  t.same(await receipts('Goods/any()'), ['0001', '0002'])
  t.same(await receipts('not Goods/any()'), ['0003'])
  t.same(await receipts("Goods/any(g: g/Product/Description eq 'bolt m8')"), ['0001'], 'a path through a reference inside the lambda')
  t.same(await receipts("Goods/any(g: g/Quantity gt 50 and $it/Comment eq '')"), ['0002'], '$it inside a lambda')
  t.same(await receipts('Goods/any(g: g/Product_Key eq Warehouse_Key)'), [], 'an unqualified name inside a lambda is the outer entity')
  t.same(await receipts('Goods/any(g: g/Quantity gt 1 and Goods/any(h: h/Quantity lt g/Quantity))'), ['0001'], 'nested lambdas')
  t.same(await receipts('Goods/$count eq 3'), ['0001'])
  t.same(await receipts('Goods/$count eq 0'), ['0003'])
  t.same(await receipts('Goods/$count($filter=Quantity gt 2) ge 2'), ['0001'])
  const recordSets = await service.values("AccumulationRegister_Stock?$filter=RecordSet/any(m: m/RecordType eq 'Expense')")
  t.same(
    recordSets.map(({ RecordSet: _movements, ...key }) => key),
    [{ Recorder: S.first, Recorder_Type: SALE_TYPE }],
  )
  t.equal((recordSets[0]!.RecordSet as unknown[]).length, 2, 'the record set carries its movements')
  const accounts = await service.values('ChartOfAccounts_Main?$filter=ExtDimensionTypes/$count eq 2&$select=Code')
  t.same(accounts, [{ Code: '41' }])
})

t.test('cast, isof and parameter aliases', async (t) => {
  t.same(await movements('cast(Quantity, Edm.Int32) eq 2'), ['R1:3'], 'a decimal cast to an integer rounds half away from zero')
  t.same(await movements("cast(LineNumber, Edm.String) eq '3'"), ['R1:3'])
  t.same(await codes("isof(Code, Edm.String) and Code eq '001'"), ['001'])
  t.same(await codes('isof(Code, Edm.Int32)'), [])
  t.same(await codes('isof(StandardODATA.Catalog_Products) and DeletionMark'), ['004'])
  t.same(await codes("Code eq @c&@c='006'"), ['006'])
  t.same(await movements('Quantity gt @q and LineNumber eq @l&@q=4&@l=1'), ['R1:1', 'R2:1'])
  const missing = await service.get('Catalog_Products?$filter=Code eq @nothing')
  t.equal(missing.status, 400)
})
