// The query options of a read, parsed (syntax and the limits of decisions.md §8, lowered by the
// profile) before anything is bound or run. Options that do not apply to the resource are refused
// rather than ignored, `$search` with its own code.
import { ODataError } from '../../errors.js'
import {
  parseApply,
  parseExpand,
  parseFilter,
  parseOrderBy,
  parseSelect,
  type ApplyNode,
  type CommonExpressionNode,
  type ExpandNode,
  type ExpressionLimits,
  type OrderByNode,
  type SelectNode,
} from '../../odata/expression/index.js'
import type { SystemQueryOption } from '../../odata/query-options.js'
import type { ServiceRequest } from '../service-request.js'

export interface ParsedReadOptions {
  readonly filter: CommonExpressionNode | null
  readonly orderBy: OrderByNode | null
  readonly select: SelectNode | null
  readonly expand: ExpandNode | null
  readonly apply: ApplyNode | null
  readonly top: number | undefined
  readonly skip: number | undefined
  readonly count: boolean
  readonly skipToken: string | undefined
  readonly limits: Partial<ExpressionLimits>
}

/** What a kind of read accepts besides `$format`. */
export type ReadKind = 'collection' | 'entity' | 'count'

const ACCEPTED: Readonly<Record<ReadKind, ReadonlySet<SystemQueryOption>>> = {
  // `$deltatoken`: change tracking (read-collection.ts decides what it means before the rows are read).
  collection: new Set([
    '$filter',
    '$orderby',
    '$select',
    '$expand',
    '$apply',
    '$top',
    '$skip',
    '$count',
    '$skiptoken',
    '$deltatoken',
    '$format',
  ]),
  entity: new Set(['$select', '$expand', '$format']),
  // OData 4.01 §11.2.10: `/$count` takes $filter (and $search); $apply shapes what is counted.
  count: new Set(['$filter', '$apply', '$format']),
}

export function parseReadOptions(request: ServiceRequest, kind: ReadKind): ParsedReadOptions {
  const system = request.query.system
  for (const option of system.keys()) {
    if (option === '$search')
      throw new ODataError('SearchNotSupported', '$search is not supported; use $filter with contains()', { target: '$search' })
    if (!ACCEPTED[kind].has(option)) {
      const what = kind === 'entity' ? 'a single entity' : kind === 'count' ? '/$count' : 'a collection'
      throw new ODataError('InvalidQueryOption', `${option} does not apply to ${what}`, { target: option })
    }
  }
  const limits = request.subject.profile.expressionLimits as Partial<ExpressionLimits>
  const text = (option: SystemQueryOption) => system.get(option)
  const parse = <T>(
    option: SystemQueryOption,
    parser: (text: string, options: { option: string; limits: Partial<ExpressionLimits> }) => T,
  ): T | null => {
    const value = text(option)
    return value === undefined ? null : parser(value, { option, limits })
  }
  return {
    filter: parse('$filter', parseFilter),
    orderBy: parse('$orderby', parseOrderBy),
    select: parse('$select', parseSelect),
    expand: parse('$expand', parseExpand),
    apply: parse('$apply', parseApply),
    top: nonNegativeInteger('$top', text('$top')),
    skip: nonNegativeInteger('$skip', text('$skip')),
    count: booleanOption('$count', text('$count')),
    skipToken: text('$skiptoken'),
    limits,
  }
}

function nonNegativeInteger(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  const trimmed = text.trim()
  if (!/^\d{1,15}$/.test(trimmed))
    throw new ODataError('InvalidQueryOption', `${option} must be a non-negative integer, not ${JSON.stringify(text.slice(0, 40))}`, {
      target: option,
    })
  return Number(trimmed)
}

function booleanOption(option: string, text: string | undefined): boolean {
  if (text === undefined) return false
  const value = text.trim().toLowerCase()
  if (value === 'true') return true
  if (value === 'false') return false
  throw new ODataError('InvalidQueryOption', `${option} must be true or false`, { target: option })
}
