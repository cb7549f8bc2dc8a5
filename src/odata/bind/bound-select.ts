// `$select` bound: the columns to write, in the source's order. Navigation properties may be named (OData
// 4.01 allows it; they only matter for links, which minimal metadata leaves out) and are kept for the
// context URL.
import type { SelectNode } from '../expression/index.js'
import type { BindContext } from './bind-context.js'
import { bindError } from './bind-error.js'
import type { QueryableSource, SourceColumn } from './queryable-source.js'

export interface BoundSelect {
  readonly columns: readonly SourceColumn[]
  /** True when `$select` names properties (not absent, not `*`): the context URL then lists them. */
  readonly explicit: boolean
  /** The names as the context URL lists them (selected properties and navigations, model order). */
  readonly names: readonly string[]
}

export function selectAll(source: QueryableSource): BoundSelect {
  return { columns: source.columns, explicit: false, names: [] }
}

export function bindSelect(node: SelectNode | null, source: QueryableSource, context: BindContext): BoundSelect {
  if (node === null) return selectAll(source)
  const chosen = new Set<SourceColumn>()
  const navigations = new Set<string>()
  for (const item of node.items) {
    if (item.kind === 'StarNode') return selectAll(source)
    const segments = item.segments
    const first = segments[0]
    if (segments.length !== 1 || first?.kind !== 'PropertySegmentNode') {
      const at = segments[1]?.position ?? item.position
      throw bindError(context, at, 'select properties of a navigation with $expand, as in $expand=Product($select=Description)')
    }
    const column = source.columnByName.get(first.name)
    if (column) chosen.add(column)
    else if (source.navigationByName.has(first.name)) navigations.add(first.name)
    else throw bindError(context, first.position, `${source.name} has no property ${JSON.stringify(first.name)}`)
  }
  const columns = source.columns.filter((c) => chosen.has(c))
  return {
    columns,
    explicit: true,
    names: [...columns.map((c) => c.name), ...[...source.navigationByName.keys()].filter((n) => navigations.has(n))],
  }
}
