// Property: for random entries of the accounting register and random calls of Balance, Turnovers and
// BalanceAndTurnovers — bounds on entries, month starts and random instants, every periodicity,
// AccountCondition and BalancedAccountCondition, ExtraDimensions and BalancedExtraDimensions by kind,
// Dimensions, $select-driven grouping with and without the account, Conditions on an extra dimension or
// a dimension — the service's answer equals the same aggregation computed in plain TypeScript from the
// entries (support/accounting-reference.ts). Seeded (ACCOUNTING_SEED to replay, ACCOUNTING_CALLS for more).
import t from 'tap'
import { accountRefKey } from '../../src/model/account-key.js'
import { PERIODICITIES, type Periodicity } from '../../src/model/virtual-tables.js'
import { Random } from '../../src/seed/random.js'
import { recomputeTotals } from '../../src/store/totals-rebuild.js'
import { balanceSide } from '../../src/virtual/accumulation-parts.js'
import { periodColumnsOf } from '../../src/virtual/period-columns.js'
import { addSeconds, nextPeriodStart, periodStart } from '../../src/virtual/period-start.js'
import { startTestService } from '../support/test-service.js'
import { compareAnswer } from './support/compare-answer.js'
import * as accounting from './support/accounting-reference.js'
import { ENTRY_COLUMNS } from './support/virtual-fixture.js'

const seed = Number(process.env.ACCOUNTING_SEED ?? 20240415)
const CALLS = Number(process.env.ACCOUNTING_CALLS ?? 200)
const random = new Random(seed)
const service = await startTestService('virtual_accounting_property')
t.teardown(() => service.close())
const pool = service.database.pool
const model = service.model

// The chart as the configuration declares it: accounts, their types and kinds (no name appears here).
const chartConfig = model.configuration.chartsOfAccounts![0]!
const kindType = new Map(chartConfig.extDimensionKinds.map((k) => [k.name, `${model.namespace}.Catalog_${k.catalog}`] as const))
const chart: accounting.ChartView = {
  accounts: new Map(
    chartConfig.accounts.map((a) => [accountRefKey(chartConfig.name, a.code), { type: a.type, kinds: a.extDimensions ?? [] }] as const),
  ),
  maxExt: chartConfig.maxExtDimensions ?? 3,
}
const accounts = chartConfig.accounts.map((a) => ({
  key: accountRefKey(chartConfig.name, a.code),
  code: a.code,
  kinds: a.extDimensions ?? [],
}))
const kinds = chartConfig.extDimensionKinds.map((k) => k.name)
const guid = (group: number, n: number) => `${String(group).padStart(8, '0')}-0000-4000-8000-${String(n).padStart(12, '0')}`
/** Three values per kind of extra dimension. */
const valuesOf = new Map(kinds.map((kind, k) => [kind, [1, 2, 3].map((n) => guid(10 + k, n))] as const))
const organizations = [guid(4, 1), guid(4, 2)]

// --- data -----------------------------------------------------------------------------------------

const stored = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ')
const FROM = Date.UTC(2023, 10, 1)
const TO = Date.UTC(2024, 5, 1)
function moment(): string {
  const instant = stored(FROM + Math.floor((random.next() * (TO - FROM)) / 1000) * 1000)
  switch (random.int(0, 6)) {
    case 0:
      return periodStart('Month', instant)
    case 1:
      return addSeconds(nextPeriodStart('Month', periodStart('Month', instant)), -1)
    case 2:
      return periodStart('Day', instant)
    default:
      return instant
  }
}
const side = (): accounting.EntrySideValue => {
  const account = random.pick(accounts)
  return {
    account: account.key,
    ext: account.kinds.map((kind) => ({ value: random.pick(valuesOf.get(kind)!), type: kindType.get(kind)! })),
  }
}
const entries: accounting.RandomEntry[] = []
for (let n = 1; n <= 220; n++) {
  const period = moment()
  const lines = random.int(1, 2)
  for (let line = 1; line <= lines; line++) {
    entries.push({
      recorder: guid(9, n),
      recorderType: random.next() < 0.5 ? 'StandardODATA.Document_GoodsReceipt' : 'StandardODATA.Document_GoodsSale',
      line,
      period,
      active: random.next() < 0.85,
      dr: side(),
      cr: side(),
      organization: random.pick(organizations),
      amount: random.int(1, 90_000) * 10,
      quantityDr: random.next() < 0.5 ? random.int(1, 50_000) : 0,
      quantityCr: random.next() < 0.5 ? random.int(1, 50_000) : 0,
    })
  }
}
const EMPTY = '00000000-0000-0000-0000-000000000000'
const extOf = (s: accounting.EntrySideValue) => [0, 1, 2].flatMap((i) => [s.ext[i]?.value ?? EMPTY, s.ext[i]?.type ?? ''])
const decimal = (thousandths: number, scale: number) => (thousandths / 1000).toFixed(scale)
await pool.query(`INSERT INTO acr_Main (${ENTRY_COLUMNS.map((c) => `\`${c}\``).join(', ')}) VALUES ?`, [
  entries.map((e) => [
    e.recorder,
    e.recorderType,
    e.line,
    e.period,
    e.active ? 1 : 0,
    e.dr.account,
    ...extOf(e.dr),
    e.cr.account,
    ...extOf(e.cr),
    e.organization,
    decimal(e.amount, 2),
    decimal(e.quantityDr, 3),
    decimal(e.quantityCr, 3),
    '',
  ]),
])
await recomputeTotals(pool, model)
const [[range]] = (await pool.query({
  sql: "SELECT MIN(Period), MAX(Period) FROM acr_Main__totals WHERE Period < '9999-12-31'",
  rowsAsArray: true,
})) as unknown as [[[string, string]]]
const balanceSides = new Set<string>()

// --- calls ----------------------------------------------------------------------------------------

function bound(): string {
  switch (random.int(0, 3)) {
    case 0:
      return random.pick(entries).period
    case 1:
      return addSeconds(random.pick(entries).period, random.pick([-1, 1]))
    default:
      return moment()
  }
}
const literal = (value: string) => `datetime'${value.replace(' ', 'T')}'`
const subset = <T>(list: readonly T[]) => list.filter(() => random.next() < 0.5)
const shuffled = <T>(list: readonly T[]) => [...list].sort(() => random.next() - 0.5)

const covered = new Set<string>()
t.test(`${CALLS} random accounting calls equal the plain computation (seed ${seed})`, async (t) => {
  for (let i = 0; i < CALLS; i++) {
    const fn = random.pick(['Balance', 'Turnovers', 'BalanceAndTurnovers'] as const)
    const parameters: string[] = []
    const query: string[] = []
    const chosenKinds = random.next() < 0.35 ? shuffled(kinds).slice(0, random.int(0, Math.min(3, kinds.length))) : undefined
    if (chosenKinds !== undefined) parameters.push(`ExtraDimensions='${chosenKinds.join(',')}'`)
    const balancedKinds = fn === 'Turnovers' && random.next() < 0.3 ? shuffled(kinds).slice(0, random.int(1, 2)) : undefined
    if (balancedKinds !== undefined) parameters.push(`BalancedExtraDimensions='${balancedKinds.join(',')}'`)
    const movements = accounting.sides(entries, chart, chosenKinds, balancedKinds)

    // Account conditions: one code, or a list.
    let accountFilter: (m: { dimensions: Readonly<Record<string, string>> }) => boolean = () => true
    if (random.next() < 0.35) {
      const chosen = subset(accounts).slice(0, 3)
      const keys = new Set(chosen.map((a) => a.key))
      parameters.push(
        chosen.length === 1
          ? `AccountCondition='Code eq ''${chosen[0]!.code}'''`
          : `AccountCondition='Code in (${chosen.map((a) => `''${a.code}''`).join(',') || `''none''`})'`,
      )
      accountFilter = (m) => keys.has(m.dimensions.Account_Key!)
    }
    let balancedFilter: (m: { dimensions: Readonly<Record<string, string>> }) => boolean = () => true
    if (fn === 'Turnovers' && random.next() < 0.25) {
      const chosen = random.pick(accounts)
      parameters.push(`BalancedAccountCondition='Code eq ''${chosen.code}'''`)
      balancedFilter = (m) => m.dimensions.BalancedAccount_Key === chosen.key
    }
    const extCount = chosenKinds?.length ?? chart.maxExt
    let conditionHolds: (m: { dimensions: Readonly<Record<string, string>> }) => boolean = () => true
    const conditionChoice = random.int(0, 3)
    if (conditionChoice === 0) {
      const organization = random.pick(organizations)
      parameters.push(`Condition='Organization_Key eq guid''${organization}'''`)
      conditionHolds = (m) => m.dimensions.Organization_Key === organization
    } else if (conditionChoice === 1 && extCount > 0) {
      const value = random.pick([...valuesOf.values()].flat())
      parameters.push(`Condition='ExtDimension1 ne ${value}'`)
      conditionHolds = (m) => m.dimensions.ExtDimension1 !== value
    }

    const groupable = [
      'Account_Key',
      ...Array.from({ length: extCount }, (_, j) => `ExtDimension${j + 1}`),
      ...(fn === 'Turnovers'
        ? [
            'BalancedAccount_Key',
            ...Array.from({ length: balancedKinds?.length ?? chart.maxExt }, (_, j) => `BalancedExtDimension${j + 1}`),
          ]
        : []),
      'Organization_Key',
    ]
    const periodicity: Periodicity | undefined = fn === 'Balance' || random.next() < 0.35 ? undefined : random.pick(PERIODICITIES)
    if (periodicity !== undefined) parameters.push(`Periodicity='${periodicity}'`)
    const periodColumns = periodColumnsOf(periodicity)
    const grouping = random.int(0, 2)
    let group = groupable
    if (grouping === 0) {
      group = subset(groupable)
      parameters.push(`Dimensions='${group.join(',')}'`)
    } else if (grouping === 1) {
      group = subset(groupable)
    }
    // With a periodicity, BalanceAndTurnovers always groups by the account.
    if (fn === 'BalanceAndTurnovers' && periodicity !== undefined && !group.includes('Account_Key')) group = ['Account_Key', ...group]
    // A value column's type groups with it.
    const withTypes = groupable.flatMap((c) => (group.includes(c) ? (/ExtDimension\d+$/.test(c) ? [c, `${c}_Type`] : [c]) : []))
    const valueNames = accounting.VALUE_COLUMNS[fn]
    if (grouping === 1) query.push(`$select=${[...periodColumns, ...group, ...valueNames].join(',')}`)

    let period: string | undefined
    let start: string | undefined
    let end: string | undefined
    if (fn === 'Balance') {
      period = random.next() < 0.85 ? bound() : undefined
      if (period !== undefined) {
        parameters.push(`Period=${literal(period)}`)
        balanceSides.add(balanceSide(period, { first: range[0], last: range[1] }))
      }
    } else {
      start = random.next() < 0.8 ? bound() : undefined
      end = random.next() < 0.8 ? bound() : undefined
      if (start !== undefined && end !== undefined && start > end) [start, end] = [end, start]
      if (start !== undefined) parameters.push(`StartPeriod=${literal(start)}`)
      if (end !== undefined) parameters.push(`EndPeriod=${literal(end)}`)
    }
    const call: accounting.AccountingCall = {
      group: withTypes,
      accountGrouped: withTypes.includes('Account_Key'),
      condition: (m) => accountFilter(m) && balancedFilter(m) && conditionHolds(m),
      ...(period !== undefined ? { period } : {}),
      ...(start !== undefined ? { start } : {}),
      ...(end !== undefined ? { end } : {}),
      ...(periodicity !== undefined ? { periodicity } : {}),
    }
    const expected =
      fn === 'Balance'
        ? accounting.balance(movements, chart, call)
        : fn === 'Turnovers'
          ? accounting.turnovers(movements, call)
          : accounting.balanceAndTurnovers(movements, chart, periodColumns, call)
    // The result shows the columns $select names; without it, every filled column (types too).
    const shown = (row: Record<string, unknown>) =>
      grouping === 1
        ? Object.fromEntries(Object.entries(row).filter(([k]) => [...periodColumns, ...group, ...valueNames].includes(k)))
        : row
    const path = `AccountingRegister_Main/${fn}(${parameters.join(',')})${query.length > 0 ? `?${query.join('&')}` : ''}`
    covered.add(`${fn}${periodicity === undefined ? '' : ' by period'}`)
    await compareAnswer(
      t,
      service,
      path,
      expected.map((row) => shown(row as Record<string, unknown>)),
      `call ${i}: ${path}`,
    )
  }
  t.ok(
    balanceSides.has('before') && balanceSides.has('after'),
    `balances were read from both sides of the totals (${[...balanceSides].join(', ')})`,
  )
  t.equal(covered.size, 5, `every function was called, with and without periods (${[...covered].join(', ')})`)
})
