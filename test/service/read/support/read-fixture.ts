// A small, hand-made data set for the read tests: every value is chosen so that each operator and
// function has rows it must return and rows it must leave out (wildcards and quotes in descriptions,
// mixed case, Cyrillic, an empty reference, a document without goods, both record types, a register
// without key fields). Keys are fixed GUIDs, so expected results and the wire cases in protocol/reads
// can name them.
import { accountRefKey } from '../../../../src/model/account-key.js'
import type { Pool } from '../../../../src/store/pool.js'
import { insertRows } from '../../../support/insert-rows.js'

const EMPTY = '00000000-0000-0000-0000-000000000000'
const guid = (group: number, n: number) => `${String(group).padStart(8, '0')}-0000-4000-8000-${String(n).padStart(12, '0')}`

export const P = {
  boltM6: guid(1, 1),
  boltM8: guid(1, 2),
  nut: guid(1, 3),
  underscore: guid(1, 4),
  washer: guid(1, 5),
  screw: guid(1, 6),
  spacer: guid(1, 7),
} as const
export const W = { main: guid(2, 1), remote: guid(2, 2) } as const
export const C = { acme: guid(3, 1) } as const
export const O = { first: guid(4, 1) } as const
export const R = { first: guid(5, 1), second: guid(5, 2), empty: guid(5, 3) } as const
export const S = { first: guid(6, 1) } as const
export const RECEIPT_TYPE = 'StandardODATA.Document_GoodsReceipt'
export const SALE_TYPE = 'StandardODATA.Document_GoodsSale'

/** Products: code, description, article, unit, deletion mark. */
export const PRODUCTS: readonly [string, string, string, string, string, boolean][] = [
  [P.boltM6, '001', 'Bolt M6', 'A-1', 'pcs', false],
  [P.boltM8, '002', 'bolt m8', 'A-2', 'pcs', false],
  [P.nut, '003', 'Nut 100%', 'B_1', 'kg', false],
  [P.underscore, '004', 'Under_score', 'B%2', 'kg', true],
  [P.washer, '005', "O'Brien washer", 'C-1', 'pcs', false],
  [P.screw, '006', 'Винт', 'C-2', 'шт', false],
  [P.spacer, '007', '  Spacer  ', '', '', false],
]

export const WAREHOUSES: readonly [string, string, string][] = [
  [W.main, '01', 'Main'],
  [W.remote, '02', 'Remote'],
]

/** Documents: key, number, date (UTC), warehouse, posted, comment, goods [product, quantity, price, amount]. */
export const RECEIPTS: readonly {
  key: string
  number: string
  date: string
  warehouse: string
  posted: boolean
  comment: string
  goods: [string, string, string, string][]
}[] = [
  {
    key: R.first,
    number: '0001',
    date: '2024-01-15 10:00:00',
    warehouse: W.main,
    posted: true,
    comment: 'first',
    goods: [
      [P.boltM6, '10', '2.50', '25.00'],
      [P.boltM8, '5', '3', '15'],
      [P.nut, '1.5', '10', '15'],
    ],
  },
  {
    key: R.second,
    number: '0002',
    date: '2024-02-20 23:30:00',
    warehouse: W.remote,
    posted: true,
    comment: '',
    goods: [[P.boltM6, '100', '2', '200']],
  },
  { key: R.empty, number: '0003', date: '2024-03-01 00:00:00', warehouse: EMPTY, posted: false, comment: "it's", goods: [] },
]
export const SALES: readonly { key: string; number: string; date: string; warehouse: string; goods: [string, string, string, string][] }[] =
  [
    {
      key: S.first,
      number: '0001',
      date: '2024-02-01 12:00:00',
      warehouse: W.main,
      goods: [
        [P.boltM6, '4', '5', '20'],
        [P.nut, '0.5', '20', '10'],
      ],
    },
  ]

/** Stock movements: recorder, type, line, period, record type, warehouse, product, quantity, amount. */
export const STOCK: readonly [string, string, number, string, 'Receipt' | 'Expense', string, string, string, string][] = [
  ...RECEIPTS.filter((r) => r.posted).flatMap((r) =>
    r.goods.map(
      (g, i) =>
        [r.key, RECEIPT_TYPE, i + 1, r.date, 'Receipt', r.warehouse, g[0], g[1], g[3]] as [
          string,
          string,
          number,
          string,
          'Receipt',
          string,
          string,
          string,
          string,
        ],
    ),
  ),
  ...SALES.flatMap((s) =>
    s.goods.map(
      (g, i) =>
        [s.key, SALE_TYPE, i + 1, s.date, 'Expense', s.warehouse, g[0], g[1], g[3]] as [
          string,
          string,
          number,
          string,
          'Expense',
          string,
          string,
          string,
          string,
        ],
    ),
  ),
]

export async function loadReadFixture(pool: Pool): Promise<void> {
  await insertRows(
    pool,
    'c_Products',
    ['Ref_Key', 'DataVersion', 'Code', 'Description', 'Article', 'Unit', 'DeletionMark'],
    PRODUCTS.map(([k, c, d, a, u, m]) => [k, '1', c, d, a, u, m ? 1 : 0]),
  )
  await insertRows(
    pool,
    'c_Warehouses',
    ['Ref_Key', 'DataVersion', 'Code', 'Description'],
    WAREHOUSES.map(([k, c, d]) => [k, '1', c, d]),
  )
  await insertRows(
    pool,
    'c_Counterparties',
    ['Ref_Key', 'DataVersion', 'Code', 'Description', 'TaxId'],
    [[C.acme, '1', '01', 'Acme', '7700000000']],
  )
  await insertRows(pool, 'c_Организации', ['Ref_Key', 'DataVersion', 'Code', 'Description'], [[O.first, '1', '01', 'ООО Первая']])
  await insertRows(
    pool,
    'd_GoodsReceipt',
    ['Ref_Key', 'DataVersion', 'Number', 'Date', 'Posted', 'Warehouse_Key', 'Counterparty_Key', 'Organization_Key', 'Comment'],
    RECEIPTS.map((r) => [r.key, '1', r.number, r.date, r.posted ? 1 : 0, r.warehouse, C.acme, O.first, r.comment]),
  )
  await insertRows(
    pool,
    'd_GoodsReceipt__Goods',
    ['Ref_Key', 'LineNumber', 'Product_Key', 'Quantity', 'Price', 'Amount'],
    RECEIPTS.flatMap((r) => r.goods.map((g, i) => [r.key, i + 1, ...g])),
  )
  await insertRows(
    pool,
    'd_GoodsSale',
    ['Ref_Key', 'DataVersion', 'Number', 'Date', 'Posted', 'Warehouse_Key', 'Counterparty_Key', 'Organization_Key', 'Comment'],
    SALES.map((s) => [s.key, '1', s.number, s.date, 1, s.warehouse, C.acme, O.first, '']),
  )
  await insertRows(
    pool,
    'd_GoodsSale__Goods',
    ['Ref_Key', 'LineNumber', 'Product_Key', 'Quantity', 'Price', 'Amount'],
    SALES.flatMap((s) => s.goods.map((g, i) => [s.key, i + 1, ...g])),
  )
  await insertRows(
    pool,
    'ar_Stock',
    ['Recorder', 'Recorder_Type', 'LineNumber', 'Period', 'Active', 'RecordType', 'Warehouse_Key', 'Product_Key', 'Quantity', 'Amount'],
    STOCK.map(([r, t, l, p, k, w, pr, q, a]) => [r, t, l, p, 1, k, w, pr, q, a]),
  )
  await insertRows(
    pool,
    'ar_Sales',
    ['Recorder', 'Recorder_Type', 'LineNumber', 'Period', 'Active', 'Product_Key', 'Counterparty_Key', 'Quantity', 'Revenue'],
    SALES.flatMap((s) => s.goods.map((g, i) => [s.key, SALE_TYPE, i + 1, s.date, 1, g[0], C.acme, g[1], g[3]])),
  )
  await insertRows(
    pool,
    'ir_Prices',
    ['Period', 'Product_Key', 'PriceType', 'Price'],
    [
      ['2024-01-01 00:00:00', P.boltM6, 'Retail', '3.00'],
      ['2024-02-01 00:00:00', P.boltM6, 'Retail', '3.50'],
      ['2024-01-01 00:00:00', P.boltM8, 'Wholesale', '2.00'],
    ],
  )
  await insertRows(pool, 'ir_КурсыВалют', ['Period', 'Валюта', 'Курс', 'Кратность'], [['2024-01-01 00:00:00', 'USD', '90.5000', '1']])
  await insertRows(pool, 'ir_Settings', ['SurrogateKey', 'Value'], [[0, 'on']])
  await insertRows(pool, 'ir_Barcodes', ['Barcode', 'Product_Key'], [['4600000000011', P.boltM6]])
  const accounts = [
    ['41', 'Goods', 'Active', ['Products', 'Warehouses']],
    ['60', 'Suppliers', 'Passive', ['Counterparties']],
    ['90', 'Sales', 'ActivePassive', ['Products']],
  ] as const
  await insertRows(
    pool,
    'coa_Main',
    ['Ref_Key', 'DataVersion', 'Code', 'Description', 'AccountType'],
    accounts.map(([code, d, t]) => [accountRefKey('Main', code), '1', code, d, t]),
  )
  await insertRows(
    pool,
    'coa_Main__ExtDimensionTypes',
    ['Ref_Key', 'LineNumber', 'ExtDimensionType'],
    accounts.flatMap(([code, , , kinds]) => kinds.map((k, i) => [accountRefKey('Main', code), i + 1, k])),
  )
}
