// Small hand-made data for the virtual tables, every row placed on a boundary the rules care about
// (decisions.md §6): a movement at a month's first instant and at its last second, an inactive one, a
// leap day, the last second of a ten-day period and the first of the next, a Sunday night before a
// Monday, the last second of a half-year and the first of the next. Keys are fixed, so expected results
// (worked out by hand in the tests) and the wire cases of protocol/virtual can name them. The totals are
// recomputed from the movements, as the seed does.
import { accountRefKey } from '../../../src/model/account-key.js'
import type { ServiceModel } from '../../../src/model/model.js'
import type { Pool } from '../../../src/store/pool.js'
import { insertRows } from '../../support/insert-rows.js'
import { recomputeTotals } from '../../../src/store/totals-rebuild.js'

const guid = (group: number, n: number) => `${String(group).padStart(8, '0')}-0000-4000-8000-${String(n).padStart(12, '0')}`

export const P = { p1: guid(1, 1), p2: guid(1, 2), p3: guid(1, 3) } as const
export const W = { w1: guid(2, 1), w2: guid(2, 2) } as const
export const C = { c1: guid(3, 1), c2: guid(3, 2) } as const
export const D = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`d${i + 1}`, guid(5, i + 1)])) as Record<`d${number}`, string>
export const RECEIPT_TYPE = 'StandardODATA.Document_GoodsReceipt'
export const SALE_TYPE = 'StandardODATA.Document_GoodsSale'

export interface StockMovement {
  readonly recorder: string
  readonly type: string
  readonly line: number
  readonly period: string
  readonly active: boolean
  readonly recordType: 'Receipt' | 'Expense'
  readonly warehouse: string
  readonly product: string
  readonly quantity: number
  readonly amount: number
}

const move = (
  recorder: string,
  line: number,
  period: string,
  recordType: 'Receipt' | 'Expense',
  warehouse: string,
  product: string,
  quantity: number,
  amount: number,
  active = true,
): StockMovement => ({
  recorder,
  type: recordType === 'Receipt' ? RECEIPT_TYPE : SALE_TYPE,
  line,
  period,
  active,
  recordType,
  warehouse,
  product,
  quantity,
  amount,
})

/** Stock movements (Balance kind). Comments give what each row is there for. */
export const STOCK: readonly StockMovement[] = [
  move(D.d1, 1, '2024-01-10 10:00:00', 'Receipt', W.w1, P.p1, 10, 100),
  move(D.d1, 2, '2024-01-10 10:00:00', 'Receipt', W.w1, P.p2, 5, 50),
  move(D.d2, 1, '2024-01-31 23:59:59', 'Receipt', W.w2, P.p1, 7, 70), // the last second of January
  move(D.d3, 1, '2024-02-01 00:00:00', 'Expense', W.w1, P.p1, 3, 30), // the first instant of February
  move(D.d4, 1, '2024-02-15 12:00:00', 'Receipt', W.w1, P.p1, 20, 200, false), // inactive: never counts
  move(D.d5, 1, '2024-02-29 08:00:00', 'Expense', W.w1, P.p2, 5, 50), // leap day; W1/P2 back to zero
  move(D.d6, 1, '2024-03-10 23:59:59', 'Expense', W.w2, P.p1, 2, 20), // the last second of the first ten days
  move(D.d7, 1, '2024-03-11 00:00:00', 'Receipt', W.w2, P.p2, 4, 40), // the first instant of the second ten days
  move(D.d8, 1, '2024-03-31 23:59:59', 'Expense', W.w1, P.p1, 1, 10), // Sunday night: the week of Monday 25 March
  move(D.d9, 1, '2024-04-01 00:00:00', 'Receipt', W.w1, P.p1, 6, 60), // Monday 1 April: a new week, month, quarter
  move(D.d10, 1, '2024-06-30 23:59:59', 'Expense', W.w2, P.p1, 1, 10), // the last second of the first half-year
  move(D.d11, 1, '2024-07-01 00:00:00', 'Receipt', W.w1, P.p3, 1, 10), // the first instant of the second half-year
]

/** Sales movements (Turnovers kind): product, counterparty, quantity, revenue. */
export const SALES: readonly {
  recorder: string
  line: number
  period: string
  active: boolean
  product: string
  counterparty: string
  quantity: number
  revenue: number
}[] = [
  { recorder: D.d3, line: 1, period: '2024-02-01 00:00:00', active: true, product: P.p1, counterparty: C.c1, quantity: 3, revenue: 45 },
  { recorder: D.d5, line: 1, period: '2024-02-29 08:00:00', active: true, product: P.p2, counterparty: C.c2, quantity: 5, revenue: 80 },
  { recorder: D.d6, line: 1, period: '2024-03-10 23:59:59', active: true, product: P.p1, counterparty: C.c1, quantity: 2, revenue: 30 },
  { recorder: D.d12, line: 1, period: '2024-03-20 10:00:00', active: false, product: P.p1, counterparty: C.c2, quantity: 9, revenue: 99 }, // inactive
]

/** Accounts of the demo chart, by code (their keys are derived from chart and code). */
export const A = {
  a41: accountRefKey('Main', '41'),
  a51: accountRefKey('Main', '51'),
  a60: accountRefKey('Main', '60'),
  a62: accountRefKey('Main', '62'),
  a90: accountRefKey('Main', '90'),
} as const
export const O = { o1: guid(4, 1), o2: guid(4, 2) } as const
export const PRODUCT_TYPE = 'StandardODATA.Catalog_Products'
export const WAREHOUSE_TYPE = 'StandardODATA.Catalog_Warehouses'
export const COUNTERPARTY_TYPE = 'StandardODATA.Catalog_Counterparties'

/** One side of an entry: the account and its extra dimensions as [value, type] pairs. */
export interface EntrySide {
  readonly account: string
  readonly ext: readonly (readonly [string, string])[]
}

export interface Entry {
  readonly recorder: string
  readonly type: string
  readonly line: number
  readonly period: string
  readonly active: boolean
  readonly dr: EntrySide
  readonly cr: EntrySide
  readonly organization: string
  readonly amount: number
  readonly quantityDr: number
  readonly quantityCr: number
}

const side = (account: string, ...ext: (readonly [string, string])[]): EntrySide => ({ account, ext })
const product = (p: string) => [p, PRODUCT_TYPE] as const
const warehouse = (w: string) => [w, WAREHOUSE_TYPE] as const
const counterparty = (c: string) => [c, COUNTERPARTY_TYPE] as const
const entry = (
  recorder: string,
  period: string,
  dr: EntrySide,
  cr: EntrySide,
  amount: number,
  quantityDr: number,
  quantityCr: number,
  organization: string = O.o1,
  active = true,
): Entry => ({
  recorder,
  type: quantityCr > 0 && quantityDr === 0 ? SALE_TYPE : RECEIPT_TYPE,
  line: 1,
  period,
  active,
  dr,
  cr,
  organization,
  amount,
  quantityDr,
  quantityCr,
})

/**
 * Entries of AccountingRegister_Main over the demo chart: 41 Goods (Active: Products, Warehouses), 51
 * Bank (Active), 60 Suppliers (Passive: Counterparties), 62 Customers (Active: Counterparties), 90 Sales
 * (ActivePassive: Products). Amount is balanced, Quantity is not (QuantityDr, QuantityCr).
 */
export const ENTRIES: readonly Entry[] = [
  entry(D.d1, '2024-01-10 10:00:00', side(A.a41, product(P.p1), warehouse(W.w1)), side(A.a60, counterparty(C.c1)), 100, 10, 0), // a receipt
  entry(D.d2, '2024-01-31 23:59:59', side(A.a41, product(P.p2), warehouse(W.w1)), side(A.a60, counterparty(C.c2)), 50, 5, 0), // the last second of January
  entry(D.d3, '2024-02-01 00:00:00', side(A.a62, counterparty(C.c1)), side(A.a90, product(P.p1)), 80, 0, 4), // a sale, the first instant of February
  entry(D.d4, '2024-02-15 12:00:00', side(A.a62, counterparty(C.c2)), side(A.a90, product(P.p2)), 999, 0, 9, O.o1, false), // inactive: never counts
  entry(D.d5, '2024-02-29 08:00:00', side(A.a90, product(P.p1)), side(A.a41, product(P.p1), warehouse(W.w1)), 40, 4, 4), // cost of the sale, both quantities
  entry(D.d6, '2024-03-10 23:59:59', side(A.a60, counterparty(C.c1)), side(A.a51), 100, 0, 0), // the supplier paid
  entry(D.d7, '2024-03-11 00:00:00', side(A.a51), side(A.a62, counterparty(C.c1)), 80, 0, 0), // the customer pays
  entry(D.d8, '2024-04-01 00:00:00', side(A.a62, counterparty(C.c2)), side(A.a90, product(P.p2)), 30, 0, 1, O.o2), // another organization
  entry(D.d9, '2024-04-15 09:30:00', side(A.a90, product(P.p3)), side(A.a51), 25, 0, 0), // 90 in debit for one product
]

/** The movement row of an entry, in the columns of `acr_Main` listed in ENTRY_COLUMNS. */
export const ENTRY_COLUMNS = [
  'Recorder',
  'Recorder_Type',
  'LineNumber',
  'Period',
  'Active',
  'AccountDr_Key',
  'ExtDimensionDr1',
  'ExtDimensionDr1_Type',
  'ExtDimensionDr2',
  'ExtDimensionDr2_Type',
  'ExtDimensionDr3',
  'ExtDimensionDr3_Type',
  'AccountCr_Key',
  'ExtDimensionCr1',
  'ExtDimensionCr1_Type',
  'ExtDimensionCr2',
  'ExtDimensionCr2_Type',
  'ExtDimensionCr3',
  'ExtDimensionCr3_Type',
  'Organization_Key',
  'Amount',
  'QuantityDr',
  'QuantityCr',
  'Content',
]
const EMPTY = '00000000-0000-0000-0000-000000000000'
export function entryRow(e: Entry): unknown[] {
  const ext = (s: EntrySide) => [0, 1, 2].flatMap((i) => [s.ext[i]?.[0] ?? EMPTY, s.ext[i]?.[1] ?? ''])
  return [
    e.recorder,
    e.type,
    e.line,
    e.period,
    e.active ? 1 : 0,
    e.dr.account,
    ...ext(e.dr),
    e.cr.account,
    ...ext(e.cr),
    e.organization,
    e.amount,
    e.quantityDr,
    e.quantityCr,
    '',
  ]
}

/** Prices (periodic information register, Day): period, product, price type, price. Exchange rates (КурсыВалют) are below. */
export const PRICES: readonly [string, string, string, number][] = [
  ['2024-01-01 00:00:00', P.p1, 'Retail', 10],
  ['2024-02-01 00:00:00', P.p1, 'Retail', 11],
  ['2024-03-01 00:00:00', P.p1, 'Retail', 12],
  ['2024-01-15 00:00:00', P.p1, 'Wholesale', 8],
  ['2024-02-10 00:00:00', P.p2, 'Retail', 20],
]

export async function loadVirtualFixture(pool: Pool, model: ServiceModel): Promise<void> {
  await insertRows(
    pool,
    'c_Products',
    ['Ref_Key', 'DataVersion', 'Code', 'Description'],
    [
      [P.p1, '1', '001', 'Bolt'],
      [P.p2, '1', '002', 'Nut'],
      [P.p3, '1', '003', 'Washer'],
    ],
  )
  await insertRows(
    pool,
    'c_Warehouses',
    ['Ref_Key', 'DataVersion', 'Code', 'Description'],
    [
      [W.w1, '1', '01', 'Main'],
      [W.w2, '1', '02', 'Remote'],
    ],
  )
  await insertRows(
    pool,
    'c_Counterparties',
    ['Ref_Key', 'DataVersion', 'Code', 'Description'],
    [
      [C.c1, '1', '01', 'Acme'],
      [C.c2, '1', '02', 'Globex'],
    ],
  )
  await insertRows(
    pool,
    'ar_Stock',
    ['Recorder', 'Recorder_Type', 'LineNumber', 'Period', 'Active', 'RecordType', 'Warehouse_Key', 'Product_Key', 'Quantity', 'Amount'],
    STOCK.map((m) => [m.recorder, m.type, m.line, m.period, m.active ? 1 : 0, m.recordType, m.warehouse, m.product, m.quantity, m.amount]),
  )
  await insertRows(
    pool,
    'ar_Sales',
    ['Recorder', 'Recorder_Type', 'LineNumber', 'Period', 'Active', 'Product_Key', 'Counterparty_Key', 'Quantity', 'Revenue'],
    SALES.map((s) => [s.recorder, SALE_TYPE, s.line, s.period, s.active ? 1 : 0, s.product, s.counterparty, s.quantity, s.revenue]),
  )
  await insertRows(pool, 'ir_Prices', ['Period', 'Product_Key', 'PriceType', 'Price'], PRICES)
  await insertRows(
    pool,
    'ir_КурсыВалют',
    ['Period', 'Валюта', 'Курс', 'Кратность'],
    [
      ['2024-01-01 00:00:00', 'USD', '90.5000', '1'],
      ['2024-02-01 00:00:00', 'USD', '91.2500', '1'],
      ['2024-01-01 00:00:00', 'JPY', '61.1000', '100'],
    ],
  )
  // The chart's accounts, as the seed writes them (navigations such as Account/Code read them).
  await insertRows(
    pool,
    'coa_Main',
    ['Ref_Key', 'DataVersion', 'DeletionMark', 'Code', 'Description', 'AccountType'],
    [
      [A.a41, '1', 0, '41', 'Goods', 'Active'],
      [A.a51, '1', 0, '51', 'Bank', 'Active'],
      [A.a60, '1', 0, '60', 'Suppliers', 'Passive'],
      [A.a62, '1', 0, '62', 'Customers', 'Active'],
      [A.a90, '1', 0, '90', 'Sales', 'ActivePassive'],
    ],
  )
  await insertRows(pool, 'acr_Main', ENTRY_COLUMNS, ENTRIES.map(entryRow))
  await recomputeTotals(pool, model)
}
