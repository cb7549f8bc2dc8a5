// One case table for every virtual table (STYLE.md: "virtual tables behind one interface, every
// implementation checked by one shared case table"): a call against the hand-made data of
// support/virtual-fixture.ts and the rows it must give, worked out by hand from the movements listed
// there (the comment of each case shows the arithmetic). Rows are compared whole and in order: the
// default order is the grouping key, period columns first.
import type { VirtualTableName } from '../../src/model/virtual-tables.js'
import { C, D, P, RECEIPT_TYPE, SALE_TYPE, W } from './support/virtual-fixture.js'
import { ACCOUNTING_CASES } from './accounting-cases.js'

export interface VirtualTableCase {
  readonly name: string
  readonly function: VirtualTableName
  /** The path after the service root, as a client writes it (spaces allowed; the client encodes them). */
  readonly path: string
  readonly rows: readonly Record<string, unknown>[]
}

const at = (stored: string) => `${stored.replace(' ', 'T')}Z`
const stock = (w: string, p: string, values: Record<string, number>) => ({ Warehouse_Key: w, Product_Key: p, ...values })
const balance = (w: string, p: string, quantity: number) => stock(w, p, { QuantityBalance: quantity, AmountBalance: quantity * 10 })
/** Stock turnovers: every amount in the fixture is ten times its quantity. */
const turnover = (w: string, p: string, receipt: number, expense: number, period: Record<string, unknown> = {}) => ({
  ...period,
  ...stock(w, p, {
    QuantityReceipt: receipt,
    QuantityExpense: expense,
    QuantityTurnover: receipt - expense,
    AmountReceipt: receipt * 10,
    AmountExpense: expense * 10,
    AmountTurnover: (receipt - expense) * 10,
  }),
})
const balanceAndTurnover = (
  w: string,
  p: string,
  opening: number,
  receipt: number,
  expense: number,
  period: Record<string, unknown> = {},
) => ({
  ...period,
  ...stock(w, p, {
    QuantityOpeningBalance: opening,
    QuantityReceipt: receipt,
    QuantityExpense: expense,
    QuantityTurnover: receipt - expense,
    QuantityClosingBalance: opening + receipt - expense,
    AmountOpeningBalance: opening * 10,
    AmountReceipt: receipt * 10,
    AmountExpense: expense * 10,
    AmountTurnover: (receipt - expense) * 10,
    AmountClosingBalance: (opening + receipt - expense) * 10,
  }),
})
const price = (period: string, product: string, type: string, value: number) => ({
  Period: at(period),
  Product_Key: product,
  PriceType: type,
  Price: value,
})

const STOCK = 'AccumulationRegister_Stock'
const SALES = 'AccumulationRegister_Sales'
const PRICES = 'InformationRegister_Prices'

export const VIRTUAL_TABLE_CASES: readonly VirtualTableCase[] = [
  // --- Balance -------------------------------------------------------------------------------------
  {
    // W1/P1: 10 − 3 − 1 + 6 (the inactive 20 never counts); W1/P2: 5 − 5 = 0, left out; W2/P1: 7 − 2 − 1.
    name: 'Balance() of everything, zero groups left out',
    function: 'Balance',
    path: `${STOCK}/Balance()`,
    rows: [balance(W.w1, P.p1, 12), balance(W.w1, P.p3, 1), balance(W.w2, P.p1, 4), balance(W.w2, P.p2, 4)],
  },
  {
    name: 'a movement at exactly Period is excluded (the expense of 3 at 2024-02-01 00:00:00)',
    function: 'Balance',
    path: `${STOCK}/Balance(Period=datetime'2024-02-01T00:00:00')`,
    rows: [balance(W.w1, P.p1, 10), balance(W.w1, P.p2, 5), balance(W.w2, P.p1, 7)],
  },
  {
    name: 'one second later it counts',
    function: 'Balance',
    path: `${STOCK}/Balance(Period=datetime'2024-02-01T00:00:01')`,
    rows: [balance(W.w1, P.p1, 7), balance(W.w1, P.p2, 5), balance(W.w2, P.p1, 7)],
  },
  {
    name: 'an inactive movement before Period does not count',
    function: 'Balance',
    path: `${STOCK}/Balance(Period=datetime'2024-02-16T00:00:00')`,
    rows: [balance(W.w1, P.p1, 7), balance(W.w1, P.p2, 5), balance(W.w2, P.p1, 7)],
  },
  {
    // Late in the data: read as the all-time balance minus what follows. W2/P1: 7 − 2; W2/P2: 4.
    name: 'Balance in June (from the other side of the totals)',
    function: 'Balance',
    path: `${STOCK}/Balance(Period=datetime'2024-06-15T00:00:00')`,
    rows: [balance(W.w1, P.p1, 12), balance(W.w2, P.p1, 5), balance(W.w2, P.p2, 4)],
  },
  {
    name: 'the receipt at exactly 2024-07-01 is excluded; the expense of the last second of June counts',
    function: 'Balance',
    path: `${STOCK}/Balance(Period=datetime'2024-07-01T00:00:00')`,
    rows: [balance(W.w1, P.p1, 12), balance(W.w2, P.p1, 4), balance(W.w2, P.p2, 4)],
  },
  {
    name: 'before the first movement: nothing',
    function: 'Balance',
    path: `${STOCK}/Balance(Period=datetime'2024-01-01T00:00:00')`,
    rows: [],
  },
  {
    name: 'Condition on a dimension, nested quotes doubled',
    function: 'Balance',
    path: `${STOCK}/Balance(Condition='Warehouse_Key eq guid''${W.w2}''')`,
    rows: [balance(W.w2, P.p1, 4), balance(W.w2, P.p2, 4)],
  },
  {
    name: 'Condition through a reference, in the query string, nested quotes left single',
    function: 'Balance',
    path: `${STOCK}/Balance()?Condition='Product/Description eq 'Nut' or Product/Code eq '003''`,
    rows: [balance(W.w1, P.p3, 1), balance(W.w2, P.p2, 4)],
  },
  {
    name: 'no parameters and a $select of one resource: one row, the total (12 + 1 + 4 + 4)',
    function: 'Balance',
    path: `${STOCK}/Balance()?$select=QuantityBalance`,
    rows: [{ QuantityBalance: 21 }],
  },
  {
    name: 'the one total row is there when it is zero',
    function: 'Balance',
    path: `${STOCK}/StandardODATA.Balance(Period=datetime'2024-01-01T00:00:00')?$select=AmountBalance`,
    rows: [{ AmountBalance: 0 }],
  },
  // --- Turnovers -------------------------------------------------------------------------------------
  {
    // W1/P1 receipts 10 + 6, expenses 3 + 1; W1/P2 5 and 5 (a zero turnover, but not an empty row).
    name: 'Turnovers() of everything',
    function: 'Turnovers',
    path: `${STOCK}/Turnovers()`,
    rows: [
      turnover(W.w1, P.p1, 16, 4),
      turnover(W.w1, P.p2, 5, 5),
      turnover(W.w1, P.p3, 1, 0),
      turnover(W.w2, P.p1, 7, 3),
      turnover(W.w2, P.p2, 4, 0),
    ],
  },
  {
    name: 'both bounds are included (the first instant of February, the last second of March)',
    function: 'Turnovers',
    path: `${STOCK}/Turnovers(StartPeriod=datetime'2024-02-01T00:00:00',EndPeriod=datetime'2024-03-31T23:59:59')`,
    rows: [turnover(W.w1, P.p1, 0, 4), turnover(W.w1, P.p2, 0, 5), turnover(W.w2, P.p1, 0, 2), turnover(W.w2, P.p2, 4, 0)],
  },
  {
    name: 'a second inside either bound leaves those movements out',
    function: 'Turnovers',
    path: `${STOCK}/Turnovers(StartPeriod=datetime'2024-02-01T00:00:01',EndPeriod=datetime'2024-03-31T23:59:58')`,
    rows: [turnover(W.w1, P.p2, 0, 5), turnover(W.w2, P.p1, 0, 2), turnover(W.w2, P.p2, 4, 0)],
  },
  {
    // Sunday 31 March belongs to the week of Monday 25 March, clamped to StartPeriod (27 March).
    name: 'weeks start on Monday; the first week is clamped to StartPeriod',
    function: 'Turnovers',
    path: `${STOCK}/Turnovers(StartPeriod=datetime'2024-03-27T00:00:00',EndPeriod=datetime'2024-04-07T00:00:00',Periodicity='Week')`,
    rows: [
      turnover(W.w1, P.p1, 0, 1, { WeekPeriod: at('2024-03-27 00:00:00') }),
      turnover(W.w1, P.p1, 6, 0, { WeekPeriod: at('2024-04-01 00:00:00') }),
    ],
  },
  {
    name: 'ten-day periods: the 10th at 23:59:59, the 11th, the 31st',
    function: 'Turnovers',
    path: `${STOCK}/Turnovers(StartPeriod=datetime'2024-03-01T00:00:00',EndPeriod=datetime'2024-03-31T23:59:59',Periodicity='TenDays')`,
    rows: [
      turnover(W.w2, P.p1, 0, 2, { TenDaysPeriod: at('2024-03-01 00:00:00') }),
      turnover(W.w2, P.p2, 4, 0, { TenDaysPeriod: at('2024-03-11 00:00:00') }),
      turnover(W.w1, P.p1, 0, 1, { TenDaysPeriod: at('2024-03-21 00:00:00') }),
    ],
  },
  {
    name: 'half-years start in January and July; the first is clamped to StartPeriod',
    function: 'Turnovers',
    path: `${STOCK}/Turnovers(StartPeriod=datetime'2024-06-01T00:00:00',EndPeriod=datetime'2024-07-31T23:59:59',Periodicity='HalfYear')`,
    rows: [
      turnover(W.w2, P.p1, 0, 1, { HalfYearPeriod: at('2024-06-01 00:00:00') }),
      turnover(W.w1, P.p3, 1, 0, { HalfYearPeriod: at('2024-07-01 00:00:00') }),
    ],
  },
  {
    // January from the middle (partial month: movements), February whole (totals), March up to the 15th.
    name: 'months: a partial first month clamped, a whole month, a partial last month',
    function: 'Turnovers',
    path: `${STOCK}/Turnovers(StartPeriod=datetime'2024-01-15T00:00:00',EndPeriod=datetime'2024-03-15T00:00:00',Periodicity='Month')`,
    rows: [
      turnover(W.w2, P.p1, 7, 0, { MonthPeriod: at('2024-01-15 00:00:00') }),
      turnover(W.w1, P.p1, 0, 3, { MonthPeriod: at('2024-02-01 00:00:00') }),
      turnover(W.w1, P.p2, 0, 5, { MonthPeriod: at('2024-02-01 00:00:00') }),
      turnover(W.w2, P.p1, 0, 2, { MonthPeriod: at('2024-03-01 00:00:00') }),
      turnover(W.w2, P.p2, 4, 0, { MonthPeriod: at('2024-03-01 00:00:00') }),
    ],
  },
  {
    name: 'by recorder: Period, Recorder, Recorder_Type; the inactive movement of 15 February is not there',
    function: 'Turnovers',
    path: `${STOCK}/Turnovers(StartPeriod=datetime'2024-02-01T00:00:00',EndPeriod=datetime'2024-02-29T23:59:59',Periodicity='Recorder')`,
    rows: [
      turnover(W.w1, P.p1, 0, 3, { Period: at('2024-02-01 00:00:00'), Recorder: D.d3, Recorder_Type: SALE_TYPE }),
      turnover(W.w1, P.p2, 0, 5, { Period: at('2024-02-29 08:00:00'), Recorder: D.d5, Recorder_Type: SALE_TYPE }),
    ],
  },
  {
    name: 'by record: LineNumber too',
    function: 'Turnovers',
    path: `${STOCK}/Turnovers(StartPeriod=datetime'2024-01-10T10:00:00',EndPeriod=datetime'2024-01-10T10:00:00',Periodicity='Record')`,
    rows: [
      turnover(W.w1, P.p1, 10, 0, { Period: at('2024-01-10 10:00:00'), Recorder: D.d1, Recorder_Type: RECEIPT_TYPE, LineNumber: 1 }),
      turnover(W.w1, P.p2, 5, 0, { Period: at('2024-01-10 10:00:00'), Recorder: D.d1, Recorder_Type: RECEIPT_TYPE, LineNumber: 2 }),
    ],
  },
  {
    name: 'a Condition on Recorder where the periodicity fills it',
    function: 'Turnovers',
    path: `${STOCK}/Turnovers(Periodicity='Recorder',Condition='Recorder eq ${D.d6}')`,
    rows: [turnover(W.w2, P.p1, 0, 2, { Period: at('2024-03-10 23:59:59'), Recorder: D.d6, Recorder_Type: SALE_TYPE })],
  },
  {
    // Auto fills every period column: each is the start of its period, clamped to StartPeriod (31 March, noon).
    name: 'Auto: every period column, clamped',
    function: 'Turnovers',
    path: `${STOCK}/Turnovers(StartPeriod=datetime'2024-03-31T12:00:00',EndPeriod=datetime'2024-04-01T00:00:00',Periodicity='Auto')`,
    rows: [
      turnover(W.w1, P.p1, 0, 1, {
        Period: at('2024-03-31 23:59:59'),
        Recorder: D.d8,
        Recorder_Type: SALE_TYPE,
        LineNumber: 1,
        SecondPeriod: at('2024-03-31 23:59:59'),
        MinutePeriod: at('2024-03-31 23:59:00'),
        HourPeriod: at('2024-03-31 23:00:00'),
        DayPeriod: at('2024-03-31 12:00:00'),
        WeekPeriod: at('2024-03-31 12:00:00'),
        TenDaysPeriod: at('2024-03-31 12:00:00'),
        MonthPeriod: at('2024-03-31 12:00:00'),
        QuarterPeriod: at('2024-03-31 12:00:00'),
        HalfYearPeriod: at('2024-03-31 12:00:00'),
        YearPeriod: at('2024-03-31 12:00:00'),
      }),
      turnover(W.w1, P.p1, 6, 0, {
        Period: at('2024-04-01 00:00:00'),
        Recorder: D.d9,
        Recorder_Type: RECEIPT_TYPE,
        LineNumber: 1,
        SecondPeriod: at('2024-04-01 00:00:00'),
        MinutePeriod: at('2024-04-01 00:00:00'),
        HourPeriod: at('2024-04-01 00:00:00'),
        DayPeriod: at('2024-04-01 00:00:00'),
        WeekPeriod: at('2024-04-01 00:00:00'),
        TenDaysPeriod: at('2024-04-01 00:00:00'),
        MonthPeriod: at('2024-04-01 00:00:00'),
        QuarterPeriod: at('2024-04-01 00:00:00'),
        HalfYearPeriod: at('2024-03-31 12:00:00'),
        YearPeriod: at('2024-03-31 12:00:00'),
      }),
    ],
  },
  {
    // A Turnovers-kind register: the plain sum, no receipt or expense; the inactive sale of 20 March is out.
    name: 'Turnovers of a Turnovers-kind register by quarter',
    function: 'Turnovers',
    path: `${SALES}/Turnovers(Periodicity='Quarter')`,
    rows: [
      { QuarterPeriod: at('2024-01-01 00:00:00'), Product_Key: P.p1, Counterparty_Key: C.c1, QuantityTurnover: 5, RevenueTurnover: 75 },
      { QuarterPeriod: at('2024-01-01 00:00:00'), Product_Key: P.p2, Counterparty_Key: C.c2, QuantityTurnover: 5, RevenueTurnover: 80 },
    ],
  },
  // --- BalanceAndTurnovers ---------------------------------------------------------------------------
  {
    // Openings at 1 February: W1/P1 10, W1/P2 5, W2/P1 7, W2/P2 0; then February and March.
    name: 'BalanceAndTurnovers over two months, no periodicity',
    function: 'BalanceAndTurnovers',
    path: `${STOCK}/BalanceAndTurnovers(StartPeriod=datetime'2024-02-01T00:00:00',EndPeriod=datetime'2024-03-31T23:59:59')`,
    rows: [
      balanceAndTurnover(W.w1, P.p1, 10, 0, 4),
      balanceAndTurnover(W.w1, P.p2, 5, 0, 5),
      balanceAndTurnover(W.w2, P.p1, 7, 0, 2),
      balanceAndTurnover(W.w2, P.p2, 0, 4, 0),
    ],
  },
  {
    // W2/P1 has no February movements: its March opening is its balance at 1 February, 7.
    name: 'by month: each period opens with the previous closing',
    function: 'BalanceAndTurnovers',
    path: `${STOCK}/BalanceAndTurnovers(StartPeriod=datetime'2024-02-01T00:00:00',EndPeriod=datetime'2024-03-31T23:59:59',Periodicity='Month')`,
    rows: [
      balanceAndTurnover(W.w1, P.p1, 10, 0, 3, { MonthPeriod: at('2024-02-01 00:00:00') }),
      balanceAndTurnover(W.w1, P.p2, 5, 0, 5, { MonthPeriod: at('2024-02-01 00:00:00') }),
      balanceAndTurnover(W.w1, P.p1, 7, 0, 1, { MonthPeriod: at('2024-03-01 00:00:00') }),
      balanceAndTurnover(W.w2, P.p1, 7, 0, 2, { MonthPeriod: at('2024-03-01 00:00:00') }),
      balanceAndTurnover(W.w2, P.p2, 0, 4, 0, { MonthPeriod: at('2024-03-01 00:00:00') }),
    ],
  },
  {
    name: 'groups with a balance but no movements in the range: one row at StartPeriod, opening equal to closing',
    function: 'BalanceAndTurnovers',
    path: `${STOCK}/BalanceAndTurnovers(StartPeriod=datetime'2024-04-02T00:00:00',EndPeriod=datetime'2024-06-29T00:00:00',Periodicity='Month')`,
    rows: [
      balanceAndTurnover(W.w1, P.p1, 12, 0, 0, { MonthPeriod: at('2024-04-02 00:00:00') }),
      balanceAndTurnover(W.w2, P.p1, 5, 0, 0, { MonthPeriod: at('2024-04-02 00:00:00') }),
      balanceAndTurnover(W.w2, P.p2, 4, 0, 0, { MonthPeriod: at('2024-04-02 00:00:00') }),
    ],
  },
  {
    name: 'by day with a Condition: the leap day',
    function: 'BalanceAndTurnovers',
    path: `${STOCK}/BalanceAndTurnovers(StartPeriod=datetime'2024-02-01T00:00:00',EndPeriod=datetime'2024-02-29T23:59:59',Periodicity='Day',Condition='Warehouse_Key eq ${W.w1}')`,
    rows: [
      balanceAndTurnover(W.w1, P.p1, 10, 0, 3, { DayPeriod: at('2024-02-01 00:00:00') }),
      balanceAndTurnover(W.w1, P.p2, 5, 0, 5, { DayPeriod: at('2024-02-29 00:00:00') }),
    ],
  },
  {
    name: 'without StartPeriod nothing opens',
    function: 'BalanceAndTurnovers',
    path: `${STOCK}/BalanceAndTurnovers(EndPeriod=datetime'2024-01-31T23:59:59')`,
    rows: [balanceAndTurnover(W.w1, P.p1, 0, 10, 0), balanceAndTurnover(W.w1, P.p2, 0, 5, 0), balanceAndTurnover(W.w2, P.p1, 0, 7, 0)],
  },
  {
    // Openings at 1 March: W1/P1 7, W2/P1 7; W1/P1 then goes 7 → 6 → 12 over two recorders.
    name: 'by recorder: the balance runs through the recorders in period order',
    function: 'BalanceAndTurnovers',
    path: `${STOCK}/BalanceAndTurnovers(StartPeriod=datetime'2024-03-01T00:00:00',EndPeriod=datetime'2024-04-01T00:00:00',Periodicity='Recorder')`,
    rows: [
      balanceAndTurnover(W.w2, P.p1, 7, 0, 2, { Period: at('2024-03-10 23:59:59'), Recorder: D.d6, Recorder_Type: SALE_TYPE }),
      balanceAndTurnover(W.w2, P.p2, 0, 4, 0, { Period: at('2024-03-11 00:00:00'), Recorder: D.d7, Recorder_Type: RECEIPT_TYPE }),
      balanceAndTurnover(W.w1, P.p1, 7, 0, 1, { Period: at('2024-03-31 23:59:59'), Recorder: D.d8, Recorder_Type: SALE_TYPE }),
      balanceAndTurnover(W.w1, P.p1, 6, 6, 0, { Period: at('2024-04-01 00:00:00'), Recorder: D.d9, Recorder_Type: RECEIPT_TYPE }),
    ],
  },
  // --- SliceLast, SliceFirst -------------------------------------------------------------------------
  {
    name: 'SliceLast(): the latest record per dimension combination',
    function: 'SliceLast',
    path: `${PRICES}/SliceLast()`,
    rows: [
      price('2024-01-15 00:00:00', P.p1, 'Wholesale', 8),
      price('2024-02-10 00:00:00', P.p2, 'Retail', 20),
      price('2024-03-01 00:00:00', P.p1, 'Retail', 12),
    ],
  },
  {
    name: 'a record at exactly Period is in SliceLast',
    function: 'SliceLast',
    path: `${PRICES}/SliceLast(Period=datetime'2024-02-01T00:00:00')`,
    rows: [price('2024-01-15 00:00:00', P.p1, 'Wholesale', 8), price('2024-02-01 00:00:00', P.p1, 'Retail', 11)],
  },
  {
    name: 'SliceLast one second before',
    function: 'SliceLast',
    path: `${PRICES}/SliceLast(Period=datetime'2024-01-31T23:59:59')`,
    rows: [price('2024-01-01 00:00:00', P.p1, 'Retail', 10), price('2024-01-15 00:00:00', P.p1, 'Wholesale', 8)],
  },
  {
    name: 'SliceLast with a Condition, in the query string',
    function: 'SliceLast',
    path: `${PRICES}/StandardODATA.SliceLast()?Period=datetime'2024-02-15T00:00:00'&Condition='PriceType eq ''Retail'''`,
    rows: [price('2024-02-01 00:00:00', P.p1, 'Retail', 11), price('2024-02-10 00:00:00', P.p2, 'Retail', 20)],
  },
  {
    name: 'SliceLast over some dimensions: per product, the records at its latest period',
    function: 'SliceLast',
    path: `${PRICES}/SliceLast(Period=datetime'2024-02-15T00:00:00',Dimensions='Product')`,
    rows: [price('2024-02-01 00:00:00', P.p1, 'Retail', 11), price('2024-02-10 00:00:00', P.p2, 'Retail', 20)],
  },
  {
    name: 'SliceFirst: the least period at or after Period (the Wholesale record is at exactly Period)',
    function: 'SliceFirst',
    path: `${PRICES}/SliceFirst(Period=datetime'2024-01-15T00:00:00')`,
    rows: [
      price('2024-01-15 00:00:00', P.p1, 'Wholesale', 8),
      price('2024-02-01 00:00:00', P.p1, 'Retail', 11),
      price('2024-02-10 00:00:00', P.p2, 'Retail', 20),
    ],
  },
  {
    name: 'a register with Cyrillic names (exchange rates), the Condition on a Cyrillic dimension',
    function: 'SliceLast',
    path: `InformationRegister_КурсыВалют/SliceLast(Period=datetime'2024-03-01T00:00:00',Condition='Валюта eq ''USD''')`,
    rows: [{ Period: at('2024-02-01 00:00:00'), Валюта: 'USD', Курс: 91.25, Кратность: 1 }],
  },
  {
    name: 'SliceFirst(): the earliest',
    function: 'SliceFirst',
    path: `${PRICES}/SliceFirst()`,
    rows: [
      price('2024-01-01 00:00:00', P.p1, 'Retail', 10),
      price('2024-01-15 00:00:00', P.p1, 'Wholesale', 8),
      price('2024-02-10 00:00:00', P.p2, 'Retail', 20),
    ],
  },
  // --- Accounting registers (accounting-cases.ts) ---------------------------------------------------
  ...ACCOUNTING_CASES,
]
