// Every refusal of the virtual tables, by code and target (service.md §4.2 rule 1, §4.3, §7;
// decisions.md §2, §6): a Condition naming a resource or a column the function does not fill, a column
// of another periodicity anywhere in the query options, a bad value, an unknown parameter — all 400;
// for accounting registers also an account in a Condition, an unknown kind of extra dimension or too
// many, a bad AccountCondition, Order or Top.
import t, { type Test } from 'tap'
import { P, W } from './support/virtual-fixture.js'
import { startTestService } from '../support/test-service.js'

const service = await startTestService('virtual_refusals', { data: 'virtual-tables' })
t.teardown(() => service.close())
const STOCK = 'AccumulationRegister_Stock'
const MAIN = 'AccountingRegister_Main'

async function refused(t: Test, path: string, status: number, code: string, target?: string, position?: number): Promise<void> {
  const response = await service.get(path)
  t.equal(response.status, status, `${path}: status (${response.text.slice(0, 300)})`)
  const error = response.json().error
  t.equal(error?.code, code, `${path}: code`)
  if (target !== undefined) t.equal(error?.target, target, `${path}: target`)
  if (position !== undefined) t.match(error?.message, new RegExp(`position ${position}\\b`), `${path}: position`)
}

t.test('Condition: a resource or a column the function does not fill is NotFilledInResult', async (t) => {
  await refused(t, `${STOCK}/Balance(Condition='Quantity gt 1')`, 400, 'NotFilledInResult', 'Condition', 0)
  await refused(t, `${STOCK}/Balance(Condition='Warehouse_Key eq ${W.w1} and Amount lt 5')`, 400, 'NotFilledInResult', 'Condition', 58)
  await refused(t, `${STOCK}/Balance(Condition='Period lt 2024-02-01T00:00:00Z')`, 400, 'NotFilledInResult', 'Condition')
  await refused(t, `${STOCK}/Turnovers(Periodicity='Month',Condition='Recorder eq ${W.w1}')`, 400, 'NotFilledInResult', 'Condition')
  await refused(t, `${STOCK}/Turnovers(Periodicity='Recorder',Condition='LineNumber eq 1')`, 400, 'NotFilledInResult', 'Condition')
  await refused(t, `${STOCK}/BalanceAndTurnovers(Condition='Period ge 2024-01-01T00:00:00Z')`, 400, 'NotFilledInResult', 'Condition')
  await refused(t, `${STOCK}/Balance(Condition='RecordType eq ''Receipt''')`, 400, 'NotFilledInResult', 'Condition')
  await refused(t, `${STOCK}/Balance(Condition='Active')`, 400, 'NotFilledInResult', 'Condition')
  await refused(t, `InformationRegister_Prices/SliceLast(Condition='Price gt 10')`, 400, 'NotFilledInResult', 'Condition')
  await refused(t, `AccumulationRegister_Sales/Turnovers(Condition='Revenue gt 10')`, 400, 'NotFilledInResult', 'Condition')
})

t.test('Condition: unknown names and bad syntax are InvalidParameter', async (t) => {
  await refused(t, `${STOCK}/Balance(Condition='Colour eq 1')`, 400, 'InvalidParameter', 'Condition', 0)
  await refused(t, `${STOCK}/Balance(Condition='Warehouse_Key eq')`, 400, 'InvalidParameter', 'Condition')
  await refused(t, `${STOCK}/Balance(Condition='Product/Colour eq 1')`, 400, 'InvalidParameter', 'Condition', 8)
  await refused(t, `${STOCK}/Balance(Condition='Product_Key eq 5')`, 400, 'InvalidParameter', 'Condition')
  await refused(t, `${STOCK}/Balance(Condition=Warehouse_Key)`, 400, 'InvalidParameter', 'Condition')
})

t.test('a column of another periodicity, or one the call does not fill, anywhere in the options', async (t) => {
  await refused(t, `${STOCK}/Turnovers(Periodicity='Month')?$select=DayPeriod`, 400, 'NotFilledInResult', '$select')
  await refused(
    t,
    `${STOCK}/Turnovers(Periodicity='Month')?$filter=WeekPeriod ge 2024-01-01T00:00:00Z`,
    400,
    'NotFilledInResult',
    '$filter',
    0,
  )
  await refused(t, `${STOCK}/Turnovers(Periodicity='Month')?$orderby=MonthPeriod,YearPeriod desc`, 400, 'NotFilledInResult', '$orderby', 12)
  await refused(t, `${STOCK}/Turnovers()?$apply=groupby((MonthPeriod))`, 400, 'NotFilledInResult', '$apply')
  await refused(t, `${STOCK}/BalanceAndTurnovers(Periodicity='Day')?$select=Recorder,QuantityReceipt`, 400, 'NotFilledInResult', '$select')
  await refused(t, `${STOCK}/Turnovers(Periodicity='Recorder')?$filter=LineNumber eq 1`, 400, 'NotFilledInResult', '$filter')
  await refused(t, `${STOCK}/Turnovers()?$filter=Period gt 2024-01-01T00:00:00Z`, 400, 'NotFilledInResult', '$filter')
  await refused(t, `${STOCK}/Balance(Dimensions='Warehouse')?$select=Product_Key`, 400, 'NotFilledInResult', '$select')
  await refused(t, `${STOCK}/Balance(Dimensions='Warehouse')?$expand=Product`, 400, 'NotFilledInResult', '$expand')
  await refused(t, `${STOCK}/Balance(Dimensions='Product')?$filter=Warehouse/Code eq '01'`, 400, 'NotFilledInResult', '$filter')
  // A name $apply defines itself is not a column of the result.
  const alias = await service.get(`${STOCK}/Turnovers()?$apply=aggregate(QuantityTurnover with sum as MonthPeriod)`)
  t.equal(alias.status, 200, `an alias named like a period column is the alias (${alias.text.slice(0, 200)})`)
  await refused(t, `${STOCK}/Balance()?$select=Colour`, 400, 'InvalidSelect', '$select')
})

t.test('bad values and unknown parameters are InvalidParameter, naming the parameter', async (t) => {
  await refused(t, `${STOCK}/Turnovers(Periodicity='month')`, 400, 'InvalidParameter', 'Periodicity')
  await refused(t, `${STOCK}/Turnovers(Periodicity='Fortnight')`, 400, 'InvalidParameter', 'Periodicity')
  await refused(t, `${STOCK}/Turnovers()?Periodicity='YEAR'`, 400, 'InvalidParameter', 'Periodicity')
  await refused(t, `${STOCK}/Balance(Period=datetime'2024-13-01T00:00:00')`, 400, 'InvalidParameter', 'Period')
  await refused(t, `${STOCK}/Balance(Period='yesterday')`, 400, 'InvalidParameter', 'Period')
  await refused(t, `${STOCK}/Balance(Dimensions='Colour')`, 400, 'InvalidParameter', 'Dimensions')
  await refused(t, `${STOCK}/Balance(Dimensions='Quantity')`, 400, 'InvalidParameter', 'Dimensions')
  await refused(
    t,
    `${STOCK}/Turnovers(StartPeriod=datetime'2024-03-01T00:00:00',EndPeriod=datetime'2024-02-01T00:00:00')`,
    400,
    'InvalidParameter',
    'StartPeriod',
  )
  await refused(t, `${STOCK}/Balance(Colour=1)`, 400, 'InvalidParameter', 'Colour')
  await refused(t, `${STOCK}/Balance()?Colour=1`, 400, 'InvalidParameter', 'Colour')
  await refused(t, `${STOCK}/Balance(StartPeriod=datetime'2024-01-01T00:00:00')`, 400, 'InvalidParameter', 'StartPeriod')
  await refused(t, `${STOCK}/Turnovers(Period=datetime'2024-01-01T00:00:00')`, 400, 'InvalidParameter', 'Period')
  await refused(t, `InformationRegister_Prices/SliceLast(Periodicity='Day')`, 400, 'InvalidParameter', 'Periodicity')
  await refused(
    t,
    `${STOCK}/Balance(Period=datetime'2024-01-01T00:00:00')?Period=datetime'2024-01-01T00:00:00'`,
    400,
    'InvalidParameter',
    'Period',
  )
  await refused(t, `${STOCK}/Balance(datetime'2024-01-01T00:00:00')`, 400, 'InvalidParameter')
  await refused(t, `${STOCK}/Balance()?$search=x`, 400, 'SearchNotSupported', '$search')
  await refused(t, `${STOCK}/Balance()/$count?$select=QuantityBalance`, 400, 'InvalidQueryOption', '$select')
  const alias = await service.values(`${STOCK}/Balance()?$filter=Product_Key eq @p&@p=${P.p1}&token=ignored`)
  t.equal(alias.length, 2, 'parameter aliases and the token are not function parameters')
})

t.test('unknown functions and other methods', async (t) => {
  await refused(t, `${STOCK}/Slice()`, 404, 'NotFound')
  await refused(t, `AccumulationRegister_Sales/Balance()`, 404, 'NotFound')
  await refused(t, `InformationRegister_Settings/SliceLast()`, 404, 'NotFound')
  const post = await service.request('POST', `/odata/standard.odata/v4/${STOCK}/Balance()`, {
    headers: { Authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}` },
  })
  t.equal(post.status, 405)
  t.equal(post.headers.allow, 'GET, HEAD')
})

t.test('accounting registers: every function answers, in both call forms', async (t) => {
  for (const fn of ['Balance', 'Turnovers', 'BalanceAndTurnovers', 'ExtDimensions', 'RecordsWithExtDimensions']) {
    for (const path of [`${MAIN}/${fn}()`, `${MAIN}/StandardODATA.${fn}()`]) {
      const response = await service.get(path)
      t.equal(response.status, 200, `${path}: ${response.text.slice(0, 200)}`)
    }
  }
})

t.test('accounting Condition: an account or a resource is NotFilledInResult; RecordsWithExtDimensions may name both', async (t) => {
  await refused(t, `${MAIN}/Balance(Condition='Account_Key eq ${W.w1}')`, 400, 'NotFilledInResult', 'Condition', 0)
  await refused(t, `${MAIN}/Balance(Condition='Account/Code eq ''41''')`, 400, 'NotFilledInResult', 'Condition', 0)
  await refused(t, `${MAIN}/Turnovers(Condition='BalancedAccount_Key eq ${W.w1}')`, 400, 'NotFilledInResult', 'Condition')
  await refused(t, `${MAIN}/Balance(Condition='Amount gt 1')`, 400, 'NotFilledInResult', 'Condition', 0)
  await refused(
    t,
    `${MAIN}/BalanceAndTurnovers(Condition='ExtDimension1 ne ${W.w1} and QuantityDr gt 1')`,
    400,
    'NotFilledInResult',
    'Condition',
    58,
  )
  await refused(t, `${MAIN}/Turnovers(Periodicity='Month',Condition='Recorder eq ${W.w1}')`, 400, 'NotFilledInResult', 'Condition')
  await refused(t, `${MAIN}/Balance(Condition='AccountDr_Key eq ${W.w1}')`, 400, 'InvalidParameter', 'Condition', 0)
  await refused(
    t,
    `${MAIN}/Balance(ExtraDimensions='Products',Condition='ExtDimension2 eq ${W.w1}')`,
    400,
    'NotFilledInResult',
    'Condition',
  )
  const records = await service.get(
    `${MAIN}/RecordsWithExtDimensions(Condition='AccountCr_Key ne ${W.w1} and Amount gt 1 and QuantityDr ge 0')`,
  )
  t.equal(records.status, 200, records.text.slice(0, 200))
})

t.test('AccountCondition and BalancedAccountCondition: expressions over the accounts of the chart', async (t) => {
  await refused(t, `${MAIN}/Balance(AccountCondition='Colour eq 1')`, 400, 'InvalidParameter', 'AccountCondition', 0)
  await refused(t, `${MAIN}/Balance(AccountCondition='Code eq')`, 400, 'InvalidParameter', 'AccountCondition')
  await refused(t, `${MAIN}/Turnovers(BalancedAccountCondition='Code gt 5')`, 400, 'InvalidParameter', 'BalancedAccountCondition')
  await refused(t, `${MAIN}/Balance(BalancedAccountCondition='Code eq ''41''')`, 400, 'InvalidParameter', 'BalancedAccountCondition')
  await refused(t, `${MAIN}/ExtDimensions(AccountCondition='Code eq ''41''')`, 400, 'InvalidParameter', 'AccountCondition')
  const none = await service.values(`${MAIN}/Balance(AccountCondition='Code eq ''99''')`)
  t.same(none, [], 'an account the chart does not have: nothing')
})

t.test('ExtraDimensions: known kinds, at most the chart maximum', async (t) => {
  await refused(t, `${MAIN}/Balance(ExtraDimensions='Colours')`, 400, 'InvalidParameter', 'ExtraDimensions')
  await refused(
    t,
    `${MAIN}/Balance(ExtraDimensions='Products,Warehouses,Counterparties,Products')`,
    400,
    'InvalidParameter',
    'ExtraDimensions',
  )
  await refused(t, `${MAIN}/Balance(ExtraDimensions='Products,Products')`, 400, 'InvalidParameter', 'ExtraDimensions')
  await refused(t, `${MAIN}/Turnovers(BalancedExtraDimensions='Colours')`, 400, 'InvalidParameter', 'BalancedExtraDimensions')
  await refused(t, `${MAIN}/Balance(BalancedExtraDimensions='Products')`, 400, 'InvalidParameter', 'BalancedExtraDimensions')
  await refused(
    t,
    `${MAIN}/Balance(ExtraDimensions='Products,Warehouses')?$select=ExtDimension3,AmountBalance`,
    400,
    'NotFilledInResult',
    '$select',
  )
  await refused(t, `${MAIN}/Balance(Dimensions='Organization')?$select=Account_Key,AmountBalance`, 400, 'NotFilledInResult', '$select')
  await refused(t, `${MAIN}/Turnovers(Periodicity='Month')?$select=DayPeriod`, 400, 'NotFilledInResult', '$select')
  await refused(t, `${MAIN}/Turnovers(Periodicity='Monthly')`, 400, 'InvalidParameter', 'Periodicity')
})

t.test('Order and Top of RecordsWithExtDimensions', async (t) => {
  await refused(t, `${MAIN}/RecordsWithExtDimensions(Order='Colour')`, 400, 'InvalidParameter', 'Order')
  await refused(t, `${MAIN}/RecordsWithExtDimensions(Order='AccountDr/Code')`, 400, 'InvalidParameter', 'Order')
  await refused(t, `${MAIN}/RecordsWithExtDimensions(Order='Period sideways')`, 400, 'InvalidParameter', 'Order')
  await refused(t, `${MAIN}/RecordsWithExtDimensions(Order='Period,')`, 400, 'InvalidParameter', 'Order')
  await refused(t, `${MAIN}/RecordsWithExtDimensions(Top=-1)`, 400, 'InvalidParameter', 'Top')
  await refused(t, `${MAIN}/RecordsWithExtDimensions(Top=1000001)`, 400, 'InvalidParameter', 'Top')
  await refused(t, `${MAIN}/RecordsWithExtDimensions(Top=ten)`, 400, 'InvalidParameter', 'Top')
  await refused(t, `${MAIN}/Balance(Top=1)`, 400, 'InvalidParameter', 'Top')
  t.equal(
    (await service.values(`${MAIN}/RecordsWithExtDimensions(Top=1000000,Order='Period desc, Amount asc,Recorder')`)).length,
    8,
    'the largest Top, a checked Order: every active entry',
  )
  t.equal((await service.values(`${MAIN}/RecordsWithExtDimensions(Top=0)`)).length, 8, 'Top 0: no limit')
  t.equal((await service.values(`${MAIN}/RecordsWithExtDimensions()?Top=3`)).length, 3, 'Top in the query string')
})

t.test('a call without valid credentials is 401, like any read', async (t) => {
  const response = await service.request('GET', `/odata/standard.odata/v4/${STOCK}/Balance()`, {
    headers: { Authorization: `Basic ${Buffer.from('demo:wrong').toString('base64')}` },
  })
  t.equal(response.status, 401)
})
