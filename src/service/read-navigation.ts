// GET of a navigation from one entity: a collection (`Document_GoodsReceipt(…)/Goods`,
// `AccumulationRegister_Stock(…)/RecordSet`, and their `/$count`) is read like its own set, limited to
// the rows linked to the parent; a single-valued navigation (`…/Warehouse`) is the referenced entity,
// or 204 No Content when the reference is empty (OData 4.01 §11.2.6). A parent that does not exist is 404.
import { ODataError } from '../errors.js'
import { EMPTY_GUID, type EntitySetModel, type NavigationModel } from '../model/model.js'
import { BoundComparison, BoundLiteral, BoundProperty, type CollectionNavigation } from '../odata/bind/index.js'
import type { KeyValues } from '../odata/resource-path.js'
import { canonicalKey } from '../respond/entity-writer.js'
import type { ResponseSink } from '../respond/response-sink.js'
import { entitySetSources } from '../sql/entity-set-sources.js'
import { authorizeRead } from './authorize.js'
import { readCount } from './read/read-count.js'
import { readRows, type RowsTarget } from './read/read-rows.js'
import { entityExists, fetchEntityRow, readEntity } from './read-entity.js'
import type { ServiceContext } from './service-context.js'
import type { ServiceRequest } from './service-request.js'

export async function readNavigation(
  context: ServiceContext,
  request: ServiceRequest,
  sink: ResponseSink,
  set: EntitySetModel,
  key: KeyValues,
  navigation: NavigationModel,
  count: boolean,
): Promise<void> {
  authorizeRead(request.subject, set)
  const targetSet = context.model.entitySetByName.get(navigation.targetSet)!
  authorizeRead(request.subject, targetSet)
  const sources = entitySetSources(context.model)

  if (!navigation.collection) {
    const foreignKey = set.propertyByName.get(navigation.foreignKey!)!
    const parent = await fetchEntityRow(context, set, key, [foreignKey])
    if (!parent) throw new ODataError('NotFound', `${set.name} has no entity with this key`)
    const target = parent[0]
    if (target === null || target === EMPTY_GUID) return sink.send(204, {})
    return readEntity(context, request, sink, targetSet, new Map([[targetSet.key[0]!.name, target as string]]), { missing: 'noContent' })
  }

  if (!(await entityExists(context, set, key))) throw new ODataError('NotFound', `${set.name} has no entity with this key`)
  const link = sources(set.name).navigationByName.get(navigation.name) as CollectionNavigation
  const base = sources(targetSet.name)
  const target: RowsTarget = {
    base,
    contextName: targetSet.name,
    resourcePath: `${encodeURIComponent(set.name)}${canonicalKey(set, (property) => key.get(property.name))}/${encodeURIComponent(navigation.name)}`,
    conditions: (root) =>
      link.links.map(({ parent, child }) => {
        const column = base.columnByName.get(child)!
        return BoundComparison.create(
          'eq',
          BoundProperty.create(root, column),
          BoundLiteral.create(column.type, key.get(parent.name) as string | number),
        )
      }),
  }
  return count ? readCount(context, request, sink, target) : readRows(context, request, sink, target)
}
