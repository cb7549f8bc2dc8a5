// `$metadata` declares the accounting register's functions (service.md §4.2, decisions.md §6) with their
// parameters and result complex types, from the same signatures the calls are resolved against.
import t from 'tap'
import { buildMetadataJson } from '../../src/model/csdl.js'
import { loadModel } from '../../src/model/load-model.js'

interface FunctionOverload {
  readonly $Parameter: readonly { readonly $Name: string; readonly $Type: string }[]
}
const schema = JSON.parse(buildMetadataJson(loadModel('config/demo.json'))).StandardODATA as Record<
  string,
  Record<string, unknown> | FunctionOverload[]
>
const SET = 'AccountingRegister_Main'

/** The parameters (beyond the binding one) of the function bound to the accounting register. */
function parameters(fn: string): string[] {
  const overload = (schema[fn] as FunctionOverload[]).find((o) => o.$Parameter[0]!.$Type === `StandardODATA.${SET}`)!
  return overload.$Parameter.slice(1).map((p) => p.$Name)
}
const properties = (type: string) => Object.keys(schema[type] as Record<string, unknown>).filter((k) => !k.startsWith('$'))

t.test('parameters of each function', async (t) => {
  t.same(parameters('Balance'), ['Period', 'AccountCondition', 'Condition', 'ExtraDimensions', 'Dimensions'])
  t.same(parameters('Turnovers'), [
    'StartPeriod',
    'EndPeriod',
    'Periodicity',
    'AccountCondition',
    'BalancedAccountCondition',
    'ExtraDimensions',
    'BalancedExtraDimensions',
    'Condition',
    'Dimensions',
  ])
  t.same(parameters('BalanceAndTurnovers'), [
    'StartPeriod',
    'EndPeriod',
    'Periodicity',
    'AccountCondition',
    'ExtraDimensions',
    'Condition',
    'Dimensions',
  ])
  t.same(parameters('ExtDimensions'), [], 'ExtDimensions takes no parameters')
  t.same(parameters('RecordsWithExtDimensions'), ['StartPeriod', 'EndPeriod', 'Condition', 'Order', 'Top'])
})

t.test('result complex types: the columns of decisions.md §6', async (t) => {
  const balance = properties(`${SET}_Balance`)
  for (const name of [
    'Account_Key',
    'ExtDimension1',
    'ExtDimension3_Type',
    'Organization_Key',
    'AmountBalance',
    'AmountBalanceDr',
    'AmountBalanceCr',
    'QuantityBalance',
    'QuantityBalanceDr',
    'QuantityBalanceCr',
  ])
    t.ok(balance.includes(name), `Balance: ${name}`)
  const turnover = properties(`${SET}_Turnover`)
  for (const name of [
    'MonthPeriod',
    'Recorder',
    'Account_Key',
    'BalancedAccount_Key',
    'BalancedExtDimension1',
    'AmountTurnover',
    'AmountTurnoverDr',
    'AmountTurnoverCr',
    'QuantityTurnover',
    'QuantityTurnoverDr',
    'QuantityTurnoverCr',
  ])
    t.ok(turnover.includes(name), `Turnover: ${name}`)
  const both = properties(`${SET}_BalanceAndTurnover`)
  for (const name of [
    'AmountOpeningBalance',
    'AmountOpeningBalanceDr',
    'AmountOpeningBalanceCr',
    'AmountTurnover',
    'AmountTurnoverDr',
    'AmountTurnoverCr',
    'AmountClosingBalance',
    'AmountClosingBalanceDr',
    'AmountClosingBalanceCr',
  ])
    t.ok(both.includes(name), `BalanceAndTurnover: ${name}`)
  t.notOk(both.includes('BalancedAccount_Key'), 'no corresponding account in BalanceAndTurnovers')
  t.same(
    properties(`${SET}_ExtDimensions`).filter((p) => !['Account'].includes(p)),
    ['Account_Key', 'LineNumber', 'ExtDimensionType', 'ExtDimensionType_Type'],
  )
  const records = properties(`${SET}_RecordsWithExtDimensions`)
  for (const name of [
    'Period',
    'Recorder',
    'LineNumber',
    'AccountDr_Key',
    'ExtDimensionDr1',
    'AccountCr_Key',
    'ExtDimensionCr2_Type',
    'Amount',
    'QuantityDr',
    'QuantityCr',
    'Content',
  ])
    t.ok(records.includes(name), `RecordsWithExtDimensions: ${name}`)
})
