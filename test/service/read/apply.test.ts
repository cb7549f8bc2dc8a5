// $apply (OData Data Aggregation): groupby, aggregate with every method, filter, compute, orderby, top and
// skip, chained with '/', then $filter, $orderby, $count and paging on the result; the context URL of
// a reshaped result; results checked against sums worked out by hand from the fixture.
import t from 'tap'
import { P, R, W } from './support/read-fixture.js'
import { startTestService } from '../../support/test-service.js'

const service = await startTestService('read_apply', { data: 'reads' })
t.teardown(() => service.close())
const root = `http://127.0.0.1:${service.port}/odata/standard.odata/v4/`
const stock = (query: string) => service.values(`AccumulationRegister_Stock_RecordType?${query}`)

t.test('groupby with aggregate', async (t) => {
  t.same(await stock('$apply=groupby((RecordType),aggregate(Quantity with sum as Total))'), [
    { RecordType: 'Expense', Total: 4.5 },
    { RecordType: 'Receipt', Total: 116.5 },
  ])
  const response = await service.get(
    'AccumulationRegister_Stock_RecordType?$apply=groupby((Product/Description),aggregate(Amount with sum as A,$count as N))',
  )
  t.equal(response.json()['@odata.context'], `${root}$metadata#AccumulationRegister_Stock_RecordType(Product(Description),A,N)`)
  t.same(
    response.json().value,
    [
      { Product: { Description: 'Bolt M6' }, A: 245, N: 3 },
      { Product: { Description: 'Nut 100%' }, A: 25, N: 2 },
      { Product: { Description: 'bolt m8' }, A: 15, N: 1 },
    ],
    'grouped by a path through a reference, nested in the result',
  )
  t.same(
    await stock('$apply=groupby((Warehouse/Code,RecordType))'),
    [
      { Warehouse: { Code: '01' }, RecordType: 'Expense' },
      { Warehouse: { Code: '01' }, RecordType: 'Receipt' },
      { Warehouse: { Code: '02' }, RecordType: 'Receipt' },
    ],
    'groupby without aggregate: the distinct groups',
  )
})

t.test('every aggregation method', async (t) => {
  const [row] = await stock(
    '$apply=aggregate(Quantity with sum as S,Quantity with min as Mi,Quantity with max as Ma,Quantity with average as Av,Product_Key with countdistinct as P,$count as N,Period with max as Last)',
  )
  t.equal(row!.S, 121)
  t.equal(row!.Mi, 0.5)
  t.equal(row!.Ma, 100)
  t.ok(Math.abs((row!.Av as number) - 121 / 6) < 1e-6, `average ${row!.Av}`)
  t.equal(row!.P, 3)
  t.equal(row!.N, 6)
  t.equal(row!.Last, '2024-02-20T23:30:00Z', 'max of date-times is a date-time')
  t.same(
    await stock('$apply=filter(Quantity gt 1000)/aggregate(Quantity with sum as S,$count as N)'),
    [{ S: null, N: 0 }],
    'an empty input: sum is null, count is 0',
  )
  const documents = await service.values(
    'Document_GoodsReceipt?$apply=groupby((Posted),aggregate(Goods/$count as Lines,$count as Documents))',
  )
  t.same(
    documents,
    [
      { Posted: false, Lines: 0, Documents: 1 },
      { Posted: true, Lines: 4, Documents: 2 },
    ],
    'Goods/$count sums the table-part rows',
  )
})

t.test('chains: filter, compute, groupby, filter on aliases, orderby, top, skip', async (t) => {
  t.same(await stock(`$apply=filter(RecordType eq 'Receipt')/groupby((Warehouse_Key),aggregate(Quantity with sum as Q))`), [
    { Warehouse_Key: W.main, Q: 16.5 },
    { Warehouse_Key: W.remote, Q: 100 },
  ])
  t.same(await stock('$apply=groupby((Product_Key),aggregate(Quantity with sum as Q))/filter(Q gt 10)'), [
    { Product_Key: P.boltM6, Q: 114 },
  ])
  const computed = await stock(
    '$apply=compute(Amount div Quantity as UnitPrice)/filter(UnitPrice gt 5)&$select=LineNumber,UnitPrice&$orderby=UnitPrice',
  )
  t.same(computed, [
    { LineNumber: 3, UnitPrice: 10 },
    { LineNumber: 2, UnitPrice: 20 },
  ])
  t.same(await stock('$apply=groupby((Product_Key),aggregate(Amount with sum as A))/orderby(A desc)/top(2)'), [
    { Product_Key: P.boltM6, A: 245 },
    { Product_Key: P.nut, A: 25 },
  ])
  t.same(await stock('$apply=groupby((Product_Key),aggregate(Amount with sum as A))/orderby(A desc)/skip(1)'), [
    { Product_Key: P.nut, A: 25 },
    { Product_Key: P.boltM8, A: 15 },
  ])
  t.same(
    await stock('$apply=groupby((RecordType),filter(Quantity gt 1)/aggregate($count as N))'),
    [
      { RecordType: 'Expense', N: 1 },
      { RecordType: 'Receipt', N: 4 },
    ],
    'a filter inside groupby applies to the rows of each group',
  )
  t.same(
    await stock('$apply=filter(LineNumber eq 1)/top(2)&$select=Recorder'),
    [{ Recorder: R.first }, { Recorder: R.second }],
    'top() of entities keeps their order',
  )
})

t.test('$filter, $orderby, $select, $count, $top and paging on the result', async (t) => {
  const response = await service.get(
    'AccumulationRegister_Stock_RecordType?$apply=groupby((Product_Key),aggregate(Amount with sum as A))&$filter=A gt 20&$orderby=A&$count=true',
  )
  t.same(response.json().value, [
    { Product_Key: P.nut, A: 25 },
    { Product_Key: P.boltM6, A: 245 },
  ])
  t.equal(response.json()['@odata.count'], 2)
  t.same(await stock('$apply=groupby((Product_Key),aggregate(Amount with sum as A))&$select=A&$orderby=A desc&$top=1'), [{ A: 245 }])
  const first = await service.get(
    'AccumulationRegister_Stock_RecordType?$apply=groupby((Product_Key),aggregate(Amount with sum as A))&$orderby=A',
    { Prefer: 'odata.maxpagesize=2' },
  )
  t.same(
    first.json().value.map((r: { A: number }) => r.A),
    [15, 25],
  )
  const link = first.json()['@odata.nextLink'] as string
  t.ok(link, 'groups page too: their grouping values are their key')
  const second = await service.request('GET', link.slice(link.indexOf('/odata/')), {
    headers: { Authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}` },
  })
  t.same(
    second.json().value.map((r: { A: number }) => r.A),
    [245],
  )
  t.notOk(second.json()['@odata.nextLink'])
  const navigation = await service.values(`Document_GoodsReceipt(${R.first})/Goods?$apply=aggregate(Amount with sum as Total,$count as N)`)
  t.same(navigation, [{ Total: 55, N: 3 }], '$apply on a navigation sees only the linked rows')
})

t.test('$apply errors are 400 InvalidApply with the position', async (t) => {
  const cases: [string, RegExp][] = [
    ['groupby((Product_Key),aggregate(Description with sum as S))', /Description/],
    ['aggregate(Product_Key with sum as S)', /sum needs a number.*position 10/],
    ['aggregate(Quantity with sum as Quantity)', /already/],
    ['groupby((Product_Key),aggregate(Quantity with sum as Product_Key))', /already/],
    ['orderby(Product/Description)', /orderby\(\) in \$apply/],
    ['groupby((Product_Key),orderby(Quantity)/aggregate($count as N))', /inside groupby/],
    ['aggregate(Quantity with sum as S)/filter(Quantity gt 1)', /no property "Quantity"/],
    ['compute(Quantity add 1 as Amount)', /already a property/],
    ['groupby((Product))', /navigation property/],
    ['concat(identity,identity)', /not supported/],
  ]
  for (const [apply, message] of cases) {
    const response = await service.get(`AccumulationRegister_Stock_RecordType?$apply=${apply}`)
    t.equal(response.status, 400, apply)
    const error = response.json().error
    t.equal(error.code, 'InvalidApply', apply)
    t.equal(error.target, '$apply', apply)
    t.match(error.message, message, `${apply}: ${error.message}`)
  }
})
