// Property: for random movements and records and random calls — every function, every periodicity,
// bounds that fall on movements, month starts and random instants, Dimensions, $select-driven grouping,
// Conditions — the service's answer equals the same aggregation computed in plain TypeScript from the
// movements (support/reference.ts). The data is random but seeded (VIRTUAL_SEED to replay one run,
// VIRTUAL_CALLS for more calls).
import t from 'tap'
import { PERIODICITIES, type Periodicity } from '../../src/model/virtual-tables.js'
import { Random } from '../../src/seed/random.js'
import { recomputeTotals } from '../../src/store/totals-rebuild.js'
import { balanceSide } from '../../src/virtual/accumulation-parts.js'
import { periodColumnsOf } from '../../src/virtual/period-columns.js'
import { addSeconds, nextPeriodStart, periodStart } from '../../src/virtual/period-start.js'
import { startTestService } from '../support/test-service.js'
import { compareAnswer } from './support/compare-answer.js'
import * as reference from './support/reference.js'

const seed = Number(process.env.VIRTUAL_SEED ?? 20240229)
const CALLS = Number(process.env.VIRTUAL_CALLS ?? 240)
const random = new Random(seed)
const service = await startTestService('virtual_property')
t.teardown(() => service.close())
const pool = service.database.pool

const guid = (group: number, n: number) => `${String(group).padStart(8, '0')}-0000-4000-8000-${String(n).padStart(12, '0')}`
const warehouses = [1, 2, 3].map((n) => guid(2, n))
const products = [1, 2, 3, 4].map((n) => guid(1, n))
const counterparties = [1, 2, 3].map((n) => guid(3, n))
const RECEIPT = 'StandardODATA.Document_GoodsReceipt'
const SALE = 'StandardODATA.Document_GoodsSale'

// --- data -----------------------------------------------------------------------------------------

const pad = (n: number) => String(n).padStart(2, '0')
const stored = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')
const FROM = Date.UTC(2023, 10, 1)
const TO = Date.UTC(2024, 5, 1)
/** A moment in the data's span; often on a boundary the rules care about. */
function moment(): string {
  const instant = stored(FROM + Math.floor((random.next() * (TO - FROM)) / 1000) * 1000)
  switch (random.int(0, 7)) {
    case 0:
      return periodStart('Month', instant)
    case 1:
      return addSeconds(nextPeriodStart('Month', periodStart('Month', instant)), -1)
    case 2:
      return periodStart('Week', instant)
    case 3:
      return periodStart('TenDays', instant)
    default:
      return instant
  }
}

const stock: reference.Movement[] = []
for (let n = 1; n <= 360; n++) {
  const receipt = random.next() < 0.55
  const lines = random.int(1, 3)
  const period = moment()
  for (let line = 1; line <= lines; line++) {
    stock.push({
      recorder: guid(9, n),
      recorderType: receipt ? RECEIPT : SALE,
      line,
      period,
      active: random.next() < 0.85,
      recordType: receipt ? 'Receipt' : 'Expense',
      dimensions: { Warehouse_Key: random.pick(warehouses), Product_Key: random.pick(products) },
      resources: { Quantity: random.int(1, 50_000), Amount: random.int(1, 90_000) * 10 },
    })
  }
}
const salesMovements: reference.Movement[] = Array.from({ length: 160 }, (_, i) => ({
  recorder: guid(8, i + 1),
  recorderType: SALE,
  line: 1,
  period: moment(),
  active: random.next() < 0.85,
  dimensions: { Product_Key: random.pick(products), Counterparty_Key: random.pick(counterparties) },
  resources: { Quantity: random.int(1, 20_000), Revenue: random.int(1, 90_000) * 10 },
}))
const priceKeys = new Set<string>()
const prices: reference.PriceRecord[] = []
while (prices.length < 120) {
  const record = {
    period: periodStart('Day', moment()),
    dimensions: { Product_Key: random.pick(products), PriceType: random.pick(['Retail', 'Wholesale']) },
    values: { Price: random.int(1, 100_000) * 10 },
  }
  const key = `${record.period}|${record.dimensions.Product_Key}|${record.dimensions.PriceType}`
  if (priceKeys.has(key)) continue
  priceKeys.add(key)
  prices.push(record)
}

const decimal = (thousandths: number, scale: number) => (thousandths / 1000).toFixed(scale)
async function insert(table: string, columns: string[], rows: unknown[][]): Promise<void> {
  await pool.query(`INSERT INTO \`${table}\` (${columns.map((c) => `\`${c}\``).join(', ')}) VALUES ?`, [rows])
}
await insert(
  'c_Warehouses',
  ['Ref_Key', 'DataVersion', 'Code', 'Description'],
  warehouses.map((k, i) => [k, '1', pad(i + 1), `W${i + 1}`]),
)
await insert(
  'c_Products',
  ['Ref_Key', 'DataVersion', 'Code', 'Description'],
  products.map((k, i) => [k, '1', pad(i + 1), `P${i + 1}`]),
)
await insert(
  'c_Counterparties',
  ['Ref_Key', 'DataVersion', 'Code', 'Description'],
  counterparties.map((k, i) => [k, '1', pad(i + 1), `C${i + 1}`]),
)
await insert(
  'ar_Stock',
  ['Recorder', 'Recorder_Type', 'LineNumber', 'Period', 'Active', 'RecordType', 'Warehouse_Key', 'Product_Key', 'Quantity', 'Amount'],
  stock.map((m) => [
    m.recorder,
    m.recorderType,
    m.line,
    m.period,
    m.active ? 1 : 0,
    m.recordType,
    m.dimensions.Warehouse_Key,
    m.dimensions.Product_Key,
    decimal(m.resources.Quantity!, 3),
    decimal(m.resources.Amount!, 2),
  ]),
)
await insert(
  'ar_Sales',
  ['Recorder', 'Recorder_Type', 'LineNumber', 'Period', 'Active', 'Product_Key', 'Counterparty_Key', 'Quantity', 'Revenue'],
  salesMovements.map((m) => [
    m.recorder,
    m.recorderType,
    m.line,
    m.period,
    m.active ? 1 : 0,
    m.dimensions.Product_Key,
    m.dimensions.Counterparty_Key,
    decimal(m.resources.Quantity!, 3),
    decimal(m.resources.Revenue!, 2),
  ]),
)
await insert(
  'ir_Prices',
  ['Period', 'Product_Key', 'PriceType', 'Price'],
  prices.map((p) => [p.period, p.dimensions.Product_Key, p.dimensions.PriceType, decimal(p.values.Price!, 2)]),
)
await recomputeTotals(pool, service.model)
const [[range]] = (await pool.query({
  sql: "SELECT MIN(Period), MAX(Period) FROM ar_Stock__totals WHERE Period < '9999-12-31'",
  rowsAsArray: true,
})) as unknown as [[[string, string]]]

// --- calls ----------------------------------------------------------------------------------------

/** A bound of a call: an instant of a movement, a month start, a second beside one, or any moment. */
function bound(): string {
  switch (random.int(0, 3)) {
    case 0:
      return random.pick(stock).period
    case 1:
      return addSeconds(random.pick(stock).period, random.pick([-1, 1]))
    default:
      return moment()
  }
}
const literal = (value: string) => `datetime'${value.replace(' ', 'T')}'`
const subset = (names: readonly string[]) => names.filter(() => random.next() < 0.5)

interface ConditionChoice {
  readonly text: string
  readonly holds: (dimensions: Readonly<Record<string, string>>) => boolean
}
function condition(dimension: string, keys: readonly string[], navigation: string): ConditionChoice | undefined {
  const key = random.pick(keys)
  const other = random.pick(keys)
  switch (random.int(0, 4)) {
    case 0:
      return { text: `${dimension} eq guid''${key}''`, holds: (d) => d[dimension] === key }
    case 1:
      return { text: `${dimension} ne ${key} and ${dimension} ne ${other}`, holds: (d) => d[dimension] !== key && d[dimension] !== other }
    case 2:
      // Through the reference: the catalogs' codes are 01, 02, … in key order.
      return { text: `${navigation}/Code le '02'`, holds: (d) => keys.indexOf(d[dimension]!) < 2 }
    default:
      return undefined
  }
}

const sides = new Set<string>()
const covered = new Set<string>()
t.test(`${CALLS} random calls equal the plain computation (seed ${seed})`, async (t) => {
  for (let i = 0; i < CALLS; i++) {
    const fn = random.pick(['Balance', 'Turnovers', 'TurnoversOfSales', 'BalanceAndTurnovers', 'SliceLast', 'SliceFirst'] as const)
    covered.add(fn)
    const parameters: string[] = []
    const query: string[] = []
    let expected: reference.Row[] | reference.PriceRecord[]
    let path: string
    if (fn === 'SliceLast' || fn === 'SliceFirst') {
      const period = random.next() < 0.8 ? periodStart('Day', moment()) : undefined
      if (period !== undefined) parameters.push(`Period=${literal(period)}`)
      const over = random.next() < 0.3 ? subset(['Product_Key', 'PriceType']) : undefined
      if (over !== undefined) parameters.push(`Dimensions='${over.join(',')}'`)
      const type = random.next() < 0.3 ? random.pick(['Retail', 'Wholesale']) : undefined
      if (type !== undefined) parameters.push(`Condition='PriceType eq ''${type}'''`)
      path = `InformationRegister_Prices/${fn}(${parameters.join(',')})`
      expected = reference
        .slice(
          prices,
          fn === 'SliceLast',
          over ?? ['Product_Key', 'PriceType'],
          period,
          (r) => type === undefined || r.dimensions.PriceType === type,
        )
        .map((r) => ({ Period: r.period, ...r.dimensions, Price: r.values.Price! }))
    } else {
      const ofSales = fn === 'TurnoversOfSales'
      const dims = ofSales ? ['Product_Key', 'Counterparty_Key'] : ['Warehouse_Key', 'Product_Key']
      const resources = ofSales ? ['Quantity', 'Revenue'] : ['Quantity', 'Amount']
      const movements = ofSales ? salesMovements : stock
      const chosen =
        random.next() < 0.5
          ? ofSales
            ? condition('Counterparty_Key', counterparties, 'Counterparty')
            : condition('Warehouse_Key', warehouses, 'Warehouse')
          : random.next() < 0.5
            ? condition('Product_Key', products, 'Product')
            : undefined
      if (chosen !== undefined) parameters.push(`Condition='${chosen.text}'`)
      // Grouping: Dimensions, or what $select names, or every dimension.
      let group = dims
      const grouping = random.int(0, 2)
      if (grouping === 0) {
        group = subset(dims)
        parameters.push(`Dimensions='${group.join(',')}'`)
      }
      const periodicity: Periodicity | undefined = fn === 'Balance' || random.next() < 0.25 ? undefined : random.pick(PERIODICITIES)
      if (periodicity !== undefined) parameters.push(`Periodicity='${periodicity}'`)
      const periodColumns = periodColumnsOf(periodicity)
      let period: string | undefined
      let start: string | undefined
      let end: string | undefined
      if (fn === 'Balance') {
        period = random.next() < 0.85 ? bound() : undefined
        if (period !== undefined) {
          parameters.push(`Period=${literal(period)}`)
          sides.add(balanceSide(period, { first: range[0], last: range[1] }))
        }
      } else {
        start = random.next() < 0.8 ? bound() : undefined
        end = random.next() < 0.8 ? bound() : undefined
        if (start !== undefined && end !== undefined && start > end) [start, end] = [end, start]
        if (start !== undefined) parameters.push(`StartPeriod=${literal(start)}`)
        if (end !== undefined) parameters.push(`EndPeriod=${literal(end)}`)
      }
      const valueNames =
        fn === 'Balance'
          ? resources.map((r) => `${r}Balance`)
          : fn === 'BalanceAndTurnovers'
            ? resources.flatMap((r) => [`${r}OpeningBalance`, `${r}Receipt`, `${r}Expense`, `${r}Turnover`, `${r}ClosingBalance`])
            : resources.flatMap((r) => (ofSales ? [`${r}Turnover`] : [`${r}Receipt`, `${r}Expense`, `${r}Turnover`]))
      if (grouping === 1) {
        // $select names some dimensions and every value: the rows group by those dimensions.
        group = subset(dims)
        query.push(`$select=${[...periodColumns, ...group, ...valueNames].join(',')}`)
      }
      const call: reference.Call = {
        group,
        condition: (m) => chosen === undefined || chosen.holds(m.dimensions),
        ...(period !== undefined ? { period } : {}),
        ...(start !== undefined ? { start } : {}),
        ...(end !== undefined ? { end } : {}),
        ...(periodicity !== undefined ? { periodicity } : {}),
      }
      const register = ofSales ? 'AccumulationRegister_Sales' : 'AccumulationRegister_Stock'
      const name = ofSales ? 'Turnovers' : fn
      path = `${register}/${name}(${parameters.join(',')})${query.length > 0 ? `?${query.join('&')}` : ''}`
      expected =
        fn === 'Balance'
          ? reference.balance(movements, resources, call)
          : fn === 'BalanceAndTurnovers'
            ? reference.balanceAndTurnovers(movements, resources, periodColumns, call)
            : reference.turnovers(movements, resources, !ofSales, call)
    }
    await compareAnswer(t, service, path, expected as Record<string, unknown>[], `call ${i}: ${path}`)
  }
  t.ok(sides.has('before') && sides.has('after'), `balances were read from both sides of the totals (${[...sides].join(', ')})`)
  t.equal(covered.size, 6, 'every function was called')
})
