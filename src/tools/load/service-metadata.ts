// What the loader needs to know of the target sets, read from the service's `$metadata` (CSDL XML):
// property types (CSV gives text; the service wants numbers and booleans as JSON), the key, the
// references (a single-valued navigation with a referential constraint: `Warehouse` → `Warehouse_Key`
// into Catalog_Warehouses) and the table parts (collection-valued properties, or navigations in older services, written
// whole inside the owner). Read with regular expressions: the document is the service's own, flat and regular.
import type { ServiceClient } from '../shared/service-client.js'

export interface ReferenceShape {
  /** The property holding the key (`Warehouse_Key`). */
  readonly keyProperty: string
  /** The entity set referred to (`Catalog_Warehouses`). */
  readonly targetSet: string
}

export interface EntityShape {
  readonly name: string
  readonly key: readonly string[]
  /** Property name → Edm type (`Edm.Decimal`). */
  readonly properties: ReadonlyMap<string, string>
  /** Decimal property name → its `Precision` and `Scale` (an export to Parquet writes exact decimals with them). */
  readonly decimals: ReadonlyMap<string, { readonly precision: number; readonly scale: number }>
  /** Navigation name → reference (single-valued, with a referential constraint). */
  readonly references: ReadonlyMap<string, ReferenceShape>
  /** Table part name → the shape of its rows. */
  readonly tableParts: ReadonlyMap<string, EntityShape>
}

export interface ServiceMetadata {
  readonly namespace: string
  /** Entity set name → shape. */
  readonly sets: ReadonlyMap<string, EntityShape>
}

export async function readServiceMetadata(client: Pick<ServiceClient, 'request'>): Promise<ServiceMetadata> {
  const answer = await client.request('GET', '$metadata')
  if (answer.status !== 200) throw new Error(`GET $metadata answered ${answer.status}: ${answer.text().slice(0, 200)}`)
  return parseMetadata(answer.text())
}

function attribute(tag: string, name: string): string | undefined {
  return new RegExp(`\\s${name}="([^"]*)"`).exec(tag)?.[1]
}

export function parseMetadata(xml: string): ServiceMetadata {
  const namespace = /<Schema [^>]*Namespace="([^"]+)"/.exec(xml)?.[1] ?? ''
  const strip = (type: string) => type.replace(/^Collection\((.*)\)$/, '$1').replace(`${namespace}.`, '')
  interface RawType {
    key: string[]
    properties: Map<string, string>
    decimals: Map<string, { precision: number; scale: number }>
    /** Collection-valued properties: table parts (their rows are written inside the owner). */
    collections: Map<string, string>
    navigations: { name: string; type: string; collection: boolean; keyProperty?: string }[]
  }
  const types = new Map<string, RawType>()
  const typeBlock = /<EntityType Name="([^"]+)"[^>]*>([\s\S]*?)<\/EntityType>/g
  let match: RegExpExecArray | null
  while ((match = typeBlock.exec(xml)) !== null) {
    const body = match[2]!
    const raw: RawType = { key: [], properties: new Map(), decimals: new Map(), collections: new Map(), navigations: [] }
    for (const ref of body.matchAll(/<PropertyRef [^>]*\/>/g)) raw.key.push(attribute(ref[0], 'Name')!)
    for (const property of body.matchAll(/<Property [^>]*\/?>/g)) {
      const type = attribute(property[0], 'Type')!
      ;(type.startsWith('Collection(') ? raw.collections : raw.properties).set(attribute(property[0], 'Name')!, type)
      const precision = Number(attribute(property[0], 'Precision'))
      const scale = Number(attribute(property[0], 'Scale') ?? 0)
      if (type === 'Edm.Decimal' && Number.isInteger(precision) && Number.isInteger(scale))
        raw.decimals.set(attribute(property[0], 'Name')!, { precision, scale })
    }
    for (const nav of body.matchAll(/<NavigationProperty ([^>]*?)(\/>|>([\s\S]*?)<\/NavigationProperty>)/g)) {
      const type = attribute(` ${nav[1]}`, 'Type')!
      const constraint = nav[3] ? /<ReferentialConstraint[^>]*?\sProperty="([^"]+)"/.exec(nav[3])?.[1] : undefined
      raw.navigations.push({
        name: attribute(` ${nav[1]}`, 'Name')!,
        type: strip(type),
        collection: type.startsWith('Collection('),
        keyProperty: constraint,
      })
    }
    types.set(match[1]!, raw)
  }
  const setOfType = new Map<string, string>()
  for (const set of xml.matchAll(/<EntitySet [^>]*>/g)) setOfType.set(strip(attribute(set[0], 'EntityType')!), attribute(set[0], 'Name')!)
  const shapes = new Map<string, EntityShape>()
  const shapeOf = (typeName: string): EntityShape => {
    const known = shapes.get(typeName)
    if (known) return known
    const raw = types.get(typeName)
    if (!raw) throw new Error(`$metadata has no entity type ${typeName}`)
    const references = new Map<string, ReferenceShape>()
    const tableParts = new Map<string, EntityShape>()
    const shape: EntityShape = {
      name: typeName,
      key: raw.key,
      properties: raw.properties,
      decimals: raw.decimals,
      references,
      tableParts,
    }
    shapes.set(typeName, shape)
    // A table part is a collection property of the owner (decisions.md §2) whose rows are also readable as
    // their own set, named after the owner and the part; older services declare it as a collection navigation.
    for (const name of raw.collections.keys()) {
      if (types.has(`${typeName}_${name}`)) tableParts.set(name, shapeOf(`${typeName}_${name}`))
    }
    for (const nav of raw.navigations) {
      if (nav.collection) {
        // A table part's rows have their own set, named after the owner and the part.
        if (types.has(nav.type) && nav.type === `${typeName}_${nav.name}`) tableParts.set(nav.name, shapeOf(nav.type))
      } else if (nav.keyProperty) {
        references.set(nav.name, { keyProperty: nav.keyProperty, targetSet: setOfType.get(nav.type) ?? nav.type })
      }
    }
    return shape
  }
  const sets = new Map<string, EntityShape>()
  for (const [typeName, setName] of setOfType) sets.set(setName, shapeOf(typeName))
  return { namespace, sets }
}
