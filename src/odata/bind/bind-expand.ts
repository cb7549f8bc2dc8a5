// `$expand` bound: for each item the navigation, the target's source, the form (entities, `/$ref`,
// `/$count`) and the nested options bound against the target — `$select`, `$filter`, `$orderby`, `$top`,
// `$skip`, `$count`, and a nested `$expand` (its depth and count were limited by the parser). `*`
// expands every navigation. `$levels` matters only for navigations that lead back to their own type, and
// the model has none, so one level is what any `$levels` yields. `$apply` inside `$expand` is refused.
import type { ExpandForm, ExpandItemNode, ExpandNode } from '../expression/index.js'
import type { BindContext } from './bind-context.js'
import { rootEnvironment } from './bind-environment.js'
import { bindError } from './bind-error.js'
import { bindOrderBy } from './bind-order-by.js'
import { bindSelect, selectAll, type BoundSelect } from './bound-select.js'
import type { BoundExpression } from './bound/bound-expression.js'
import type { BoundOrderItem } from './bound/bound-order-item.js'
import { bindPredicate } from './expression-binder.js'
import { QueryScope } from './query-scope.js'
import type { QueryableSource, SourceNavigation } from './queryable-source.js'

export interface BoundExpandItem {
  readonly navigation: SourceNavigation
  readonly form: ExpandForm
  /** The query over the target: its root range is the expanded entity; nested paths join here. */
  readonly scope: QueryScope
  readonly select: BoundSelect
  readonly filter: BoundExpression | null
  readonly orderBy: readonly BoundOrderItem[]
  readonly top: number | null
  readonly skip: number | null
  /** `$count=true` inside the options: `Goods@odata.count` beside the expanded collection. */
  readonly count: boolean
  readonly expand: readonly BoundExpandItem[]
  /** A table part or record set read because it is a property of its owner, not because `$expand` named it. */
  readonly implicit?: true
}

/**
 * `$expand` bound, with the source's table parts and record sets (its collection navigations) added
 * where the selection includes them: they are properties of their owner (decisions.md §2, service.md
 * §2.1), so a read without `$select` (or with `*`, or naming them) carries them without `$expand`. A
 * part the request expands itself keeps its own options; a `$select` that leaves them out reads none of
 * their rows. Expanded entities get their parts the same way.
 */
export function bindExpandWithParts(
  node: ExpandNode | null,
  select: BoundSelect,
  source: QueryableSource,
  context: BindContext,
): BoundExpandItem[] {
  const items = bindExpand(node, source, context)
  for (const navigation of source.navigationByName.values()) {
    if (navigation.kind !== 'collection' || items.some((item) => item.navigation === navigation)) continue
    if (select.explicit && !select.names.includes(navigation.name)) continue
    items.push({ ...plainItem(navigation, 'entities', context), implicit: true })
  }
  return items
}

export function bindExpand(node: ExpandNode | null, source: QueryableSource, context: BindContext): BoundExpandItem[] {
  if (node === null) return []
  const items: BoundExpandItem[] = []
  const seen = new Set<string>()
  for (const item of node.items) {
    for (const bound of bindExpandItem(item, source, context)) {
      if (seen.has(bound.navigation.name)) throw bindError(context, item.position, `${bound.navigation.name} is expanded twice`)
      seen.add(bound.navigation.name)
      items.push(bound)
    }
  }
  return items
}

function bindExpandItem(item: ExpandItemNode, source: QueryableSource, context: BindContext): BoundExpandItem[] {
  if (item.path.kind === 'StarNode') {
    return [...source.navigationByName.values()].map((navigation) => plainItem(navigation, item.form, context))
  }
  const segments = item.path.segments
  const first = segments[0]
  if (first?.kind !== 'PropertySegmentNode') throw bindError(context, item.position, 'expand a navigation property by its name')
  const navigation = source.navigationByName.get(first.name)
  if (!navigation) {
    const what = source.columnByName.has(first.name)
      ? `${first.name} is a property, not a navigation property`
      : `${source.name} has no navigation property ${JSON.stringify(first.name)}`
    throw bindError(context, first.position, what)
  }
  if (segments.length > 1) {
    throw bindError(
      context,
      segments[1]!.position,
      `expand through ${navigation.name} with nested options, as in $expand=${navigation.name}($expand=…)`,
    )
  }
  const options = item.options
  if (options.apply !== null) throw bindError(context, item.position, '$apply inside $expand is not supported')
  const scope = QueryScope.over(context.resolve(navigation.targetSet))
  const environment = rootEnvironment(context, scope.root)
  const target = scope.root.source
  const single = navigation.kind === 'reference'
  if (single && (options.orderBy !== null || options.top !== null || options.skip !== null || options.count !== null)) {
    throw bindError(context, item.position, `${navigation.name} is a single entity: $orderby, $top, $skip and $count do not apply to it`)
  }
  if (single && item.form === 'count')
    throw bindError(context, item.position, `${navigation.name} is a single entity; /$count needs a collection`)
  const select = bindSelect(options.select, target, context)
  return [
    {
      navigation,
      form: item.form,
      scope,
      select,
      filter: options.filter === null ? null : bindPredicate(options.filter, environment),
      orderBy: options.orderBy === null ? [] : bindOrderBy(options.orderBy.items, environment),
      top: options.top,
      skip: options.skip,
      count: options.count === true,
      expand:
        item.form === 'entities'
          ? bindExpandWithParts(options.expand, select, target, context)
          : bindExpand(options.expand, target, context),
    },
  ]
}

function plainItem(navigation: SourceNavigation, form: ExpandForm, context: BindContext): BoundExpandItem {
  const scope = QueryScope.over(context.resolve(navigation.targetSet))
  const select = selectAll(scope.root.source)
  const expand = form === 'entities' ? bindExpandWithParts(null, select, scope.root.source, context) : []
  return { navigation, form, scope, select, filter: null, orderBy: [], top: null, skip: null, count: false, expand }
}
