// The entity sets of the model as queryable sources (src/odata/bind/queryable-source.ts), made once per
// model. Most sets read their table; the record-set sets (`AccumulationRegister_Stock`: one entity per
// recorder) read the distinct recorders of the movement table.
//
// The row key is the table's primary key when the set exposes all of its columns — the order an index
// delivers without sorting, so the first row of a million-row export leaves at once and a paging token
// seeks instead of skipping. For movements that is (Recorder, LineNumber): Recorder_Type follows from
// Recorder, and sorting by it (an ENUM, sorted as text) would need a filesort over the whole register.
import type { EntitySetModel, ServiceModel } from '../model/model.js'
import { tablePrimaryKey } from '../model/table-primary-key.js'
import { columnMap, type QueryableSource, type SourceColumn, type SourceNavigation, type SourceResolver } from '../odata/bind/index.js'
import { Statement } from '../statement.js'
import { quoteIdentifier as q } from './quote-identifier.js'

const resolvers = new WeakMap<ServiceModel, SourceResolver>()

/** Finds (and makes once) the source of every entity set of the model. */
export function entitySetSources(model: ServiceModel): SourceResolver {
  let resolver = resolvers.get(model)
  if (resolver) return resolver
  // Record-set sets share the movement table of their register: the key is found by table, not by set.
  const primaryKeys = new Map<string, readonly string[]>()
  for (const set of model.entitySets) {
    const key = tablePrimaryKey(model, set)
    if (key) primaryKeys.set(set.table, key)
  }
  const sources = new Map<string, QueryableSource>()
  resolver = (setName: string) => {
    let source = sources.get(setName)
    if (!source) {
      const set = model.entitySetByName.get(setName)
      if (!set) throw new Error(`internal: no entity set ${setName}`)
      source = entitySetSource(set, primaryKeys.get(set.table) ?? [])
      sources.set(setName, source)
    }
    return source
  }
  resolvers.set(model, resolver)
  return resolver
}

function entitySetSource(set: EntitySetModel, tablePrimaryKey: readonly string[]): QueryableSource {
  // service.md §2.2: a register without key fields is keyed by SurrogateKey, always 0.
  const surrogate = set.kind === 'InformationRegister' && set.key.length === 1 && set.key[0]!.name === 'SurrogateKey'
  const columns: SourceColumn[] = set.properties.map((property) =>
    Object.freeze({
      name: property.name,
      property,
      type: property.edmType,
      sqlName: property.column,
      surrogate: surrogate && property.name === 'SurrogateKey',
    }),
  )
  const byName = columnMap(columns)
  const byColumn = new Map(columns.map((c) => [c.sqlName, c] as const))
  const navigations = new Map<string, SourceNavigation>()
  for (const navigation of set.navigations) {
    if (navigation.collection) {
      const links = set.key.map((key, i) => ({ parent: byName.get(key.name)!, child: navigation.partnerKey![i]! }))
      navigations.set(navigation.name, Object.freeze({ kind: 'collection', name: navigation.name, targetSet: navigation.targetSet, links }))
    } else {
      navigations.set(
        navigation.name,
        Object.freeze({
          kind: 'reference',
          name: navigation.name,
          targetSet: navigation.targetSet,
          foreignKey: byName.get(navigation.foreignKey!)!,
        }),
      )
    }
  }
  const recordSets = set.kind === 'AccumulationRegister' || set.kind === 'AccountingRegister'
  const tableKey = tablePrimaryKey.map((name) => byColumn.get(name))
  const rowKey =
    !recordSets && tableKey.length > 0 && tableKey.every((c) => c !== undefined)
      ? (tableKey as SourceColumn[])
      : set.key.map((k) => byName.get(k.name)!)
  const relation = recordSets
    ? {
        kind: 'derived' as const,
        statement: new Statement(`SELECT DISTINCT ${columns.map((c) => q(c.sqlName)).join(', ')} FROM ${q(set.table)}`, []),
      }
    : { kind: 'table' as const, table: set.table }
  return Object.freeze({
    name: set.name,
    relation,
    columns,
    columnByName: byName,
    navigationByName: navigations,
    rowKey,
    ordering: rowKey.map((column) => ({ column, descending: false })),
    entitySet: set,
  })
}
