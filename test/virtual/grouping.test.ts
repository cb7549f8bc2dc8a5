// Grouping of balances and turnovers, rule by rule (service.md §4.2 rule 3), and the query options over
// the grouped result: $filter, $orderby, $top, $count, /$count, $expand after grouping, $apply, paging.
// The balances of the fixture, worked out by hand (support/virtual-fixture.ts):
//   W1/P1 12, W1/P2 0 (left out), W1/P3 1, W2/P1 4, W2/P2 4
//   by warehouse: W1 13, W2 8; by product: P1 16, P2 4, P3 1; in all 21.
import t from 'tap'
import { DEMO_BASIC, startTestService } from '../support/test-service.js'
import { P, W } from './support/virtual-fixture.js'

const service = await startTestService('virtual_grouping', { data: 'virtual-tables' })
t.teardown(() => service.close())
const STOCK = 'AccumulationRegister_Stock'
const quantities = (rows: Record<string, unknown>[]) => rows.map((r) => r.QuantityBalance)

t.test('with Dimensions, exactly those', async (t) => {
  t.strictSame(await service.values(`${STOCK}/Balance(Dimensions='Warehouse')`), [
    { Warehouse_Key: W.w1, QuantityBalance: 13, AmountBalance: 130 },
    { Warehouse_Key: W.w2, QuantityBalance: 8, AmountBalance: 80 },
  ])
  t.strictSame(await service.values(`${STOCK}/Balance(Dimensions='Product_Key')?$select=Product_Key,QuantityBalance`), [
    { Product_Key: P.p1, QuantityBalance: 16 },
    { Product_Key: P.p2, QuantityBalance: 4 },
    { Product_Key: P.p3, QuantityBalance: 1 },
  ])
  t.strictSame(
    await service.values(`${STOCK}/Balance(Dimensions='Warehouse')?$select=QuantityBalance&$filter=QuantityBalance gt 10`),
    [{ QuantityBalance: 13 }],
    'Dimensions wins over $select',
  )
  t.strictSame(
    await service.values(`${STOCK}/Balance(Dimensions='')`),
    [{ QuantityBalance: 21, AmountBalance: 210 }],
    'no dimensions: one total row',
  )
})

t.test('without Dimensions: by the properties $select, $filter, $orderby and $expand mention', async (t) => {
  t.strictSame(await service.values(`${STOCK}/Balance()?$select=Warehouse_Key,QuantityBalance`), [
    { Warehouse_Key: W.w1, QuantityBalance: 13 },
    { Warehouse_Key: W.w2, QuantityBalance: 8 },
  ])
  t.strictSame(
    await service.values(`${STOCK}/Balance()?$select=QuantityBalance&$filter=Product_Key eq ${P.p1}`),
    [{ QuantityBalance: 16 }],
    '$filter: by product',
  )
  t.strictSame(
    await service.values(`${STOCK}/Balance()?$select=QuantityBalance&$filter=Warehouse/Code eq '02'`),
    [{ QuantityBalance: 8 }],
    '$filter through a reference: by its key',
  )
  t.strictSame(
    quantities(await service.values(`${STOCK}/Balance()?$select=QuantityBalance&$orderby=Warehouse/Code desc`)),
    [8, 13],
    '$orderby: by warehouse',
  )
  t.strictSame(
    await service.values(`${STOCK}/Balance()?$select=QuantityBalance&$expand=Product($select=Code)`),
    [
      { QuantityBalance: 16, Product: { Code: '001' } },
      { QuantityBalance: 4, Product: { Code: '002' } },
      { QuantityBalance: 1, Product: { Code: '003' } },
    ],
    '$expand: grouped by product first, then the products attached',
  )
  t.strictSame(
    (await service.values(`${STOCK}/Turnovers()?$select=QuantityTurnover&$expand=Warehouse($select=Description)`)).map((r) => [
      r.QuantityTurnover,
      (r.Warehouse as { Description: string }).Description,
    ]),
    [
      [13, 'Main'],
      [8, 'Remote'],
    ],
    'turnovers by an expanded navigation',
  )
  t.strictSame(
    (await service.values(`${STOCK}/Turnovers(Periodicity='Month')?$select=QuantityTurnover`)).map((r) => r.QuantityTurnover),
    [22, -8, 1, 6, -1, 1],
    'a periodicity always groups by its period: January 10 + 5 + 7, February −3 − 5, March −2 + 4 − 1, April 6, June −1, July 1',
  )
})

t.test('by every dimension without $select, with $select=*, with $apply', async (t) => {
  const all = await service.values(`${STOCK}/Balance()`)
  t.strictSame(
    all.map((r) => [r.Warehouse_Key, r.Product_Key, r.QuantityBalance]),
    [
      [W.w1, P.p1, 12],
      [W.w1, P.p3, 1],
      [W.w2, P.p1, 4],
      [W.w2, P.p2, 4],
    ],
  )
  t.strictSame(await service.values(`${STOCK}/Balance()?$select=*`), all)
  t.strictSame(
    (await service.values(`${STOCK}/Balance()?$expand=Warehouse`)).map((r) => [r.Product_Key, (r.Warehouse as { Code: string }).Code]),
    [
      [P.p1, '01'],
      [P.p3, '01'],
      [P.p1, '02'],
      [P.p2, '02'],
    ],
    '$expand without $select keeps every dimension',
  )
  t.strictSame(
    await service.values(
      `${STOCK}/Balance()?$apply=groupby((Warehouse_Key),aggregate(QuantityBalance with sum as Total))&$orderby=Warehouse_Key`,
    ),
    [
      { Warehouse_Key: W.w1, Total: 13 },
      { Warehouse_Key: W.w2, Total: 8 },
    ],
    '$apply works on the groups of every dimension (W1/P2, zero, is not a group)',
  )
  t.strictSame(await service.values(`${STOCK}/Balance()?$apply=aggregate($count as Groups)`), [{ Groups: 4 }])
})

t.test('/$count and $count=true count groups', async (t) => {
  t.equal((await service.get(`${STOCK}/Balance()/$count`)).text, '4')
  t.equal((await service.get(`${STOCK}/Balance(Dimensions='Warehouse')/$count`)).text, '2')
  t.equal((await service.get(`${STOCK}/StandardODATA.Balance()/$count?$filter=QuantityBalance gt 3`)).text, '3')
  const one = (await service.get(`${STOCK}/Balance()?$select=QuantityBalance&$count=true`)).json()
  t.equal(one['@odata.count'], 1, 'one resource selected: one group')
  const top = (await service.get(`${STOCK}/Balance()?$count=true&$top=1`)).json()
  t.equal(top['@odata.count'], 4)
  t.equal(top.value.length, 1)
})

t.test('query options apply to the result', async (t) => {
  t.strictSame(
    (await service.values(`${STOCK}/Balance()?$orderby=QuantityBalance desc&$top=2`)).map((r) => [
      r.Warehouse_Key,
      r.Product_Key,
      r.QuantityBalance,
    ]),
    [
      [W.w1, P.p1, 12],
      [W.w2, P.p1, 4],
    ],
    'ties broken by the grouping key',
  )
  t.strictSame(quantities(await service.values(`${STOCK}/Balance()?$filter=QuantityBalance gt 3 and AmountBalance lt 100&$skip=1`)), [4])
  const response = await service.get(`${STOCK}/Balance()?$select=QuantityBalance&$filter=Warehouse/Code eq '02'`)
  t.match(
    response.json()['@odata.context'],
    /\$metadata#Collection\(StandardODATA\.AccumulationRegister_Stock_Balance\)\(QuantityBalance\)$/,
  )
  t.strictSame(
    (await service.values(`InformationRegister_Prices/SliceLast()?$select=Price`)).map((r) => r.Price),
    [8, 20, 12],
    'slices are records: $select only chooses columns',
  )
})

t.test('server-driven paging walks the groups with keyset tokens', async (t) => {
  const first = await service.get(`${STOCK}/Balance()`, { Prefer: 'odata.maxpagesize=3' })
  const page = first.json()
  t.equal(page.value.length, 3)
  t.match(page['@odata.nextLink'], /Balance\(\)\?\$skiptoken=/)
  const next = page['@odata.nextLink'].slice(page['@odata.nextLink'].indexOf('/odata/'))
  const second = (await service.request('GET', next, { headers: { Authorization: DEMO_BASIC, Prefer: 'odata.maxpagesize=3' } })).json()
  t.strictSame([...page.value, ...second.value], await service.values(`${STOCK}/Balance()`))
  t.notOk(second['@odata.nextLink'])
  const turnovers = await service.get(`${STOCK}/Turnovers(StartPeriod=datetime'2024-01-01T00:00:00')?Periodicity='Month'`, {
    Prefer: 'odata.maxpagesize=4',
  })
  t.match(
    turnovers.json()['@odata.nextLink'],
    /Turnovers\(StartPeriod%3Ddatetime'2024-01-01T00%3A00%3A00'\)\?Periodicity=/,
    'parameters of both places are carried',
  )
  const foreign = page['@odata.nextLink'].slice(page['@odata.nextLink'].indexOf('$skiptoken='))
  const refused = await service.get(`${STOCK}/Balance(Period=datetime'2024-03-01T00:00:00')?${foreign}`)
  t.equal(refused.json().error?.code, 'InvalidSkipToken', 'a token of another call is refused')
})
