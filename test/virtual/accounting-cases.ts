// The accounting register's cases of the one case table (virtual-table-cases.ts): calls against the
// entries of support/virtual-fixture.ts (ENTRIES) and the rows they must give, worked out by hand (the
// comment of each case shows the arithmetic). Account types: 41 Active, 51 Active, 60 Passive, 62
// Active, 90 ActivePassive. An Active account's balance shows in Dr (also when negative), a Passive
// one's in Cr, an ActivePassive one's on the side of its sign, per row.
//
// Rows come in the default order, the grouping key: account keys are name-based GUIDs, which sort as
// 60 < 90 < 62 < 41 < 51.
import { A, C, COUNTERPARTY_TYPE, D, O, P, PRODUCT_TYPE, WAREHOUSE_TYPE, W } from './support/virtual-fixture.js'
import type { VirtualTableCase } from './virtual-table-cases.js'

const EMPTY = '00000000-0000-0000-0000-000000000000'
const MAIN = 'AccountingRegister_Main'
const at = (stored: string) => `${stored.replace(' ', 'T')}Z`

/** ExtDimension1..3 with their types; missing ones empty. */
const ext = (...values: (readonly [string, string])[]) =>
  Object.fromEntries(
    [0, 1, 2].flatMap((i) => [
      [`ExtDimension${i + 1}`, values[i]?.[0] ?? EMPTY],
      [`ExtDimension${i + 1}_Type`, values[i]?.[1] ?? ''],
    ]),
  )
const product = (p: string) => [p, PRODUCT_TYPE] as const
const warehouse = (w: string) => [w, WAREHOUSE_TYPE] as const
const counterparty = (c: string) => [c, COUNTERPARTY_TYPE] as const

/** A Balance row: [balance, Dr, Cr] of Amount and of Quantity. */
const balanceRow = (
  account: string,
  extValues: Record<string, string>,
  organization: string,
  amount: [number, number, number],
  quantity: [number, number, number],
) => ({
  Account_Key: account,
  ...extValues,
  Organization_Key: organization,
  AmountBalance: amount[0],
  AmountBalanceDr: amount[1],
  AmountBalanceCr: amount[2],
  QuantityBalance: quantity[0],
  QuantityBalanceDr: quantity[1],
  QuantityBalanceCr: quantity[2],
})

export const ACCOUNTING_CASES: readonly VirtualTableCase[] = [
  {
    // 60/C2: credit 50 → −50, passive: Cr 50 (60/C1: 100 − 100 = 0, left out). 90/P1: credit 80, debit 40 →
    // −40, active-passive: Cr 40; its quantity 4 − 4 = 0. 90/P2 (O2): −30 → Cr 30, quantity −1 → Cr 1.
    // 90/P3: +25 → Dr 25. 62/C2 (O2): +30 (62/C1: 80 − 80 = 0, left out). 41/P1/W1: 100 − 40 = 60,
    // quantity 10 − 4; 41/P2/W1: 50, quantity 5. 51: 80 − 100 − 25 = −45, active: Dr −45.
    name: 'accounting Balance() of everything: per account, extra dimensions and organization; sides by account type',
    function: 'Balance',
    path: `${MAIN}/Balance()`,
    rows: [
      balanceRow(A.a60, ext(counterparty(C.c2)), O.o1, [-50, 0, 50], [0, 0, 0]),
      balanceRow(A.a90, ext(product(P.p1)), O.o1, [-40, 0, 40], [0, 0, 0]),
      balanceRow(A.a90, ext(product(P.p2)), O.o2, [-30, 0, 30], [-1, 0, 1]),
      balanceRow(A.a90, ext(product(P.p3)), O.o1, [25, 25, 0], [0, 0, 0]),
      balanceRow(A.a62, ext(counterparty(C.c2)), O.o2, [30, 30, 0], [0, 0, 0]),
      balanceRow(A.a41, ext(product(P.p1), warehouse(W.w1)), O.o1, [60, 60, 0], [6, 6, 0]),
      balanceRow(A.a41, ext(product(P.p2), warehouse(W.w1)), O.o1, [50, 50, 0], [5, 5, 0]),
      balanceRow(A.a51, ext(), O.o1, [-45, -45, 0], [0, 0, 0]),
    ],
  },
  {
    // Amount is balanced: every entry debits and credits the same amount, so the total is 0. The sides are
    // each account's own as a whole (no extra dimension groups), summed: 60 −50 (Cr 50), 90 −45 (Cr 45),
    // 62 +30, 41 +110, 51 −45 (Dr, active) → Dr 30 + 110 − 45 = 95, Cr 50 + 45 = 95.
    name: 'accounting Balance() grouped by nothing: one row, the balanced resource totals 0',
    function: 'Balance',
    path: `${MAIN}/Balance()?$select=AmountBalance,AmountBalanceDr,AmountBalanceCr`,
    rows: [{ AmountBalance: 0, AmountBalanceDr: 95, AmountBalanceCr: 95 }],
  },
  {
    // Before the sale at exactly 2024-02-01: the two receipts only.
    name: 'accounting Balance at a moment excludes the entry at exactly Period',
    function: 'Balance',
    path: `${MAIN}/Balance(Period=datetime'2024-02-01T00:00:00')?$select=Account_Key,ExtDimension1,AmountBalance,AmountBalanceDr,AmountBalanceCr,QuantityBalanceDr`,
    rows: [
      { Account_Key: A.a60, ExtDimension1: C.c1, AmountBalance: -100, AmountBalanceDr: 0, AmountBalanceCr: 100, QuantityBalanceDr: 0 },
      { Account_Key: A.a60, ExtDimension1: C.c2, AmountBalance: -50, AmountBalanceDr: 0, AmountBalanceCr: 50, QuantityBalanceDr: 0 },
      { Account_Key: A.a41, ExtDimension1: P.p1, AmountBalance: 100, AmountBalanceDr: 100, AmountBalanceCr: 0, QuantityBalanceDr: 10 },
      { Account_Key: A.a41, ExtDimension1: P.p2, AmountBalance: 50, AmountBalanceDr: 50, AmountBalanceCr: 0, QuantityBalanceDr: 5 },
    ],
  },
  {
    // 51 before 2024-03-11 00:00:00: the payment of 100 to the supplier (the customer's 80 at exactly that
    // instant is excluded); an active account overdrawn shows −100 in Dr.
    name: 'AccountCondition by code; an active account overdrawn shows a negative Dr balance',
    function: 'Balance',
    path: `${MAIN}/Balance(Period=datetime'2024-03-11T00:00:00',AccountCondition='Code eq ''51''')?$select=Account_Key,AmountBalance,AmountBalanceDr,AmountBalanceCr`,
    rows: [{ Account_Key: A.a51, AmountBalance: -100, AmountBalanceDr: -100, AmountBalanceCr: 0 }],
  },
  {
    // 90 as a whole: −40 − 30 + 25 = −45, on the credit side; per product (the next case) the balance is
    // detailed: Cr 40, Cr 30 and Dr 25.
    name: 'an active-passive account as a whole: its balance on the side of its sign',
    function: 'Balance',
    path: `${MAIN}/Balance(AccountCondition='Code eq ''90''')?$select=Account_Key,AmountBalance,AmountBalanceDr,AmountBalanceCr`,
    rows: [{ Account_Key: A.a90, AmountBalance: -45, AmountBalanceDr: 0, AmountBalanceCr: 45 }],
  },
  {
    name: 'ExtraDimensions by kind: ExtDimension1 is the product wherever the account keeps it; an active-passive balance detailed per product',
    function: 'Balance',
    path: `${MAIN}/Balance(ExtraDimensions='Products',AccountCondition='Code in (''41'',''90'')')?$select=Account_Key,ExtDimension1,AmountBalance,AmountBalanceDr,AmountBalanceCr,QuantityBalance`,
    rows: [
      { Account_Key: A.a90, ExtDimension1: P.p1, AmountBalance: -40, AmountBalanceDr: 0, AmountBalanceCr: 40, QuantityBalance: 0 },
      { Account_Key: A.a90, ExtDimension1: P.p2, AmountBalance: -30, AmountBalanceDr: 0, AmountBalanceCr: 30, QuantityBalance: -1 },
      { Account_Key: A.a90, ExtDimension1: P.p3, AmountBalance: 25, AmountBalanceDr: 25, AmountBalanceCr: 0, QuantityBalance: 0 },
      { Account_Key: A.a41, ExtDimension1: P.p1, AmountBalance: 60, AmountBalanceDr: 60, AmountBalanceCr: 0, QuantityBalance: 6 },
      { Account_Key: A.a41, ExtDimension1: P.p2, AmountBalance: 50, AmountBalanceDr: 50, AmountBalanceCr: 0, QuantityBalance: 5 },
    ],
  },
  {
    // Counterparties: only 60 and 62 keep them; the other accounts have the empty value. Per account first,
    // then summed per counterparty. Empty: 41 (60 + 50 = 110, Dr), 51 (−45, Dr), 90 (−45, Cr) → 20, Dr 65,
    // Cr 45. C1: 60 and 62 both at 0, left out. C2: 60 −50 (Cr 50) and 62 +30 (Dr 30) → −20, Dr 30, Cr 50.
    name: 'grouped by an extra dimension of a kind, across accounts: each account on its own side, summed',
    function: 'Balance',
    path: `${MAIN}/Balance(ExtraDimensions='Counterparties')?$select=ExtDimension1,ExtDimension1_Type,AmountBalance,AmountBalanceDr,AmountBalanceCr`,
    rows: [
      { ExtDimension1: EMPTY, ExtDimension1_Type: '', AmountBalance: 20, AmountBalanceDr: 65, AmountBalanceCr: 45 },
      { ExtDimension1: C.c2, ExtDimension1_Type: COUNTERPARTY_TYPE, AmountBalance: -20, AmountBalanceDr: 30, AmountBalanceCr: 50 },
    ],
  },
  {
    // February, a whole month (from the totals): the sale (62 Dr 80 / 90 Cr 80, QuantityCr 4) and its cost
    // (90 Dr 40, QuantityDr 4 / 41 Cr 40, QuantityCr 4); the inactive 999 never counts.
    name: 'accounting Turnovers by month: Dr, Cr and Dr − Cr; balanced and non-balanced resources',
    function: 'Turnovers',
    path: `${MAIN}/Turnovers(StartPeriod=datetime'2024-02-01T00:00:00',EndPeriod=datetime'2024-02-29T23:59:59',Periodicity='Month')?$select=MonthPeriod,Account_Key,AmountTurnover,AmountTurnoverDr,AmountTurnoverCr,QuantityTurnoverDr,QuantityTurnoverCr`,
    rows: [
      {
        MonthPeriod: at('2024-02-01 00:00:00'),
        Account_Key: A.a90,
        AmountTurnover: -40,
        AmountTurnoverDr: 40,
        AmountTurnoverCr: 80,
        QuantityTurnoverDr: 4,
        QuantityTurnoverCr: 4,
      },
      {
        MonthPeriod: at('2024-02-01 00:00:00'),
        Account_Key: A.a62,
        AmountTurnover: 80,
        AmountTurnoverDr: 80,
        AmountTurnoverCr: 0,
        QuantityTurnoverDr: 0,
        QuantityTurnoverCr: 0,
      },
      {
        MonthPeriod: at('2024-02-01 00:00:00'),
        Account_Key: A.a41,
        AmountTurnover: -40,
        AmountTurnoverDr: 0,
        AmountTurnoverCr: 40,
        QuantityTurnoverDr: 0,
        QuantityTurnoverCr: 4,
      },
    ],
  },
  {
    // 51 against each corresponding account: paid 100 to 60, received 80 from 62, paid 25 for 90.
    name: 'accounting Turnovers by corresponding account',
    function: 'Turnovers',
    path: `${MAIN}/Turnovers(AccountCondition='Code eq ''51''')?$select=Account_Key,BalancedAccount_Key,AmountTurnoverDr,AmountTurnoverCr`,
    rows: [
      { Account_Key: A.a51, BalancedAccount_Key: A.a60, AmountTurnoverDr: 0, AmountTurnoverCr: 100 },
      { Account_Key: A.a51, BalancedAccount_Key: A.a90, AmountTurnoverDr: 0, AmountTurnoverCr: 25 },
      { Account_Key: A.a51, BalancedAccount_Key: A.a62, AmountTurnoverDr: 80, AmountTurnoverCr: 0 },
    ],
  },
  {
    // Sales credited to 90 against 62, per customer: C1 80 (QuantityCr 4), C2 30 (QuantityCr 1).
    name: 'BalancedAccountCondition and BalancedExtraDimensions',
    function: 'Turnovers',
    path: `${MAIN}/Turnovers(AccountCondition='Code eq ''90''',BalancedAccountCondition='Code eq ''62''',BalancedExtraDimensions='Counterparties')?$select=BalancedExtDimension1,AmountTurnoverCr,QuantityTurnoverCr`,
    rows: [
      { BalancedExtDimension1: C.c1, AmountTurnoverCr: 80, QuantityTurnoverCr: 4 },
      { BalancedExtDimension1: C.c2, AmountTurnoverCr: 30, QuantityTurnoverCr: 1 },
    ],
  },
  {
    // The sides whose own first extra dimension is P1: 90/P1 (Dr 40, Cr 80) and 41/P1 (Dr 100, Cr 40).
    name: 'accounting Turnovers with a Condition on an extra dimension',
    function: 'Turnovers',
    path: `${MAIN}/Turnovers(Condition='ExtDimension1 eq guid''${P.p1}''')?$select=Account_Key,AmountTurnoverDr,AmountTurnoverCr`,
    rows: [
      { Account_Key: A.a90, AmountTurnoverDr: 40, AmountTurnoverCr: 80 },
      { Account_Key: A.a41, AmountTurnoverDr: 100, AmountTurnoverCr: 40 },
    ],
  },
  {
    // From 1 February (the sale at that instant is a turnover) to the end of March. 90/P1: nothing before,
    // Dr 40, Cr 80, closing −40 on Cr. 51: Dr 80, Cr 100, closing −20, active: Dr −20.
    name: 'accounting BalanceAndTurnovers: opening, Dr and Cr turnovers, closing on its side',
    function: 'BalanceAndTurnovers',
    path: `${MAIN}/BalanceAndTurnovers(StartPeriod=datetime'2024-02-01T00:00:00',EndPeriod=datetime'2024-03-31T23:59:59',AccountCondition='Code in (''51'',''90'')',ExtraDimensions='Products')?$select=Account_Key,ExtDimension1,AmountOpeningBalance,AmountTurnoverDr,AmountTurnoverCr,AmountClosingBalance,AmountClosingBalanceDr,AmountClosingBalanceCr`,
    rows: [
      {
        Account_Key: A.a90,
        ExtDimension1: P.p1,
        AmountOpeningBalance: 0,
        AmountTurnoverDr: 40,
        AmountTurnoverCr: 80,
        AmountClosingBalance: -40,
        AmountClosingBalanceDr: 0,
        AmountClosingBalanceCr: 40,
      },
      {
        Account_Key: A.a51,
        ExtDimension1: EMPTY,
        AmountOpeningBalance: 0,
        AmountTurnoverDr: 80,
        AmountTurnoverCr: 100,
        AmountClosingBalance: -20,
        AmountClosingBalanceDr: -20,
        AmountClosingBalanceCr: 0,
      },
    ],
  },
  {
    // 41 from 15 January by month (the account always groups with a periodicity). P2: the receipt of 50 on
    // 31 January, its month clamped to StartPeriod. P1: 100 before the start, the cost of 40 credited in
    // February; quantity 10 − 4 = 6 on Dr.
    name: 'accounting BalanceAndTurnovers by month, the first period clamped to StartPeriod',
    function: 'BalanceAndTurnovers',
    path: `${MAIN}/BalanceAndTurnovers(StartPeriod=datetime'2024-01-15T00:00:00',Periodicity='Month',AccountCondition='Code eq ''41''')?$select=MonthPeriod,ExtDimension1,AmountOpeningBalance,AmountTurnoverDr,AmountTurnoverCr,AmountClosingBalance,QuantityClosingBalanceDr`,
    rows: [
      {
        MonthPeriod: at('2024-01-15 00:00:00'),
        ExtDimension1: P.p2,
        AmountOpeningBalance: 0,
        AmountTurnoverDr: 50,
        AmountTurnoverCr: 0,
        AmountClosingBalance: 50,
        QuantityClosingBalanceDr: 5,
      },
      {
        MonthPeriod: at('2024-02-01 00:00:00'),
        ExtDimension1: P.p1,
        AmountOpeningBalance: 100,
        AmountTurnoverDr: 0,
        AmountTurnoverCr: 40,
        AmountClosingBalance: 60,
        QuantityClosingBalanceDr: 6,
      },
    ],
  },
  {
    name: 'ExtDimensions(): the kinds of every account, by position',
    function: 'ExtDimensions',
    path: `${MAIN}/ExtDimensions()`,
    rows: [
      { Account_Key: A.a60, LineNumber: 1, ExtDimensionType: 'Counterparties', ExtDimensionType_Type: COUNTERPARTY_TYPE },
      { Account_Key: A.a90, LineNumber: 1, ExtDimensionType: 'Products', ExtDimensionType_Type: PRODUCT_TYPE },
      { Account_Key: A.a62, LineNumber: 1, ExtDimensionType: 'Counterparties', ExtDimensionType_Type: COUNTERPARTY_TYPE },
      { Account_Key: A.a41, LineNumber: 1, ExtDimensionType: 'Products', ExtDimensionType_Type: PRODUCT_TYPE },
      { Account_Key: A.a41, LineNumber: 2, ExtDimensionType: 'Warehouses', ExtDimensionType_Type: WAREHOUSE_TYPE },
    ],
  },
  {
    name: 'ExtDimensions() of one account, chosen with $filter through the account',
    function: 'ExtDimensions',
    path: `${MAIN}/StandardODATA.ExtDimensions()?$filter=Account/Code eq '41'&$select=LineNumber,ExtDimensionType`,
    rows: [
      { LineNumber: 1, ExtDimensionType: 'Products' },
      { LineNumber: 2, ExtDimensionType: 'Warehouses' },
    ],
  },
  {
    // The sale at exactly StartPeriod, the inactive entry left out, the payment at the last second of EndPeriod.
    name: 'RecordsWithExtDimensions: the active entries of the range, in time order',
    function: 'RecordsWithExtDimensions',
    path: `${MAIN}/RecordsWithExtDimensions(StartPeriod=datetime'2024-02-01T00:00:00',EndPeriod=datetime'2024-03-10T23:59:59')?$select=Period,Recorder,AccountDr_Key,ExtDimensionDr1,AccountCr_Key,ExtDimensionCr1,Amount,QuantityCr`,
    rows: [
      {
        Period: at('2024-02-01 00:00:00'),
        Recorder: D.d3,
        AccountDr_Key: A.a62,
        ExtDimensionDr1: C.c1,
        AccountCr_Key: A.a90,
        ExtDimensionCr1: P.p1,
        Amount: 80,
        QuantityCr: 4,
      },
      {
        Period: at('2024-02-29 08:00:00'),
        Recorder: D.d5,
        AccountDr_Key: A.a90,
        ExtDimensionDr1: P.p1,
        AccountCr_Key: A.a41,
        ExtDimensionCr1: P.p1,
        Amount: 40,
        QuantityCr: 4,
      },
      {
        Period: at('2024-03-10 23:59:59'),
        Recorder: D.d6,
        AccountDr_Key: A.a60,
        ExtDimensionDr1: C.c1,
        AccountCr_Key: A.a51,
        ExtDimensionCr1: EMPTY,
        Amount: 100,
        QuantityCr: 0,
      },
    ],
  },
  {
    // The Condition keeps d1, d2 (debit 41), d8 (30) and d9 (25); Top keeps the first two in time order;
    // Order is checked, not applied.
    name: 'RecordsWithExtDimensions: a Condition on an account and a resource, Top, Order',
    function: 'RecordsWithExtDimensions',
    path: `${MAIN}/RecordsWithExtDimensions(Top=2,Order='Period desc',Condition='AccountDr_Key eq guid''${A.a41}'' or Amount le 30')?$select=Recorder,Amount`,
    rows: [
      { Recorder: D.d1, Amount: 100 },
      { Recorder: D.d2, Amount: 50 },
    ],
  },
]
