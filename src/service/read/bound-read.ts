// The parsed options of a read bound against its source: `$apply` first (it makes the source the
// other options see), then `$filter`, `$orderby`, `$select` and `$expand` against the result. Each
// option binds with its own error code, and parameter aliases (`@p`) come from the query string.
import type { ErrorCode } from '../../errors.js'
import {
  bindApply,
  bindExpand,
  bindExpandWithParts,
  bindFilter,
  bindOrderBy,
  bindSelect,
  BoundLiteral,
  BoundLogical,
  QueryScope,
  restrictedSource,
  rootEnvironment,
  type BindContext,
  type BoundApply,
  type BoundExpandItem,
  type BoundExpression,
  type BoundOrderItem,
  type BoundSelect,
  type QueryableSource,
  type Range,
} from '../../odata/bind/index.js'
import { schemaTypeNames } from '../../model/csdl.js'
import { entitySetSources } from '../../sql/entity-set-sources.js'
import type { ServiceContext } from '../service-context.js'
import type { ServiceRequest } from '../service-request.js'
import type { ParsedReadOptions } from './parsed-read-options.js'

export interface BoundRead {
  /** What the rows are after `$apply` (the base source when there is none). */
  readonly source: QueryableSource
  readonly scope: QueryScope
  readonly apply: BoundApply | undefined
  /** The rows' condition: `$filter` and the link to a parent; TRUE when there is none. */
  readonly filter: BoundExpression
  readonly orderBy: readonly BoundOrderItem[]
  readonly select: BoundSelect
  readonly expand: readonly BoundExpandItem[]
}

export function bindContext(
  context: ServiceContext,
  request: ServiceRequest,
  parsed: ParsedReadOptions,
  option: string,
  errorCode: ErrorCode,
): BindContext {
  return {
    option,
    errorCode,
    resolve: entitySetSources(context.model),
    namespace: context.model.namespace,
    knownTypes: schemaTypeNames(context.model),
    parameterAlias: (name) => request.query.custom.get(`@${name}`),
    limits: parsed.limits,
  }
}

/**
 * `conditions` make the rows the addressed resource's (a navigation's link to its parent); they hold
 * before `$apply` transforms the rows, and are part of the filter otherwise.
 */
export function bindRead(
  context: ServiceContext,
  request: ServiceRequest,
  parsed: ParsedReadOptions,
  base: QueryableSource,
  conditions?: (root: Range) => readonly BoundExpression[],
): BoundRead {
  const bind = (option: string, code: ErrorCode) => bindContext(context, request, parsed, option, code)
  const input =
    conditions !== undefined && parsed.apply !== null
      ? restrictedSource(base, (root) => BoundLogical.all(conditions(root), BoundLiteral.TRUE))
      : base
  const apply = parsed.apply === null ? undefined : bindApply(parsed.apply, input, bind('$apply', 'InvalidApply'))
  const source = apply?.output ?? base
  const scope = QueryScope.over(source)
  const linked = conditions !== undefined && apply === undefined ? conditions(scope.root) : []
  const filter = parsed.filter === null ? null : bindFilter(parsed.filter, scope.root, bind('$filter', 'InvalidFilter'))
  // Bound in this order, so that of several bad options the same one is reported as before.
  const orderBy =
    parsed.orderBy === null ? [] : bindOrderBy(parsed.orderBy.items, rootEnvironment(bind('$orderby', 'InvalidOrderBy'), scope.root))
  const select = bindSelect(parsed.select, source, bind('$select', 'InvalidSelect'))
  const expandContext = bind('$expand', 'InvalidExpand')
  return {
    source,
    scope,
    apply,
    filter: BoundLogical.all(filter === null ? [...linked] : [...linked, filter], BoundLiteral.TRUE),
    orderBy,
    select,
    // Table parts and record sets are properties of their owner (bind-expand.ts); rows `$apply` made are not owners.
    expand:
      apply === undefined
        ? bindExpandWithParts(parsed.expand, select, source, expandContext)
        : bindExpand(parsed.expand, source, expandContext),
  }
}

/** The conditions of the rows, for a WHERE clause (none when the filter is TRUE). */
export function whereOf(bound: BoundRead): BoundExpression[] {
  return bound.filter === BoundLiteral.TRUE ? [] : [bound.filter]
}
