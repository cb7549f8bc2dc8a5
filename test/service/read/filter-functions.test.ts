// Every canonical function the service evaluates, against real rows with known answers. Strings compare
// byte-wise (utf8mb4_bin): case matters, and `%`, `_` and `'` in a value match only themselves.
import t from 'tap'
import { R, S } from './support/read-fixture.js'
import { startTestService } from '../../support/test-service.js'

const service = await startTestService('read_filter_functions', { data: 'reads' })
t.teardown(() => service.close())

const codes = async (filter: string) =>
  (await service.values(`Catalog_Products?$filter=${filter}&$select=Code`)).map((p) => p.Code as string).sort()
const numbers = async (set: string, filter: string) =>
  (await service.values(`${set}?$filter=${filter}&$select=Number`)).map((d) => d.Number as string).sort()
const ALL_CODES = ['001', '002', '003', '004', '005', '006', '007']

t.test('contains, startswith, endswith: exact, case-sensitive, wildcards escaped', async (t) => {
  t.same(await codes("contains(Description,'olt')"), ['001', '002'])
  t.same(await codes("contains(Description,'Bolt')"), ['001'], 'case-sensitive')
  t.same(await codes("contains(tolower(Description),'bolt')"), ['001', '002'])
  t.same(await codes("contains(Description,'%25')"), ['003'], "'%' matches only itself")
  t.same(await codes("contains(Description,'_')"), ['004'], "'_' matches only itself")
  t.same(await codes("contains(Article,'B%252')"), ['004'])
  t.same(await codes("contains(Article,'B_')"), ['003'], "B_ is not 'B and any character'")
  t.same(await codes("contains(Description,'O''Brien')"), ['005'], 'a doubled quote is a quote')
  t.same(await codes("contains(Description,'!')"), [], 'the escape character itself is escaped')
  t.same(await codes("contains(Description,'')"), ALL_CODES, 'every string contains the empty string')
  t.same(await codes("contains(Description,'Вин')"), ['006'], 'Cyrillic')
  t.same(await codes("startswith(Description,'Bolt')"), ['001'])
  t.same(await codes("startswith(Description,'bolt')"), ['002'])
  t.same(await codes("startswith(Description,'%25')"), [])
  t.same(await codes("startswith(Description,'  ')"), ['007'])
  t.same(await codes("endswith(Description,'100%25')"), ['003'])
  t.same(await codes("endswith(Description,'m8')"), ['002'])
  t.same(await codes("endswith(Description,'M8')"), [])
  t.same(await codes('contains(Description,Unit)'), ['007'], 'a pattern that is a property (007 has an empty unit)')
  t.same(await codes("contains(concat(Description,Unit),'pcs')"), ['001', '002', '005'])
  t.same(await codes('startswith(Description,Code)'), [])
  t.same(await codes("startswith(Article,substring(Article,0,1)) and Article ne ''"), ['001', '002', '003', '004', '005', '006'])
  t.same(await codes("endswith(Article,'1')"), ['001', '003', '005'])
})

t.test('string functions', async (t) => {
  t.same(await codes("tolower(Description) eq 'bolt m6'"), ['001'])
  t.same(await codes("toupper(Description) eq 'BOLT M8'"), ['002'])
  t.same(await codes("trim(Description) eq 'Spacer'"), ['007'])
  t.same(await codes("Description eq '  Spacer'"), [], 'trailing spaces count: equality is exact, not padded')
  t.same(await codes("Description eq '  Spacer  '"), ['007'])
  t.same(await codes("Description ne '  Spacer' and Unit eq ''"), ['007'])
  t.same(await codes("Description in ('  Spacer','Bolt M6 ')"), [], 'in is exact too')
  t.same(await codes("Description in ('  Spacer  ','Bolt M6')"), ['001', '007'])
  t.same(await codes('length(Description) eq 7'), ['001', '002'])
  t.same(await codes('length(Description) eq 4'), ['006'], 'length counts characters, not bytes')
  t.same(await codes("indexof(Description,'m') eq 5"), ['002'])
  t.same(await codes("indexof(Description,'Bolt') eq 0"), ['001'])
  t.same(await codes("indexof(Description,'zzz') eq -1"), ALL_CODES)
  t.same(await codes("substring(Description,1) eq 'olt M6'"), ['001'])
  t.same(await codes("substring(Description,0,3) eq 'Nut'"), ['003'])
  t.same(await codes("substring(Code,1,1) eq '0'"), ALL_CODES)
  t.same(await codes("concat(Code,Unit) eq '003kg'"), ['003'])
  t.same(await codes("concat(concat(Article,'/'),Unit) eq 'A-1/pcs'"), ['001'])
})

t.test('date and time functions', async (t) => {
  const receipts = (filter: string) => numbers('Document_GoodsReceipt', filter)
  t.same(await receipts('year(Date) eq 2024'), ['0001', '0002', '0003'])
  t.same(await receipts('month(Date) eq 2'), ['0002'])
  t.same(await receipts('day(Date) eq 15'), ['0001'])
  t.same(await receipts('hour(Date) eq 23'), ['0002'])
  t.same(await receipts('minute(Date) eq 30'), ['0002'])
  t.same(await receipts('second(Date) eq 0'), ['0001', '0002', '0003'])
  t.same(await receipts('date(Date) eq 2024-02-20'), ['0002'])
  t.same(await receipts('date(Date) lt 2024-02-01'), ['0001'])
  t.same(await receipts('time(Date) eq 10:00:00'), ['0001'])
  t.same(await receipts('time(Date) gt 12:00:00'), ['0002'])
  t.same(await receipts('hour(time(Date)) eq 0'), ['0003'])
  t.same(await receipts('year(date(Date)) eq 2024 and month(date(Date)) eq 3'), ['0003'])
  t.same(await receipts('fractionalseconds(Date) eq 0 and totaloffsetminutes(Date) eq 0'), ['0001', '0002', '0003'])
  t.same(await receipts('Date lt now() and Date gt mindatetime() and Date lt maxdatetime()'), ['0001', '0002', '0003'])
  t.same(await receipts("Date add duration'P1D' gt 2024-03-01T12:00:00Z"), ['0003'])
  t.same(await receipts("Date sub duration'PT10H' eq 2024-01-15T00:00:00Z"), ['0001'])
  t.same(await receipts("totalseconds(duration'PT1M') eq 60"), ['0001', '0002', '0003'])
})

t.test('math functions', async (t) => {
  const lines = async (filter: string) =>
    (await service.values(`Document_GoodsReceipt_Goods?$filter=${filter}&$select=Ref_Key,LineNumber`))
      .map((g) => `${g.Ref_Key === R.first ? 'R1' : 'R2'}:${g.LineNumber}`)
      .sort()
  t.same(await lines('round(Quantity) eq 2'), ['R1:3'], '1.5 rounds away from zero')
  t.same(await lines('floor(Quantity) eq 1'), ['R1:3'])
  t.same(await lines('ceiling(Quantity) eq 2'), ['R1:3'])
  t.same(await lines('round(Price) eq 3'), ['R1:1', 'R1:2'], '2.50 rounds to 3')
  t.same(await lines('floor(Amount div 7) eq 2'), ['R1:2', 'R1:3'])
  const sales = await service.values('Document_GoodsSale_Goods?$filter=ceiling(Quantity) eq 1&$select=Ref_Key,LineNumber')
  t.same(sales, [{ Ref_Key: S.first, LineNumber: 2 }])
})

t.test('function arguments of the wrong type are 400 with the position', async (t) => {
  for (const [set, filter, position] of [
    ['Document_GoodsReceipt_Goods', "contains(Quantity,'1')", 9],
    ['Catalog_Products', 'year(Description) eq 1', 5],
    ['Catalog_Products', "round(Description) eq 'x'", 6],
    ['Catalog_Products', 'length(Code, Code) eq 1', 13],
    ['Catalog_Products', "matchesPattern(Description,'^B')", 0],
  ] as const) {
    const response = await service.get(`${set}?$filter=${filter}`)
    t.equal(response.status, 400, filter)
    const error = response.json().error
    t.equal(error.target, '$filter', filter)
    t.match(error.message, new RegExp(`position ${position}\\b`), `${filter}: ${error.message}`)
  }
})
