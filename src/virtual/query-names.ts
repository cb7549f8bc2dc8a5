// The names a read's query options mention at the top level of the rows they apply to, with where they
// stand: what the grouping of balances and turnovers is made of (service.md §4.2 rule 3: "the
// properties mentioned in $select, $filter, $orderby and expanded navigations") and what the check for
// columns the result does not fill looks at (§4.3). Works on the parsed options, before anything is
// bound: the result's columns depend on the answer.
//
// A name is the first segment of a path relative to the rows (`Quantity`, `Warehouse` in
// `Warehouse/Code`, `$it/Product_Key`); paths inside a lambda or a `$count(…)` filter belong to other
// rows, and so do the options nested in an `$expand` item. In `$apply`, names that the transformations
// define themselves (`as Total`) are not the result's.
import type { ApplyNode, ExpandNode, ExpressionNode, OrderByNode, SelectNode } from '../odata/expression/index.js'

export interface MentionedName {
  readonly name: string
  /** The query option it stands in (`$filter`), for the error's target. */
  readonly option: string
  readonly position: number
}

function isNode(value: unknown): value is ExpressionNode {
  return typeof value === 'object' && value !== null && typeof (value as { kind?: unknown }).kind === 'string'
}

/** Every top-level path's first name in an expression tree (a `$filter`, `$orderby` item, `$apply` step). */
function collect(node: ExpressionNode, option: string, into: MentionedName[]): void {
  if (node.kind === 'MemberPathNode') {
    const first = node.segments[0]
    if (node.scope !== 'lambda' && first?.kind === 'PropertySegmentNode') into.push({ name: first.name, option, position: first.position })
    return
  }
  if (node.kind === 'LambdaNode' || node.kind === 'CountSegmentNode') return
  for (const value of Object.values(node)) {
    if (Array.isArray(value)) {
      for (const item of value) if (isNode(item)) collect(item, option, into)
    } else if (isNode(value)) {
      collect(value, option, into)
    }
  }
}

export function namesInFilter(node: ExpressionNode | null, option = '$filter'): MentionedName[] {
  const names: MentionedName[] = []
  if (node !== null) collect(node, option, names)
  return names
}

export function namesInOrderBy(node: OrderByNode | null): MentionedName[] {
  const names: MentionedName[] = []
  for (const item of node?.items ?? []) collect(item.expression, '$orderby', names)
  return names
}

/** `$select` items; `*` is reported apart (it means "every column"). */
export function namesInSelect(node: SelectNode | null): { names: MentionedName[]; star: boolean } {
  const names: MentionedName[] = []
  let star = false
  for (const item of node?.items ?? []) {
    if (item.kind === 'StarNode') star = true
    else if (item.segments[0]?.kind === 'PropertySegmentNode')
      names.push({ name: item.segments[0].name, option: '$select', position: item.segments[0].position })
  }
  return { names, star }
}

/** The navigations `$expand` names (their nested options apply to the related rows). */
export function namesInExpand(node: ExpandNode | null): MentionedName[] {
  const names: MentionedName[] = []
  for (const item of node?.items ?? []) {
    const first = item.path.kind === 'MemberPathNode' ? item.path.segments[0] : undefined
    if (first?.kind === 'PropertySegmentNode') names.push({ name: first.name, option: '$expand', position: first.position })
  }
  return names
}

/** Names of the rows in `$apply`, leaving out the aliases its own steps define. */
export function namesInApply(node: ApplyNode | null): MentionedName[] {
  if (node === null) return []
  const aliases = new Set<string>()
  const gatherAliases = (value: unknown): void => {
    if (Array.isArray(value)) return value.forEach(gatherAliases)
    if (!isNode(value)) return
    const alias = (value as { alias?: unknown }).alias
    if (typeof alias === 'string') aliases.add(alias)
    for (const child of Object.values(value)) gatherAliases(child)
  }
  gatherAliases(node)
  const names: MentionedName[] = []
  collect(node, '$apply', names)
  return names.filter((n) => !aliases.has(n.name))
}
