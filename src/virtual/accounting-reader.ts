// What the parts of an accounting register's balances and turnovers read (accumulation-parts.ts does the
// rest, as for accumulation registers). An entry has two sides; a balance or turnover is per side:
//
//   the Dr side of an entry: Account_Key = AccountDr_Key, ExtDimension<N> = its Dr extra dimensions,
//     BalancedAccount_Key = AccountCr_Key (and the Cr extra dimensions as BalancedExtDimension<N>),
//     <R>Dr = the balanced resource's value or the non-balanced resource's <R>Dr, <R>Cr = 0;
//   the Cr side: the same with the sides swapped, the value in <R>Cr.
//
// So the movements are read as the UNION ALL of two side views of the movement table (each a SELECT
// that keeps the account index usable: the AccountCondition filters AccountDr_Key in one and
// AccountCr_Key in the other, the period bounds of the part apply inside both), and the totals
// (src/store/totals.ts) already hold the sides, per month and account, extra dimensions and dimensions,
// with an all-time row per group. A flow is Dr (as receipts are for accumulation registers), Cr (as
// expenses) or Dr − Cr (the net change); the balance is Dr − Cr.
//
// With ExtraDimensions, ExtDimension<N> is the value of the N-th kind named, wherever the account keeps
// it: `CASE Account_Key WHEN <an account with the kind at position p> THEN ExtDimension<p> … ELSE empty`
// (accounts and their kinds are predefined by the configuration, so the CASE is made from the model).
//
// Totals serve a call unless it needs what they do not hold: the corresponding account or its extra
// dimensions (grouped, or in a condition), a recorder or line (a Condition on them).
import { EMPTY_GUID } from '../model/model.js'
import type { VirtualTableSignature } from '../model/virtual-tables.js'
import { columnMap, type QueryableSource, type SourceColumn, type SourceNavigation } from '../odata/bind/index.js'
import { column, id, join, raw, sql, type Statement } from '../sql/sql-template.js'
import { creditColumn, debitColumn } from '../store/totals.js'
import { totalsRangeOf, type Flow, type PartsReader } from './accumulation-parts.js'
import { chosenKinds, extDimensionCount, inAccounts, selectedAccounts } from './accounting-arguments.js'
import { RecordCondition, type ConditionContext } from './condition.js'
import type { AccountingTables, RegisterTables } from './register-tables.js'
import type { SqlRunner } from './sql-runner.js'
import type { VirtualTableArguments } from './virtual-table-arguments.js'
import type { VirtualTableCall } from './virtual-table.js'

const M = 'm'

/** The names of the extra-dimension columns of a result: `ExtDimension1`, `ExtDimension1_Type`, … (`Balanced…`). */
export function extDimensionNames(prefix: '' | 'Balanced', count: number): { value: string; type: string }[] {
  return Array.from({ length: count }, (_, i) => ({ value: `${prefix}ExtDimension${i + 1}`, type: `${prefix}ExtDimension${i + 1}_Type` }))
}

export function accountingTables(tables: RegisterTables): AccountingTables {
  if (tables.kind !== 'accounting') throw new Error('internal: not an accounting register')
  return tables
}

/**
 * The groupable columns of an accounting balance or turnover: the account, the extra dimensions the call
 * fills (value and type), with `balanced` the corresponding account and its extra dimensions, then the
 * dimensions.
 */
export function accountingGroupable(tables: AccountingTables, args: VirtualTableArguments, balanced: boolean): string[] {
  const own = extDimensionNames('', extDimensionCount(tables, args.extraDimensions)).flatMap((c) => [c.value, c.type])
  const other = balanced
    ? [
        'BalancedAccount_Key',
        ...extDimensionNames('Balanced', extDimensionCount(tables, args.balancedExtraDimensions)).flatMap((c) => [c.value, c.type]),
      ]
    : []
  return ['Account_Key', ...own, ...other, ...tables.dimensions]
}

/** A value column and its type column group together: naming either groups by both. */
export function withTypeColumns(columns: readonly string[]): string[] {
  const result = new Set(columns)
  for (const name of columns) {
    if (/ExtDimension\d+$/.test(name)) result.add(`${name}_Type`)
    if (/ExtDimension\d+_Type$/.test(name)) result.add(name.slice(0, -'_Type'.length))
  }
  return [...result]
}

/**
 * The Condition of an accounting balance or turnover, bound against the sides of the entries: it may
 * name the extra dimensions and dimensions (and for turnovers the corresponding extra dimensions, and the
 * recorder columns a periodicity fills), never an account (AccountCondition is for that) or a resource
 * (service.md §4.2 rule 1).
 */
export function bindSideCondition(
  text: string,
  tables: AccountingTables,
  signature: VirtualTableSignature,
  allowed: readonly string[],
  context: ConditionContext,
): RecordCondition {
  const byName = new Map(signature.resultProperties.map((p) => [p.name, p] as const))
  const records = tables.records
  const properties = [
    ...['Period', 'Recorder', 'Recorder_Type', 'LineNumber'].map((name) => records.propertyByName.get(name)!),
    ...signature.resultProperties.filter((p) => p.role === 'dimension'),
    // Named only to be refused as resources.
    ...records.properties.filter((p) => p.role === 'resource'),
  ]
  const columns: SourceColumn[] = properties.map((property) =>
    Object.freeze({
      name: property.name,
      property: byName.get(property.name) ?? property,
      type: property.edmType,
      sqlName: property.name,
      surrogate: false,
    }),
  )
  const navigations = new Map<string, SourceNavigation>()
  for (const c of columns) {
    const reference = c.property.reference
    if (reference)
      navigations.set(
        reference.navigation,
        Object.freeze({ kind: 'reference', name: reference.navigation, targetSet: reference.targetSet, foreignKey: c }),
      )
  }
  const source: QueryableSource = {
    name: records.name,
    relation: { kind: 'table', table: records.table },
    columns,
    columnByName: columnMap(columns),
    navigationByName: navigations,
    rowKey: [],
    ordering: [],
    entitySet: undefined,
  }
  const describe = (name: string) =>
    name === 'Account_Key' || name === 'BalancedAccount_Key' ? 'an account (accounts are chosen by AccountCondition)' : undefined
  return RecordCondition.bindOver(text, source, new Set(allowed), context, 'Condition', describe)
}

/** One side of the entries, or one view of the totals: the SELECT list items, each under its result name. */
interface Item {
  readonly name: string
  readonly value: Statement
}

export class AccountingReader implements PartsReader {
  readonly tables: AccountingTables
  /** An entry is two rows, one per side (and both sides may name the same account). */
  readonly rowPerMovement = false
  private readonly kinds: readonly string[] | undefined
  private readonly balancedKinds: readonly string[] | undefined

  private constructor(
    readonly call: VirtualTableCall,
    /** The corresponding side is read (Turnovers grouped by it, or conditioned on it). */
    private readonly withBalanced: boolean,
    private readonly accounts: readonly string[] | undefined,
    private readonly balancedAccounts: readonly string[] | undefined,
  ) {
    this.tables = accountingTables(call.tables)
    this.kinds = chosenKinds(this.tables, call.arguments.extraDimensions, 'ExtraDimensions')
    this.balancedKinds = chosenKinds(this.tables, call.arguments.balancedExtraDimensions, 'BalancedExtraDimensions')
  }

  /** A reader for the call, with the accounts its AccountCondition and BalancedAccountCondition select. */
  static async create(call: VirtualTableCall, run: SqlRunner, balancedColumns: boolean): Promise<AccountingReader> {
    const tables = accountingTables(call.tables)
    const accounts = await selectedAccounts(tables, call.arguments, 'AccountCondition', call.context, run)
    const balancedAccounts = balancedColumns
      ? await selectedAccounts(tables, call.arguments, 'BalancedAccountCondition', call.context, run)
      : undefined
    return new AccountingReader(call, balancedColumns, accounts, balancedAccounts)
  }

  /** The extra-dimension columns the call fills (value and type), for its own side. */
  private extNames(): string[] {
    return extDimensionNames('', extDimensionCount(this.tables, this.kinds)).flatMap((c) => [c.value, c.type])
  }

  get totalsUsable(): boolean {
    if (this.balancedAccounts !== undefined) return false
    if (this.call.groupColumns.some((c) => c.startsWith('Balanced'))) return false
    const condition = this.call.condition
    return condition === undefined || condition.readsOnly([...this.extNames(), ...this.tables.dimensions])
  }

  totalsRowsAreGroups(group: readonly string[]): boolean {
    if (this.kinds !== undefined) return false
    const key = [
      'Account_Key',
      ...extDimensionNames('', this.tables.maxExtDimensions).flatMap((c) => [c.value, c.type]),
      ...this.tables.dimensions,
    ]
    return key.every((c) => group.includes(c))
  }

  totalsRange(run: SqlRunner): Promise<{ first: string | undefined; last: string | undefined }> {
    return totalsRangeOf(this, this.tables.totalsTable, run)
  }

  movementFlow(flow: Flow, resource: string): Statement {
    return this.flow(flow, resource)
  }

  totalsFlow(flow: Flow, resource: string): Statement {
    return this.flow(flow, resource)
  }

  private flow(flow: Flow, resource: string): Statement {
    const dr = column(M, debitColumn(resource))
    const cr = column(M, creditColumn(resource))
    switch (flow) {
      case 'receipt':
        return dr
      case 'expense':
        return cr
      case 'net':
        return sql`(${dr} - ${cr})`
    }
  }

  /**
   * The extra dimensions of one side under the result's names: positional (`ExtDimension<side><N>`), or
   * by the kinds chosen (a CASE over the accounts that have each kind).
   */
  private extItems(
    prefix: '' | 'Balanced',
    kinds: readonly string[] | undefined,
    account: Statement,
    stored: (position: number) => { value: string; type: string },
  ): Item[] {
    const names = extDimensionNames(prefix, extDimensionCount(this.tables, kinds))
    if (kinds === undefined) {
      return names.flatMap((name, i) => [
        { name: name.value, value: column(M, stored(i + 1).value) },
        { name: name.type, value: column(M, stored(i + 1).type) },
      ])
    }
    return kinds.flatMap((kind, i) => {
      const holders = this.tables.accounts.flatMap((a) =>
        a.extDimensions.includes(kind) ? [{ key: a.key, position: a.extDimensions.indexOf(kind) + 1 }] : [],
      )
      const pick = (which: 'value' | 'type', empty: string) =>
        holders.length === 0
          ? sql`${empty}`
          : sql`CASE ${account} ${join(
              holders.map((h) => sql`WHEN ${h.key} THEN ${column(M, stored(h.position)[which])}`),
              ' ',
            )} ELSE ${empty} END`
      return [
        { name: names[i]!.value, value: pick('value', EMPTY_GUID) },
        { name: names[i]!.type, value: pick('type', '') },
      ]
    })
  }

  /** The values of the resources on one side: `<R>Dr`, `<R>Cr`. */
  private resourceItems(side: 'Dr' | 'Cr'): Item[] {
    return this.tables.resources.flatMap((r) => {
      const value = this.tables.balanced.has(r) ? column(M, r) : column(M, `${r}${side}`)
      const zero = raw('0')
      return [
        { name: debitColumn(r), value: side === 'Dr' ? value : zero },
        { name: creditColumn(r), value: side === 'Cr' ? value : zero },
      ]
    })
  }

  /** One side of the movements as a SELECT, with the part's conditions and the account filters inside. */
  private side(side: 'Dr' | 'Cr', where: readonly Statement[]): Statement {
    const other = side === 'Dr' ? 'Cr' : 'Dr'
    const account = column(M, `Account${side}_Key`)
    const otherAccount = column(M, `Account${other}_Key`)
    const stored = (s: 'Dr' | 'Cr') => (position: number) => ({
      value: `ExtDimension${s}${position}`,
      type: `ExtDimension${s}${position}_Type`,
    })
    const items: Item[] = [
      ...['Period', 'Active', 'Recorder', 'Recorder_Type', 'LineNumber'].map((name) => ({ name, value: column(M, name) })),
      { name: 'Account_Key', value: account },
      ...this.extItems('', this.kinds, account, stored(side)),
      ...(this.withBalanced
        ? [
            { name: 'BalancedAccount_Key', value: otherAccount },
            ...this.extItems('Balanced', this.balancedKinds, otherAccount, stored(other)),
          ]
        : []),
      ...this.tables.dimensions.map((name) => ({ name, value: column(M, name) })),
      ...this.resourceItems(side),
    ]
    const filters = [
      ...where,
      ...(this.accounts === undefined ? [] : [inAccounts(account, this.accounts)]),
      ...(this.balancedAccounts === undefined ? [] : [inAccounts(otherAccount, this.balancedAccounts)]),
    ]
    const select = sql`SELECT ${join(items.map((item) => sql`${item.value} AS ${id(item.name)}`))} FROM ${id(this.tables.records.table)} AS ${raw(M)}${filters.length === 0 ? raw('') : sql` WHERE ${join(filters, ' AND ')}`}`
    const condition = this.call.condition
    return condition === undefined
      ? select
      : condition.over(
          select,
          items.map((item) => item.name),
        )
  }

  movements(where: readonly Statement[]): Statement {
    return sql`(${this.side('Dr', where)} UNION ALL ${this.side('Cr', where)})`
  }

  totals(): Statement {
    const account = column(M, 'Account_Key')
    const items: Item[] = [
      { name: 'Period', value: column(M, 'Period') },
      { name: 'Account_Key', value: account },
      ...this.extItems('', this.kinds, account, (position) => ({ value: `ExtDimension${position}`, type: `ExtDimension${position}_Type` })),
      ...this.tables.dimensions.map((name) => ({ name, value: column(M, name) })),
      ...this.tables.resources.flatMap((r) => [debitColumn(r), creditColumn(r)].map((name) => ({ name, value: column(M, name) }))),
    ]
    const filter = this.accounts === undefined ? raw('') : sql` WHERE ${inAccounts(account, this.accounts)}`
    const select = sql`SELECT ${join(items.map((item) => sql`${item.value} AS ${id(item.name)}`))} FROM ${id(this.tables.totalsTable)} AS ${raw(M)}${filter}`
    const condition = this.call.condition
    return sql`(${
      condition === undefined
        ? select
        : condition.over(
            select,
            items.map((item) => item.name),
          )
    })`
  }
}
