// Which columns a call's result has, and what its rows are grouped by (service.md §4.2 rule 3, §4.3):
//
// - period columns: those the periodicity fills (period-columns.ts), always part of the grouping key;
// - group columns: with `Dimensions`, exactly those; otherwise, with `$apply`, without `$select` or with
//   `$select=*`, every dimension; otherwise the dimensions the read mentions — in `$select`, `$filter`,
//   `$orderby` and as expanded navigations (`$expand=Warehouse` groups by `Warehouse_Key`). Slices are not
//   grouped: their rows are records with every dimension;
// - value columns: the aggregates (or a slice's record values), always.
//
// Naming a result column the call does not fill — the period column of another periodicity, `Recorder`
// of a turnover by months, a dimension left out of `Dimensions` — anywhere in the query options is `400
// NotFilledInResult` (§4.3 rules), with the option as target and the position in the message.
import { ODataError } from '../errors.js'
import type { PropertyModel } from '../model/model.js'
import type { VirtualTableSignature } from '../model/virtual-tables.js'
import type { ApplyNode, CommonExpressionNode, ExpandNode, ExpressionLimits, OrderByNode, SelectNode } from '../odata/expression/index.js'
import { namesInApply, namesInExpand, namesInFilter, namesInOrderBy, namesInSelect, type MentionedName } from './query-names.js'
import type { RegisterTables } from './register-tables.js'
import type { VirtualTableArguments } from './virtual-table-arguments.js'
import type { VirtualTable } from './virtual-table.js'

/** The parsed query options of the read over a call's result (what grouping and the Condition look at). */
export interface CallOptions {
  readonly filter: CommonExpressionNode | null
  readonly orderBy: OrderByNode | null
  readonly select: SelectNode | null
  readonly expand: ExpandNode | null
  readonly apply: ApplyNode | null
  readonly limits: Partial<ExpressionLimits>
}

export interface CallShape {
  readonly periodColumns: readonly string[]
  readonly groupColumns: readonly string[]
  readonly valueColumns: readonly string[]
}

/** The result property a name in a query option stands for: a column by its name, or a reference column by its navigation. */
function resultProperty(signature: VirtualTableSignature, name: string): PropertyModel | undefined {
  return signature.resultProperties.find((p) => p.name === name) ?? signature.resultProperties.find((p) => p.reference?.navigation === name)
}

export function callShape(
  table: VirtualTable,
  tables: RegisterTables,
  signature: VirtualTableSignature,
  args: VirtualTableArguments,
  options: CallOptions,
): CallShape {
  const periodColumns = table.periodColumns(args)
  const groupable = table.groupableColumns(tables, args)
  // Dimension columns are grouped or not filled (an accounting call's ExtDimension3 when ExtraDimensions names two kinds).
  const valueColumns = signature.resultProperties
    .filter((p) => p.role !== 'period' && p.role !== 'dimension' && !groupable.includes(p.name))
    .map((p) => p.name)

  const select = namesInSelect(options.select)
  const mentioned: MentionedName[] = [
    ...select.names,
    ...namesInFilter(options.filter),
    ...namesInOrderBy(options.orderBy),
    ...namesInExpand(options.expand),
  ]
  let groupColumns: readonly string[]
  if (!table.grouped) groupColumns = groupable
  else if (args.dimensions !== undefined) groupColumns = groupable.filter((d) => args.dimensions!.includes(d))
  else if (options.apply !== null || options.select === null || select.star) groupColumns = groupable
  else {
    const named = new Set(mentioned.map((m) => resultProperty(signature, m.name)?.name))
    groupColumns = groupable.filter((d) => named.has(d))
  }
  if (table.completeGrouping !== undefined) {
    const completed = new Set(table.completeGrouping(groupColumns, args, tables))
    groupColumns = groupable.filter((d) => completed.has(d))
  }

  const filled = new Set([...periodColumns, ...groupColumns, ...valueColumns])
  for (const name of [...mentioned, ...namesInApply(options.apply)]) {
    const property = resultProperty(signature, name.name)
    if (property !== undefined && !filled.has(property.name)) {
      const why =
        property.role === 'period'
          ? `the call does not fill ${property.name} (periodicity: ${args.periodicity ?? 'none'})`
          : `${property.name} is not among the grouping Dimensions`
      throw new ODataError(
        'NotFilledInResult',
        `${name.name} is not filled in the result of ${signature.name}: ${why} (${name.option} at position ${name.position}).`,
        { target: name.option },
      )
    }
  }
  return { periodColumns, groupColumns, valueColumns }
}
