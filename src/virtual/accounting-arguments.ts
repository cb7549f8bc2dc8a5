// The parameters only accounting registers have (service.md §4.2, decisions.md §6):
//
// - `ExtraDimensions`, `BalancedExtraDimensions`: kinds of extra dimensions of the chart, by name
//   ('Products,Warehouses'), at most the chart's maximum. With them, `ExtDimension1…` of a result hold the
//   values of those kinds, in the order given, whatever position a kind has on each account (an account
//   without the kind gives the empty value); without them, the account's own positions. More kinds than
//   the maximum, an unknown kind, or one named twice is `400 InvalidParameter`.
// - `AccountCondition`, `BalancedAccountCondition`: an expression in the one language over the accounts of
//   the chart (`Code eq '41'`, `Code in ('41','62')`, `Ref_Key eq guid'…'`, `AccountType eq 'Active'`);
//   hierarchy is not modelled. Accounts are predefined by the configuration, so the expression is
//   evaluated once per call over the configuration's accounts and becomes a list of account keys that
//   the movements and totals are filtered by (an index seek on the account columns).
import { ODataError } from '../errors.js'
import type { QueryableSource } from '../odata/bind/queryable-source.js'
import type { VirtualTableArguments } from './virtual-table-arguments.js'
import { RecordCondition, type ConditionContext } from './condition.js'
import type { AccountingTables } from './register-tables.js'
import type { SqlRunner } from './sql-runner.js'
import { id, join, sql, type Statement } from '../sql/sql-template.js'

/** The kinds named by an ExtraDimensions parameter, checked against the chart; undefined when not given. */
export function chosenKinds(
  tables: AccountingTables,
  names: readonly string[] | undefined,
  parameter: string,
): readonly string[] | undefined {
  if (names === undefined) return undefined
  if (names.length > tables.maxExtDimensions) {
    throw new ODataError(
      'InvalidParameter',
      `${parameter} names ${names.length} kinds of extra dimensions; the chart allows at most ${tables.maxExtDimensions}`,
      { target: parameter },
    )
  }
  const known = tables.kinds.map((k) => k.name)
  const seen = new Set<string>()
  for (const name of names) {
    if (!known.includes(name))
      throw new ODataError(
        'InvalidParameter',
        `${name} is not a kind of extra dimension of ${tables.chart.name}; the kinds are ${known.join(', ')}`,
        { target: parameter },
      )
    if (seen.has(name)) throw new ODataError('InvalidParameter', `${parameter} names ${name} twice`, { target: parameter })
    seen.add(name)
  }
  return names
}

export function checkAccountingArguments(args: VirtualTableArguments, tables: AccountingTables): void {
  chosenKinds(tables, args.extraDimensions, 'ExtraDimensions')
  chosenKinds(tables, args.balancedExtraDimensions, 'BalancedExtraDimensions')
}

/** How many ExtDimension<N> columns a call fills: the kinds given, or the chart's maximum. */
export function extDimensionCount(tables: AccountingTables, kinds: readonly string[] | undefined): number {
  return kinds === undefined ? tables.maxExtDimensions : kinds.length
}

/** The accounts of the chart as a derived table with the chart's columns, made from the configuration. */
function accountRows(tables: AccountingTables): Statement {
  const columnValue = (account: AccountingTables['accounts'][number], property: string): unknown => {
    switch (property) {
      case 'Ref_Key':
        return account.key
      case 'DataVersion':
        return '1'
      case 'DeletionMark':
        return 0
      case 'Code':
        return account.code
      case 'Description':
        return account.description
      case 'AccountType':
        return account.type
      default:
        return null
    }
  }
  const columns = tables.chart.properties
  const rows = tables.accounts.map(
    (account) => sql`SELECT ${join(columns.map((p) => sql`${columnValue(account, p.name)} AS ${id(p.column)}`))}`,
  )
  return join(rows, ' UNION ALL ')
}

/**
 * 1C's documentation writes an account condition with the register's name for the account (an
 * AccountCondition of `Account_Key eq guid'…'`, §17.4.13.1.1), and its clients send it so: that name is
 * the chart's own key, `Ref_Key`, here.
 */
const ACCOUNT_KEY_NAMES = { AccountCondition: 'Account_Key', BalancedAccountCondition: 'BalancedAccount_Key' } as const

function withAccountKeyName(chart: QueryableSource, name: string): QueryableSource {
  const key = chart.columnByName.get('Ref_Key')
  if (key === undefined || chart.columnByName.has(name)) return chart
  return { ...chart, columnByName: new Map([...chart.columnByName, [name, key]]) }
}

/**
 * The keys of the accounts an AccountCondition (or BalancedAccountCondition) selects; undefined when the
 * parameter is not given.
 */
export async function selectedAccounts(
  tables: AccountingTables,
  args: VirtualTableArguments,
  parameter: 'AccountCondition' | 'BalancedAccountCondition',
  context: ConditionContext,
  run: SqlRunner,
): Promise<readonly string[] | undefined> {
  const text = args.conditions.get(parameter)
  if (text === undefined) return undefined
  if (tables.accounts.length === 0) return []
  const chart = withAccountKeyName(context.resolve(tables.chart.name), ACCOUNT_KEY_NAMES[parameter])
  const condition = RecordCondition.bindOver(text, chart, new Set(chart.columns.map((c) => c.name)), context, parameter)
  const query = condition.over(accountRows(tables), ['Ref_Key'])
  const rows = await run(query)
  return rows.map((row) => String(row[0]))
}

/** `column IN (keys…)`, or false for no keys. */
export function inAccounts(column: Statement, keys: readonly string[]): Statement {
  if (keys.length === 0) return sql`1 = 0`
  return sql`${column} IN (${join(keys.map((key) => sql`${key}`))})`
}
