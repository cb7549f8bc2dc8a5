// The last month of the calendar (decisions.md §6): `Balance(Period=X)` counts `Period < X` also when X
// is on 9999-12-31, the day the all-time totals rows carry as their Period. Those rows must never stand
// in for a moment inside their own month — there is no next month start to read back from — and
// turnovers from a moment in that month count the movements of that month, 9999-12-31 included.
import t from 'tap'
import { recomputeTotals } from '../../src/store/totals-rebuild.js'
import { A, O, P, PRODUCT_TYPE, W, WAREHOUSE_TYPE, entryRow, ENTRY_COLUMNS, type Entry } from './support/virtual-fixture.js'
import { startTestService } from '../support/test-service.js'

const service = await startTestService('virtual_last_day')
t.teardown(() => service.close())
const pool = service.database.pool
const guid = (n: number) => `00000009-0000-4000-8000-${String(n).padStart(12, '0')}`
const RECEIPT = 'StandardODATA.Document_GoodsReceipt'

// A receipt of 5 in 2024 and one of 7 on the last day of the calendar, at ten in the morning.
await pool.query(
  'INSERT INTO ar_Stock (Recorder, Recorder_Type, LineNumber, Period, Active, RecordType, Warehouse_Key, Product_Key, Quantity, Amount) VALUES ?',
  [
    [
      [guid(1), RECEIPT, 1, '2024-05-10 12:00:00', 1, 'Receipt', W.w1, P.p1, 5, 50],
      [guid(2), RECEIPT, 1, '9999-12-31 10:00:00', 1, 'Receipt', W.w1, P.p1, 7, 70],
    ],
  ],
)
const entry = (recorder: string, period: string, amount: number): Entry => ({
  recorder,
  type: RECEIPT,
  line: 1,
  period,
  active: true,
  dr: {
    account: A.a41,
    ext: [
      [P.p1, PRODUCT_TYPE],
      [W.w1, WAREHOUSE_TYPE],
    ],
  },
  cr: { account: A.a60, ext: [] },
  organization: O.o1,
  amount,
  quantityDr: amount / 10,
  quantityCr: 0,
})
await pool.query(`INSERT INTO acr_Main (${ENTRY_COLUMNS.join(', ')}) VALUES ?`, [
  [entryRow(entry(guid(1), '2024-05-10 12:00:00', 50)), entryRow(entry(guid(2), '9999-12-31 10:00:00', 70))],
])
await recomputeTotals(pool, service.model)

async function values(path: string): Promise<Record<string, unknown>[]> {
  const response = await service.get(path)
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${response.text.slice(0, 300)}`)
  return response.json().value
}

t.test('Balance on the last day of the calendar counts only what came before', async (t) => {
  t.same(
    await values(`AccumulationRegister_Stock/Balance(Period=datetime'9999-12-31T05:00:00')?$select=QuantityBalance`),
    [{ QuantityBalance: 5 }],
    'before ten: the receipt of 2024 only',
  )
  t.same(
    await values(`AccumulationRegister_Stock/Balance(Period=datetime'9999-12-31T10:00:00')?$select=QuantityBalance`),
    [{ QuantityBalance: 5 }],
    'at exactly ten: excluded',
  )
  t.same(
    await values(`AccumulationRegister_Stock/Balance(Period=datetime'9999-12-31T23:59:59')?$select=QuantityBalance`),
    [{ QuantityBalance: 12 }],
    'at the last second: both',
  )
  t.same(
    await values(`AccumulationRegister_Stock/Balance(Period=datetime'9999-12-01T00:00:00')?$select=QuantityBalance`),
    [{ QuantityBalance: 5 }],
    'at the last month start',
  )
  t.same(
    await values(`AccountingRegister_Main/Balance(Period=datetime'9999-12-31T05:00:00')?$select=AmountBalanceDr,AmountBalanceCr`),
    [{ AmountBalanceDr: 50, AmountBalanceCr: 50 }],
    'accounting: the entry of 2024 only',
  )
})

t.test('turnovers from a moment of the last month count that month', async (t) => {
  t.same(await values(`AccumulationRegister_Stock/Turnovers(StartPeriod=datetime'9999-12-15T00:00:00')?$select=QuantityReceipt`), [
    { QuantityReceipt: 7 },
  ])
  t.same(
    await values(
      `AccumulationRegister_Stock/BalanceAndTurnovers(StartPeriod=datetime'9999-12-31T05:00:00')?$select=QuantityOpeningBalance,QuantityReceipt,QuantityClosingBalance`,
    ),
    [{ QuantityOpeningBalance: 5, QuantityReceipt: 7, QuantityClosingBalance: 12 }],
  )
  t.same(
    await values(
      `AccountingRegister_Main/Turnovers(StartPeriod=datetime'9999-12-15T00:00:00',AccountCondition='Code eq ''41''')?$select=AmountTurnoverDr`,
    ),
    [{ AmountTurnoverDr: 70 }],
  )
})
