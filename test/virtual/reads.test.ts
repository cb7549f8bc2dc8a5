// What a call reads (accumulation-parts.ts): a balance reads the totals plus at most the movements of
// the current month; turnovers and BalanceAndTurnovers over whole months read totals only; a
// periodicity finer than a month, or a Condition on recorders, reads the movements. Checked on the SQL a
// call makes (no timings in tests: the benchmark measures), and the SQL run against the fixture. Values
// of a request never enter the text.
import t from 'tap'
import { loadModel } from '../../src/model/load-model.js'
import { parseFunctionParameters } from '../../src/odata/resource-path.js'
import type { ParsedReadOptions } from '../../src/service/read/parsed-read-options.js'
import { poolRunner } from '../../src/service/read/query-runner.js'
import { migrate } from '../../src/store/migrate.js'
import { prepareCall } from '../../src/virtual/virtual-table-call.js'
import { createTestDatabase } from '../support/test-database.js'
import { A, loadVirtualFixture } from './support/virtual-fixture.js'

const model = loadModel('config/demo.json')
const db = await createTestDatabase('virtual_reads')
t.teardown(() => db.drop())
await migrate(db.pool, model)
await loadVirtualFixture(db.pool, model)
const run = poolRunner(db.pool)
const NO_OPTIONS: ParsedReadOptions = {
  filter: null,
  orderBy: null,
  select: null,
  expand: null,
  apply: null,
  top: undefined,
  skip: undefined,
  count: false,
  skipToken: undefined,
  limits: {},
}

async function relation(setName: string, fn: string, parameters: string) {
  const set = model.entitySetByName.get(setName)!
  const signature = set.functions.find((f) => f.name === fn)!
  const { table, call } = prepareCall(
    model,
    { set, function: signature, parameters: parseFunctionParameters(parameters), count: false },
    new Map(),
    NO_OPTIONS,
  )
  const sql = await table.relation(call, run)
  const rows = (await db.pool.query({ sql: sql.text, rowsAsArray: true }, sql.parameters as never[]))[0] as unknown[][]
  return { text: sql.text, parameters: sql.parameters, rows }
}
const readsMovements = (text: string) => text.includes('`ar_Stock` AS') || text.includes('FROM `ar_Stock`')
const readsTotals = (text: string) => text.includes('`ar_Stock__totals`')

t.test('Balance() reads the all-time totals rows, one per group, ungrouped', async (t) => {
  const { text, parameters, rows } = await relation('AccumulationRegister_Stock', 'Balance', '')
  t.ok(readsTotals(text) && !readsMovements(text), text)
  t.notMatch(text, /GROUP BY/, 'every dimension: each all-time row is a group')
  t.same(parameters, ['9999-12-31'])
  t.equal(rows.length, 4)
})

t.test('Balance at a moment: totals of whole months and the movements of the current month only', async (t) => {
  const early = await relation('AccumulationRegister_Stock', 'Balance', "Period=datetime'2024-02-15T12:00:00'")
  t.ok(readsTotals(early.text) && readsMovements(early.text))
  t.same(
    early.parameters,
    ['2024-02-01', '2024-02-01 00:00:00', '2024-02-15 12:00:00'],
    'the months before February, then February up to the moment',
  )
  const late = await relation('AccumulationRegister_Stock', 'Balance', "Period=datetime'2024-06-20T00:00:00'")
  t.same(
    late.parameters,
    ['9999-12-31', '2024-07-01', '9999-12-31', '2024-06-20 00:00:00', '2024-07-01 00:00:00'],
    'all time, less the months from July, less the rest of June',
  )
  const monthStart = await relation('AccumulationRegister_Stock', 'Balance', "Period=datetime'2024-03-01T00:00:00'")
  t.notOk(readsMovements(monthStart.text), 'at a month start no movement is read')
})

t.test('turnovers of whole months read totals only; partial months and finer periods read movements', async (t) => {
  const year = await relation(
    'AccumulationRegister_Stock',
    'BalanceAndTurnovers',
    "StartPeriod=datetime'2024-01-01T00:00:00',EndPeriod=datetime'2024-12-31T23:59:59',Periodicity='Month'",
  )
  t.ok(readsTotals(year.text) && !readsMovements(year.text), 'a year by months: totals only')
  const quarter = await relation(
    'AccumulationRegister_Stock',
    'Turnovers',
    "StartPeriod=datetime'2024-01-01T00:00:00',EndPeriod=datetime'2024-03-31T23:59:59',Periodicity='Quarter'",
  )
  t.ok(!readsMovements(quarter.text), 'a quarter: totals only')
  const partial = await relation(
    'AccumulationRegister_Stock',
    'Turnovers',
    "StartPeriod=datetime'2024-01-15T00:00:00',EndPeriod=datetime'2024-03-31T23:59:59',Periodicity='Month'",
  )
  t.ok(readsTotals(partial.text) && readsMovements(partial.text))
  t.same(
    partial.parameters.filter((p) => String(p).startsWith('2024-0')),
    [
      '2024-01-15 00:00:00',
      '2024-02-01',
      '2024-04-01',
      '2024-01-15 00:00:00',
      '2024-01-15 00:00:00',
      '2024-02-01 00:00:00',
      '2024-01-15 00:00:00',
    ],
    'February and March from totals, 15–31 January from movements',
  )
  const days = await relation('AccumulationRegister_Stock', 'Turnovers', "Periodicity='Day'")
  t.ok(readsMovements(days.text) && !readsTotals(days.text), 'by day: movements')
  const byRecorder = await relation(
    'AccumulationRegister_Stock',
    'BalanceAndTurnovers',
    `StartPeriod=datetime'2024-03-01T00:00:00',Periodicity='Recorder',Condition='Recorder ne 00000005-0000-4000-8000-000000000006'`,
  )
  t.ok(readsMovements(byRecorder.text) && !readsTotals(byRecorder.text), 'a Condition on recorders cannot filter totals')
  t.equal(byRecorder.rows.length, 5, 'one row per recorder from 1 March but d6: d7, d8, d9, d10, d11')
  const sales = await relation('AccumulationRegister_Sales', 'Turnovers', "Periodicity='Month'")
  t.ok(!sales.text.includes('__totals'), 'a Turnovers-kind register keeps no totals')
})

t.test('Condition values are parameters, never text', async (t) => {
  // The expression compares with the string  x') OR 1=1 OR ('a' = 'a  — quotes doubled once for the
  // literal, once more for the Condition parameter.
  const expression = "Product/Description eq 'x'') OR 1=1 OR (''a'' = ''a'"
  const { text, parameters, rows } = await relation(
    'AccumulationRegister_Stock',
    'Balance',
    `Condition='${expression.replaceAll("'", "''")}'`,
  )
  t.notMatch(text, /OR 1=1/)
  t.ok(parameters.includes("x') OR 1=1 OR ('a' = 'a"), 'the whole literal is one value')
  t.equal(rows.length, 0)
  const [[count]] = (await db.pool.query({ sql: 'SELECT COUNT(*) FROM ar_Stock', rowsAsArray: true }))[0] as unknown[][]
  t.equal(Number(count), 12, 'the movements are still there')
})

const readsEntries = (text: string) => text.includes('FROM `acr_Main` AS')
const readsAccountingTotals = (text: string) => text.includes('`acr_Main__totals`')

t.test('accounting Balance() reads the all-time totals rows, one per group, ungrouped', async (t) => {
  const { text, parameters, rows } = await relation('AccountingRegister_Main', 'Balance', '')
  t.ok(readsAccountingTotals(text) && !readsEntries(text), text)
  t.notMatch(text, /GROUP BY/, 'every groupable column: each all-time row is a group')
  t.ok(parameters.includes('9999-12-31'))
  t.equal(rows.length, 8)
})

t.test('accounting Balance at a moment: totals of whole months and the entries of the current month only', async (t) => {
  const { text, parameters } = await relation('AccountingRegister_Main', 'Balance', "Period=datetime'2024-02-15T12:00:00'")
  t.ok(readsAccountingTotals(text) && readsEntries(text))
  t.same(
    parameters.filter((p) => String(p).startsWith('2024-')),
    ['2024-02-01', ...Array.from({ length: 3 }, () => ['2024-02-01 00:00:00', '2024-02-15 12:00:00']).flat()],
    'the months before February, then February up to the moment (inside each side of the entries, and on both)',
  )
  const monthStart = await relation('AccountingRegister_Main', 'Balance', "Period=datetime'2024-03-01T00:00:00'")
  t.notOk(readsEntries(monthStart.text), 'at a month start no entry is read')
})

t.test('accounting turnovers of whole months read totals only, unless the corresponding account is asked for', async (t) => {
  const year = await relation(
    'AccountingRegister_Main',
    'BalanceAndTurnovers',
    "StartPeriod=datetime'2024-01-01T00:00:00',EndPeriod=datetime'2024-12-31T23:59:59',Periodicity='Month'",
  )
  t.ok(readsAccountingTotals(year.text) && !readsEntries(year.text), 'a year by months: totals only')
  const quarter = await relation(
    'AccountingRegister_Main',
    'Turnovers',
    "StartPeriod=datetime'2024-01-01T00:00:00',EndPeriod=datetime'2024-03-31T23:59:59',Periodicity='Quarter',Dimensions='Account,ExtDimension1'",
  )
  t.ok(readsAccountingTotals(quarter.text) && !readsEntries(quarter.text), 'a quarter by account: totals only')
  const corresponding = await relation('AccountingRegister_Main', 'Turnovers', "Dimensions='Account,BalancedAccount'")
  t.ok(readsEntries(corresponding.text) && !readsAccountingTotals(corresponding.text), 'by corresponding account: the entries')
})

t.test('AccountCondition becomes a list of account keys, as parameters', async (t) => {
  const { text, parameters, rows } = await relation('AccountingRegister_Main', 'Balance', "AccountCondition='Code in (''41'',''62'')'")
  t.notMatch(text, /'41'|'62'/)
  t.ok(parameters.includes(A.a41) && parameters.includes(A.a62) && !parameters.includes(A.a90))
  t.equal(rows.length, 3, '41 twice (two products), 62 once')
})
