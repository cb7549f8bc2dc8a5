// `$apply` bound (OData Data Aggregation extension): each transformation takes the rows of the previous
// one and yields a new source (queryable-source.ts, relation kind 'transformed'), so names in a later
// step resolve against what the earlier step produced (`groupby((Warehouse_Key),aggregate(Quantity with
// sum as Total))/filter(Total gt 100)`). `$filter`, `$orderby`, `$select`, `$count` and paging then
// apply to the final source like to any other.
//
// Supported: filter, compute, groupby (with or without aggregate; row-wise filter/compute before the
// aggregate inside it), aggregate (sum, min, max, average, countdistinct, $count, Goods/$count), orderby
// (by columns of its input), top, skip. Transformations that keep the rows (all but aggregation) keep the
// entities' identity, navigations and order.
import {
  CountSegmentNode,
  MemberPathNode,
  type AggregateItemNode,
  type ApplyNode,
  type ApplyTransformationNode,
  type ComputeItemNode,
  type OrderByItemNode,
} from '../expression/index.js'
import type { BindContext } from './bind-context.js'
import { rootEnvironment, type BindEnvironment } from './bind-environment.js'
import { bindError } from './bind-error.js'
import { isNumeric, type BoundType } from './bound-type.js'
import { BoundAggregate } from './bound/bound-aggregate.js'
import type { BoundExpression } from './bound/bound-expression.js'
import { BoundProperty } from './bound/bound-property.js'
import type { BoundOutputColumn, BoundTransformation } from './bound/bound-transformation.js'
import { bindExpression, bindMemberPath, bindPredicate } from './expression-binder.js'
import { QueryScope } from './query-scope.js'
import type { Range } from './range.js'
import { columnMap, type QueryableSource, type SortKey, type SourceColumn, type SourceNavigation } from './queryable-source.js'
import { renamedColumn, syntheticColumn } from './synthetic-property.js'

export interface BoundApply {
  /** The rows after the last transformation. */
  readonly output: QueryableSource
  /** True once rows became groups (groupby or aggregate). */
  readonly aggregated: boolean
  /** The result's properties as the context URL lists them (`Product(Description)`, `Total`), when they differ from the entity's. */
  readonly contextItems: readonly string[] | undefined
}

export function bindApply(node: ApplyNode, source: QueryableSource, context: BindContext): BoundApply {
  let state: ApplyState = { source, aggregated: false, contextItems: undefined }
  for (const transformation of node.transformations) state = bindTransformation(transformation, state, context)
  return { output: state.source, aggregated: state.aggregated, contextItems: state.contextItems }
}

interface ApplyState {
  readonly source: QueryableSource
  readonly aggregated: boolean
  readonly contextItems: string[] | undefined
}

function bindTransformation(node: ApplyTransformationNode, state: ApplyState, context: BindContext): ApplyState {
  const scope = QueryScope.over(state.source)
  const environment = rootEnvironment(context, scope.root)
  switch (node.kind) {
    case 'FilterTransformationNode': {
      const predicate = bindPredicate(node.predicate, environment)
      const columns = passThrough(scope)
      return { ...state, source: rowSource(state.source, scope, { kind: 'filter', columns, predicate }, columns) }
    }
    case 'ComputeTransformationNode': {
      const columns = [...passThrough(scope), ...computedColumns(node.items, state.source, environment)]
      const aliases = node.items.map((i) => i.alias)
      const contextItems = state.contextItems ? [...state.contextItems, ...aliases] : ['*', ...aliases]
      return { ...state, contextItems, source: rowSource(state.source, scope, { kind: 'compute', columns }, columns) }
    }
    case 'OrderByTransformationNode': {
      const columns = passThrough(scope)
      const ordering = orderingOf(node.items, environment)
      return {
        ...state,
        source: rowSource(state.source, scope, { kind: 'slice', columns, orderBy: [], top: undefined, skip: undefined }, columns, ordering),
      }
    }
    case 'TopTransformationNode':
    case 'SkipTransformationNode': {
      const columns = passThrough(scope)
      const orderBy = state.source.ordering.map((key) => ({
        expression: BoundProperty.create(scope.root, key.column),
        descending: key.descending,
      }))
      const top = node.kind === 'TopTransformationNode' ? node.count : undefined
      const skip = node.kind === 'SkipTransformationNode' ? node.count : undefined
      return { ...state, source: rowSource(state.source, scope, { kind: 'slice', columns, orderBy, top, skip }, columns) }
    }
    case 'AggregateTransformationNode':
      return aggregateState(scope, [], node.items, context)
    case 'GroupByTransformationNode': {
      // Row-wise steps inside groupby apply to every row before grouping, so they run first;
      // the one aggregate (if any) must come last.
      let inner = state
      const steps = node.apply?.transformations ?? []
      let aggregateItems: readonly AggregateItemNode[] = []
      steps.forEach((step, i) => {
        if (step.kind === 'AggregateTransformationNode' && i === steps.length - 1) aggregateItems = step.items
        else if (step.kind === 'FilterTransformationNode' || step.kind === 'ComputeTransformationNode')
          inner = bindTransformation(step, inner, context)
        else throw bindError(context, step.position, 'inside groupby only filter(), compute() and a final aggregate() are supported')
      })
      const innerScope = inner.source === state.source ? scope : QueryScope.over(inner.source)
      const groups = node.properties.map((path) => {
        const expression = bindMemberPath(path, rootEnvironment(context, innerScope.root))
        const name = path.segments
          .map((s) => (s.kind === 'PropertySegmentNode' ? s.name : s.kind === 'TypeCastSegmentNode' ? s.typeName : ''))
          .join('/')
        return { name, expression, position: path.position }
      })
      return aggregateState(innerScope, groups, aggregateItems, context)
    }
  }
}

/**
 * The rows of `input` for which a condition holds, as a source of its own: what a `$apply` starts from
 * when the addressed collection is already a subset (the goods of one document).
 */
export function restrictedSource(input: QueryableSource, condition: (root: Range) => BoundExpression): QueryableSource {
  const scope = QueryScope.over(input)
  const columns = passThrough(scope)
  return rowSource(input, scope, { kind: 'filter', columns, predicate: condition(scope.root) }, columns)
}

/** Every input column, unchanged, under a fresh SQL name in the derived table. */
function passThrough(scope: QueryScope): BoundOutputColumn[] {
  return scope.root.source.columns.map((column, i) => ({
    column: renamedColumn(column, column.name, `c${i}`),
    expression: BoundProperty.create(scope.root, column),
  }))
}

function computedColumns(items: readonly ComputeItemNode[], input: QueryableSource, environment: BindEnvironment): BoundOutputColumn[] {
  const names = new Set(input.columns.map((c) => c.name))
  return items.map((item, i) => {
    if (names.has(item.alias) || input.navigationByName.has(item.alias))
      throw bindError(environment.context, item.position, `the alias ${item.alias} is already a property`)
    names.add(item.alias)
    const expression = bindExpression(item.expression, environment)
    return { column: syntheticColumn(item.alias, `x${i}`, expression.type), expression }
  })
}

/** orderby() sorts by columns of its input (after groupby these are the groups and aggregates). */
function orderingOf(items: readonly OrderByItemNode[], environment: BindEnvironment): SortKey[] {
  return items.map((item) => {
    const expression = bindExpression(item.expression, environment)
    if (expression.kind !== 'BoundProperty' || expression.range !== environment.implicit) {
      throw bindError(
        environment.context,
        item.position,
        'orderby() in $apply sorts by properties of its input; order by other expressions with $orderby',
      )
    }
    return { column: expression.column, descending: item.direction === 'desc' }
  })
}

/** A source whose rows are the input's rows (filtered, extended, sorted or sliced): same identity and navigations. */
function rowSource(
  input: QueryableSource,
  scope: QueryScope,
  transformation: BoundTransformation,
  columns: readonly BoundOutputColumn[],
  ordering?: readonly SortKey[],
): QueryableSource {
  const outputs = columns.map((c) => c.column)
  const byName = columnMap(outputs)
  const mapped = (column: SourceColumn) => byName.get(column.name)!
  const navigations = new Map<string, SourceNavigation>()
  for (const navigation of input.navigationByName.values()) {
    navigations.set(
      navigation.name,
      navigation.kind === 'reference'
        ? { ...navigation, foreignKey: mapped(navigation.foreignKey) }
        : { ...navigation, links: navigation.links.map((link) => ({ parent: mapped(link.parent), child: link.child })) },
    )
  }
  const source: QueryableSource = {
    name: input.name,
    relation: { kind: 'transformed', input: scope, transformation },
    columns: outputs,
    columnByName: byName,
    navigationByName: navigations,
    rowKey: input.rowKey.map(mapped),
    ordering: (ordering ?? input.ordering).map((key) => ({ column: mapped(key.column), descending: key.descending })),
    entitySet: input.entitySet,
  }
  return Object.freeze(source)
}

interface Group {
  readonly name: string
  readonly expression: BoundExpression
  readonly position: number
}

function aggregateState(
  scope: QueryScope,
  groups: readonly Group[],
  items: readonly AggregateItemNode[],
  context: BindContext,
): ApplyState {
  const environment = rootEnvironment(context, scope.root)
  const names = new Set<string>()
  const columns: BoundOutputColumn[] = groups.map((group, i) => {
    if (names.has(group.name)) throw bindError(context, group.position, `${group.name} is grouped by twice`)
    names.add(group.name)
    const column =
      group.expression.kind === 'BoundProperty'
        ? renamedColumn(group.expression.column, group.name, `g${i}`)
        : syntheticColumn(group.name, `g${i}`, group.expression.type)
    return { column, expression: group.expression }
  })
  const input = scope.root.source
  items.forEach((item, i) => {
    // Data Aggregation §3.1.1: an alias must not collide with a property of the input or another alias.
    if (names.has(item.alias) || input.columnByName.has(item.alias) || input.navigationByName.has(item.alias)) {
      throw bindError(context, item.position, `the alias ${item.alias} is already a property`)
    }
    names.add(item.alias)
    const aggregate = bindAggregateItem(item, environment)
    columns.push({ column: syntheticColumn(item.alias, `a${i}`, aggregate.type), expression: aggregate })
  })
  const outputs = columns.map((c) => c.column)
  const groupColumns = outputs.slice(0, groups.length)
  const source: QueryableSource = {
    name: scope.root.source.name,
    relation: {
      kind: 'transformed',
      input: scope,
      transformation: { kind: 'aggregate', columns, groupBy: groups.map((g) => g.expression) },
    },
    columns: outputs,
    columnByName: columnMap(outputs),
    navigationByName: new Map(),
    // Each group is one row: the grouping values identify it.
    rowKey: groupColumns,
    ordering: groupColumns.map((column) => ({ column, descending: false })),
    entitySet: undefined,
  }
  return { source: Object.freeze(source), aggregated: true, contextItems: contextItemsOf(outputs.map((c) => c.name)) }
}

function bindAggregateItem(item: AggregateItemNode, environment: BindEnvironment): BoundAggregate {
  const context = environment.context
  if (item.kind === 'AggregateCountNode') {
    if (item.path === null) return BoundAggregate.COUNT_ROWS
    // `Goods/$count as Lines`: the members of the collection, summed over the group's rows.
    const counted = MemberPathNode.create(
      item.path.scope,
      item.path.variable,
      [...item.path.segments, CountSegmentNode.create(null, item.position)],
      item.path.position,
    )
    return BoundAggregate.create('sum', bindMemberPath(counted, environment), 'Edm.Int64')
  }
  const operand = bindExpression(item.expression, environment)
  const type = operand.type
  switch (item.method) {
    case 'sum':
    case 'average':
      if (!isNumeric(type)) throw bindError(context, item.expression.position, `${item.method} needs a number, not ${type}`)
      return BoundAggregate.create(item.method, operand, type === 'Edm.Double' ? 'Edm.Double' : 'Edm.Decimal')
    case 'min':
    case 'max':
      if (type === 'Null' || type === 'Edm.Boolean')
        throw bindError(context, item.expression.position, `${item.method} needs a value that has an order, not ${type}`)
      return BoundAggregate.create(item.method, operand, type as BoundType)
    case 'countdistinct':
      return BoundAggregate.create('countdistinct', operand, 'Edm.Int64')
  }
}

/** ['Product/Description', 'Product/Code', 'Total'] → ['Product(Description,Code)', 'Total'] (context URL form). */
function contextItemsOf(names: readonly string[]): string[] {
  const items: string[] = []
  const nested = new Map<string, string[]>()
  for (const name of names) {
    const slash = name.indexOf('/')
    if (slash < 0) {
      items.push(name)
      continue
    }
    const head = name.slice(0, slash)
    let members = nested.get(head)
    if (!members) {
      nested.set(head, (members = []))
      items.push(head)
    }
    members.push(name.slice(slash + 1))
  }
  return items.map((item) => (nested.has(item) ? `${item}(${contextItemsOf(nested.get(item)!).join(',')})` : item))
}
