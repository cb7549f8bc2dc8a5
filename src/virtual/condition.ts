// The `Condition` parameter of a virtual table (service.md §4.2, decisions.md §2): a `$filter` expression
// over the register's records (movements, or information register records), parsed and bound by the one
// expression language with the parameter's own error code, `InvalidParameter`, and target `Condition`.
//
// It may name the groupable columns (dimensions, also through their references: `Product/Description`)
// and the record columns the function fills (`Period`, `Recorder`, `LineNumber` of a turnover by
// recorder; `Period` of a slice). A resource, or a column the function does not fill, is `400
// NotFilledInResult` (rule 1), with the position; any other unknown name fails to bind (`400
// InvalidParameter`).
//
// The condition applies to the records before anything is grouped. Totals tables carry the dimension
// columns under the same names, so a condition that names only dimensions filters totals rows as well:
// `over` binds it again against whichever table is read and compiles it as a derived relation
// `SELECT t0.… FROM <table> AS t0 LEFT JOIN … WHERE <condition>`, which MySQL and MariaDB merge into the
// query around it.
import { ODataError } from '../errors.js'
import type { EntitySetModel } from '../model/model.js'
import {
  bindFilter,
  BoundProperty,
  columnMap,
  QueryScope,
  syntheticColumn,
  type BindContext,
  type BoundExpression,
  type QueryableSource,
  type SourceColumn,
  type SourceNavigation,
} from '../odata/bind/index.js'
import { parseFilter, type CommonExpressionNode, type ExpressionLimits } from '../odata/expression/index.js'
import { QueryCompiler } from '../sql/query-compiler.js'
import { namesInFilter } from './query-names.js'
import type { Statement } from '../sql/sql-template.js'

export interface ConditionContext {
  readonly resolve: BindContext['resolve']
  readonly namespace: string
  readonly parameterAlias?: BindContext['parameterAlias']
  readonly limits?: Partial<ExpressionLimits>
}

const OPTION = 'Condition'

export class RecordCondition {
  private constructor(
    private readonly node: CommonExpressionNode,
    private readonly records: QueryableSource,
    private readonly context: BindContext,
    /** The record columns the condition reads (a reference path counts as its key column). */
    readonly columns: ReadonlySet<string>,
  ) {}

  /**
   * Parses and binds `text` against the records of `recordsSet`. `allowed` are the record columns the
   * function lets a Condition name.
   */
  static bind(text: string, recordsSet: EntitySetModel, allowed: ReadonlySet<string>, context: ConditionContext): RecordCondition {
    return RecordCondition.bindOver(text, context.resolve(recordsSet.name), allowed, context)
  }

  /**
   * Parses and binds `text` (the parameter `option`) against the rows of `records`, a source whose
   * columns are what the condition may read: the register's records, a view of them (the sides of
   * accounting entries), or the accounts of a chart. `describe` says why a column is refused.
   */
  static bindOver(
    text: string,
    records: QueryableSource,
    allowed: ReadonlySet<string>,
    context: ConditionContext,
    option = OPTION,
    describe?: (column: string) => string | undefined,
  ): RecordCondition {
    const bindContext: BindContext = { option, errorCode: 'InvalidParameter', ...context }
    const node = parseFilter(text, { option, errorCode: 'InvalidParameter', ...(context.limits ? { limits: context.limits } : {}) })
    const columns = new Set<string>()
    for (const mentioned of namesInFilter(node, option)) {
      const column = records.columnByName.get(mentioned.name)?.name ?? foreignKeyOf(records.navigationByName.get(mentioned.name))
      if (column === undefined) continue // the binder reports unknown names
      if (!allowed.has(column)) {
        const what =
          describe?.(column) ??
          (records.columnByName.get(column)?.property.role === 'resource' ? 'a resource' : 'a column the function does not fill')
        throw new ODataError(
          'NotFilledInResult',
          `${option} names ${mentioned.name}, ${what}; it may name ${[...allowed].join(', ')} (${option} at position ${mentioned.position}).`,
          { target: option },
        )
      }
      columns.add(column)
    }
    bindFilter(node, QueryScope.over(records).root, bindContext)
    return new RecordCondition(node, records, bindContext, columns)
  }

  /** True when the condition reads only these columns, so it can filter a table that has just them (totals). */
  readsOnly(columns: readonly string[]): boolean {
    for (const column of this.columns) if (!columns.includes(column)) return false
    return true
  }

  /**
   * The rows of `table` (a table, or SQL of a derived one) for which the condition holds, with the given
   * columns (a derived relation). It must have every column the condition reads, under the records' names.
   */
  over(table: string | Statement, outputColumns: readonly string[]): Statement {
    const byName = new Map<string, SourceColumn>()
    for (const name of [...outputColumns, ...this.columns]) {
      byName.set(name, this.records.columnByName.get(name) ?? syntheticColumn(name, name, 'Edm.Decimal'))
    }
    const columns = [...byName.values()]
    const columnByName = new Map(columnMap(columns))
    // A name the records give a column besides its own (an account's key as `Account_Key`) reads it here too.
    for (const [alias, column] of this.records.columnByName) {
      const kept = byName.get(column.name)
      if (alias !== column.name && kept !== undefined) columnByName.set(alias, kept)
    }
    const navigations = new Map<string, SourceNavigation>()
    for (const [name, navigation] of this.records.navigationByName) {
      if (navigation.kind === 'reference' && byName.has(navigation.foreignKey.name)) navigations.set(name, navigation)
    }
    const source: QueryableSource = {
      name: this.records.name,
      relation: typeof table === 'string' ? { kind: 'table', table } : { kind: 'derived', statement: table },
      columns,
      columnByName,
      navigationByName: navigations,
      rowKey: [],
      ordering: [],
      entitySet: undefined,
    }
    const scope = QueryScope.over(source)
    const predicate: BoundExpression = bindFilter(this.node, scope.root, this.context)
    const output = outputColumns.map((name) => ({ expression: BoundProperty.create(scope.root, byName.get(name)!), alias: name }))
    return new QueryCompiler().compileSelect({ scope, columns: output, where: [predicate] })
  }
}

function foreignKeyOf(navigation: SourceNavigation | undefined): string | undefined {
  return navigation?.kind === 'reference' ? navigation.foreignKey.name : undefined
}
