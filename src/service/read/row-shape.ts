// How the rows of one query become JSON objects: which positions hold the selected properties, which
// expansions follow them, and how an entity's `@odata.id` is written for `/$ref`. Built once per request
// (and per expanded navigation), before the query runs; the query's SELECT list is the projection.
import type { ServiceModel } from '../../model/model.js'
import type { BoundExpandItem, BoundSelect, QueryScope } from '../../odata/bind/index.js'
import type { ExpandForm } from '../../odata/expression/index.js'
import { canonicalKey } from '../../respond/entity-writer.js'
import { createMembersWriter, outputField, type MembersWriter } from '../../respond/object-writer.js'
import type { JsonFormat } from '../response-format.js'
import { Expansion } from './expansion.js'
import { Projection } from './projection.js'

export interface ShapeContext {
  readonly model: ServiceModel
  readonly format: JsonFormat
  readonly serviceRoot: string
}

export interface RowShape {
  readonly scope: QueryScope
  readonly projection: Projection
  readonly members: MembersWriter
  readonly expansions: readonly Expansion[]
}

export function buildRowShape(
  scope: QueryScope,
  select: BoundSelect,
  expand: readonly BoundExpandItem[],
  context: ShapeContext,
  form: ExpandForm = 'entities',
): RowShape {
  const projection = new Projection()
  const root = scope.root
  let members: MembersWriter
  if (form === 'entities') {
    const fields = select.columns.map((column) =>
      outputField(column.name, projection.addColumn(root, column), column.property, context.format),
    )
    members = createMembersWriter(fields)
  } else if (form === 'references') {
    members = referenceWriter(scope, projection, context.serviceRoot)
  } else {
    members = () => ''
  }
  const expansions =
    form === 'entities'
      ? expand.map((item) => new Expansion(item, root, projection, buildRowShape(item.scope, item.select, item.expand, context, item.form)))
      : []
  return { scope, projection, members, expansions }
}

/** `"@odata.id":"…/Catalog_Products(…)"`, from the entity's key columns. */
function referenceWriter(scope: QueryScope, projection: Projection, serviceRoot: string): MembersWriter {
  const source = scope.root.source
  const set = source.entitySet
  if (!set) throw new Error(`internal: ${source.name} rows are not entities`)
  const positions = new Map(set.key.map((k) => [k, projection.addColumn(scope.root, source.columnByName.get(k.name)!)] as const))
  const prefix = `${serviceRoot}${encodeURIComponent(set.name)}`
  return (row) => `"@odata.id":${JSON.stringify(prefix + canonicalKey(set, (property) => row[positions.get(property)!]))}`
}
