// `@odata.context` of a read (OData 4.01 JSON §4.5, URL Conventions §10): the set, then in parentheses
// the selected properties and each expanded navigation with its own selection (`Nav()` when it has
// none), or, after `$apply` changed the shape, the result's properties (`Set(Product(Description),Total)`,
// Data Aggregation §3.17). Absolute, from the request's Host, without any token (decisions.md §3).
import type { EntitySetModel } from '../../model/model.js'
import type { BoundApply, BoundExpandItem, BoundSelect } from '../../odata/bind/index.js'
import { perRootCache } from '../per-root-cache.js'

/**
 * `"@odata.context":"…",` of a whole entity of a set (no selection), by service root: the same text for
 * every create of a batch and every plain read by key, made once.
 */
const entityContextMember = perRootCache(
  (set: EntitySetModel, serviceRoot: string) => `"@odata.context":${JSON.stringify(`${serviceRoot}$metadata#${set.name}/$entity`)},`,
)

/** The annotations a whole entity of a set opens with: its context and, when it has one, its ETag. */
export function entityAnnotations(set: EntitySetModel, serviceRoot: string, etag: string | undefined): string {
  return entityContextMember(set, serviceRoot) + (etag === undefined ? '' : `"@odata.etag":${JSON.stringify(etag)},`)
}

export function contextUrl(
  serviceRoot: string,
  setName: string,
  options: { select: BoundSelect; expand: readonly BoundExpandItem[]; apply?: BoundApply | undefined },
  entity = false,
): string {
  const items = selectionItems(options.select, options.expand, options.apply?.contextItems)
  const selection = items.length > 0 ? `(${items.join(',')})` : ''
  return `${serviceRoot}$metadata#${setName}${selection}${entity ? '/$entity' : ''}`
}

function selectionItems(select: BoundSelect, expand: readonly BoundExpandItem[], shaped: readonly string[] | undefined): string[] {
  const items = select.explicit ? [...select.names] : shaped ? [...shaped] : []
  for (const item of expand) {
    // A table part or record set read as its owner's property is no expansion: the context names none.
    if (item.form !== 'entities' || item.implicit) continue
    items.push(`${item.navigation.name}(${selectionItems(item.select, item.expand, undefined).join(',')})`)
  }
  return items
}
