// `$metadata`: the service's EDM as CSDL 4.01, in XML (buildMetadataXml) and in JSON (buildMetadataJson).
//
// Two steps. describeSchema() decides, from the model alone, which CSDL elements exist: entity types,
// complex types, bound functions and actions, the entity container, with every type and facet. The two
// writers below only spell that description in their syntax, so the XML and the JSON form cannot say
// different things. Both documents are built once at start-up and cached by the caller.
//
// Decisions (where neither service.md nor decisions.md fixes the CSDL):
// - The entity container is `EnterpriseV8`, the name the reference system (1C:Enterprise) gives its
//   container, next to its `StandardODATA` namespace. The configuration's own `name` is free text for
//   people and need not be an OData identifier, so it is not used here.
// - Every Edm.DateTimeOffset (properties and parameters) has Precision="0": values are stored as MySQL
//   DATETIME, whole seconds (decisions.md §3), so a client must not expect fractional seconds back.
//   Zero is also the CSDL default; saying it explicitly keeps that fact visible in the document.
// - Table parts (`Goods` of a document, `ExtDimensionTypes` of a chart of accounts) and record sets
//   (`RecordSet` of a register) are structural properties of their owner (decisions.md §2: "the array
//   property `<TablePart>` of the owner"; service.md §2.1: "the collection property is `RecordSet`"): a
//   collection of a complex row type, `<Owner>_<Part>_RowType` (`<Register>_RowType` for a record set, the
//   reference system's names), whose properties are those of the rows' own entity type and whose
//   references are navigable (`$expand=Goods($expand=Product)`, bound by the path `Goods/Product`). A plain
//   read therefore carries them, as the reference system's does. The other CSDL form, a contained
//   navigation (`ContainsTarget="true"`), would be returned only when expanded, and contained entities
//   could not also be the rows of the `Document_X_Goods` sets that clients read today. The rows stay
//   readable on their own in those sets, and `$expand=Goods` keeps working for clients that send it.
// - Properties of virtual-table result types are all nullable: which columns a result fills depends on
//   the call (`Dimensions`, `$select`, the periodicity of §4.3), so no column is guaranteed. The model
//   copies the register's `nullable: false` into `resultProperties`, which is right for the register and
//   wrong for a grouped result.
// - Every non-binding parameter is marked optional with `Core.OptionalParameter`: the specification
//   allows `Balance()` and omitting any parameter, and OData 4.01 only lets a client omit a function
//   parameter that carries this annotation (Nullable alone is enough for actions only).
// - A virtual table whose result is the register's own entity type (the slices) declares
//   EntitySetPath="bindingParameter": its rows are entities of the set it is called on.
import { escapeXml } from './escape-xml.js'
import type { EdmPrimitiveType, EntitySetModel, NavigationModel, PropertyModel, ServiceModel, StorageType } from './model.js'
import type { VirtualTableParameter, VirtualTableSignature } from './virtual-tables.js'

/** The entity container's name; see the decisions above. */
export const ENTITY_CONTAINER_NAME = 'EnterpriseV8'

/** The name OData conventionally gives the binding parameter of a bound operation. */
export const BINDING_PARAMETER = 'bindingParameter'

const EDMX_NAMESPACE = 'http://docs.oasis-open.org/odata/ns/edmx'
const EDM_NAMESPACE = 'http://docs.oasis-open.org/odata/ns/edm'

/** The OASIS Core vocabulary, for `Core.OptionalParameter`. */
const CORE_VOCABULARY = {
  namespace: 'Org.OData.Core.V1',
  alias: 'Core',
  xmlUri: 'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.xml',
  jsonUri: 'https://oasis-tcs.github.io/odata-vocabularies/vocabularies/Org.OData.Core.V1.json',
} as const

// ---------------------------------------------------------------------------------------------------
// The description: plain data, one object per CSDL element.

/** Type facets (CSDL §7.2). Absent means "not stated", which for each facet has a CSDL default. */
export interface CsdlFacets {
  readonly maxLength?: number
  readonly precision?: number
  /** `variable` for a decimal whose scale is not fixed (the CSDL default would be 0: integers only). */
  readonly scale?: number | 'variable'
}

export interface CsdlProperty extends CsdlFacets {
  readonly name: string
  /** A primitive type, or the qualified name of a complex row type (table parts, record sets). */
  readonly type: EdmPrimitiveType | string
  readonly nullable: boolean
  /** A collection of rows (`Goods`, `RecordSet`); absent for single values. */
  readonly collection?: boolean
}

export interface CsdlNavigationProperty {
  readonly name: string
  /** Qualified name of the target entity type. */
  readonly targetType: string
  readonly collection: boolean
  /** Single-valued only: the declaring type's `X_Key` and the target's key property it holds. */
  readonly referentialConstraint?: { readonly property: string; readonly referencedProperty: string }
}

export interface CsdlStructuredType {
  readonly kind: 'EntityType' | 'ComplexType'
  readonly name: string
  /** Entity types only (empty for complex types). */
  readonly key: readonly string[]
  readonly properties: readonly CsdlProperty[]
  readonly navigationProperties: readonly CsdlNavigationProperty[]
}

export interface CsdlParameter extends CsdlFacets {
  readonly name: string
  /** A primitive type or a qualified type name. */
  readonly type: string
  readonly collection: boolean
  readonly nullable: boolean
  /** Annotated `Core.OptionalParameter`: the caller may leave it out. */
  readonly optional: boolean
}

export interface CsdlOperation {
  readonly kind: 'Function' | 'Action'
  readonly name: string
  /** The first one is the binding parameter: every operation of this service is bound. */
  readonly parameters: readonly CsdlParameter[]
  /** Functions always return; this service's actions (Post, Unpost) return nothing. */
  readonly returnType?: { readonly type: string; readonly collection: boolean }
  readonly isComposable: boolean
  readonly entitySetPath?: string
}

export interface CsdlEntitySet {
  readonly name: string
  /** Qualified name of its entity type. */
  readonly entityType: string
  readonly navigationPropertyBindings: readonly { readonly path: string; readonly target: string }[]
}

export interface CsdlSchemaDescription {
  readonly namespace: string
  readonly entityTypes: readonly CsdlStructuredType[]
  readonly complexTypes: readonly CsdlStructuredType[]
  readonly operations: readonly CsdlOperation[]
  readonly container: { readonly name: string; readonly entitySets: readonly CsdlEntitySet[] }
}

/** The CSDL elements the model implies; both writers render exactly this. */
export function describeSchema(model: ServiceModel): CsdlSchemaDescription {
  const qualified = (name: string) => `${model.namespace}.${name}`

  /** The key property a reference (`X_Key`) holds: the target's single key, `Ref_Key` for every object. */
  const referencedKey = (targetSet: string, from: string): string => {
    const target = model.entitySetByName.get(targetSet)
    if (target === undefined || target.key.length !== 1)
      throw new Error(`${from} refers to ${targetSet}, which is not an entity set with a single key`)
    return target.key[0]!.name
  }

  const entityNavigation = (set: EntitySetModel, navigation: NavigationModel): CsdlNavigationProperty => {
    if (navigation.collection) return { name: navigation.name, targetType: qualified(navigation.targetSet), collection: true }
    if (navigation.foreignKey === undefined) throw new Error(`${set.name}/${navigation.name} is single-valued but names no foreign key`)
    return {
      name: navigation.name,
      targetType: qualified(navigation.targetSet),
      collection: false,
      referentialConstraint: {
        property: navigation.foreignKey,
        referencedProperty: referencedKey(navigation.targetSet, `${set.name}/${navigation.foreignKey}`),
      },
    }
  }

  const references = (set: EntitySetModel) => set.navigations.filter((navigation) => !navigation.collection)
  const parts = (set: EntitySetModel) => set.navigations.filter((navigation) => navigation.collection)

  const entityTypes: CsdlStructuredType[] = model.entitySets.map((set) => ({
    kind: 'EntityType',
    name: set.name,
    key: set.key.map((property) => property.name),
    properties: [
      ...set.properties.map((property) => describeProperty(property, property.nullable)),
      ...parts(set).map((part) => ({ name: part.name, type: qualified(rowTypeName(set, part)), nullable: false, collection: true })),
    ],
    navigationProperties: references(set).map((navigation) => entityNavigation(set, navigation)),
  }))

  // The row types of table parts and record sets: the properties of the rows' entity type, and its references.
  const rowTypes: CsdlStructuredType[] = model.entitySets.flatMap((set) =>
    parts(set).map((part) => {
      const rows = model.entitySetByName.get(part.targetSet)!
      return {
        kind: 'ComplexType' as const,
        name: rowTypeName(set, part),
        key: [],
        properties: rows.properties.map((property) => describeProperty(property, property.nullable)),
        navigationProperties: references(rows).map((navigation) => entityNavigation(rows, navigation)),
      }
    }),
  )

  // Result types of virtual tables. A result column holding a reference (`Warehouse_Key`) is navigable
  // like the register's own (`$expand=Warehouse` on a balance, service.md §4.2 rule 4).
  const complexTypes = new Map<string, CsdlStructuredType>()
  for (const set of model.entitySets) {
    for (const fn of set.functions) {
      if (fn.resultIsEntity || complexTypes.has(fn.resultType)) continue
      complexTypes.set(fn.resultType, {
        kind: 'ComplexType',
        name: fn.resultType,
        key: [],
        properties: fn.resultProperties.map((property) => describeProperty(property, true)),
        navigationProperties: fn.resultProperties.flatMap((property) =>
          property.reference === undefined
            ? []
            : [
                {
                  name: property.reference.navigation,
                  targetType: qualified(property.reference.targetSet),
                  collection: false,
                  referentialConstraint: {
                    property: property.name,
                    referencedProperty: referencedKey(property.reference.targetSet, `${fn.resultType}/${property.name}`),
                  },
                },
              ],
        ),
      })
    }
  }

  const operations: CsdlOperation[] = []
  for (const set of model.entitySets) {
    for (const fn of set.functions) operations.push(describeFunction(qualified, set, fn))
    for (const action of set.actions) {
      operations.push({
        kind: 'Action',
        name: action.name,
        parameters: [bindingParameter(qualified(set.name), false), ...action.parameters.map(describeParameter)],
        isComposable: false,
      })
    }
  }

  return {
    namespace: model.namespace,
    entityTypes,
    complexTypes: [...rowTypes, ...complexTypes.values()],
    operations,
    container: {
      name: ENTITY_CONTAINER_NAME,
      entitySets: model.entitySets.map((set) => ({
        name: set.name,
        entityType: qualified(set.name),
        navigationPropertyBindings: [
          ...references(set).map((navigation) => ({ path: navigation.name, target: navigation.targetSet })),
          // References inside the rows of a table part or record set, bound through the part (`Goods/Product`).
          ...parts(set).flatMap((part) =>
            references(model.entitySetByName.get(part.targetSet)!).map((navigation) => ({
              path: `${part.name}/${navigation.name}`,
              target: navigation.targetSet,
            })),
          ),
        ],
      })),
    },
  }
}

/**
 * The complex type of a table part's or record set's rows: `Document_GoodsReceipt_Goods_RowType`,
 * `AccumulationRegister_Stock_RowType` (a register has one record set, named after the register).
 */
export function rowTypeName(owner: EntitySetModel, part: NavigationModel): string {
  return owner.kind === 'AccumulationRegister' || owner.kind === 'AccountingRegister'
    ? `${owner.name}_RowType`
    : `${owner.name}_${part.name}_RowType`
}

const typeNamesByModel = new WeakMap<ServiceModel, ReadonlySet<string>>()

/** The qualified names of every entity and complex type `$metadata` declares (for `isof`), made once per model. */
export function schemaTypeNames(model: ServiceModel): ReadonlySet<string> {
  let names = typeNamesByModel.get(model)
  if (!names) {
    const schema = describeSchema(model)
    names = new Set([...schema.entityTypes, ...schema.complexTypes].map((type) => `${schema.namespace}.${type.name}`))
    typeNamesByModel.set(model, names)
  }
  return names
}

function describeFunction(qualified: (name: string) => string, set: EntitySetModel, fn: VirtualTableSignature): CsdlOperation {
  return {
    kind: 'Function',
    name: fn.name,
    parameters: [bindingParameter(qualified(set.name), true), ...fn.parameters.map(describeParameter)],
    returnType: { type: qualified(fn.resultType), collection: true },
    // Composable: the result takes further segments and options (`Balance()/$count`, `$filter`, …).
    isComposable: true,
    ...(fn.resultIsEntity ? { entitySetPath: BINDING_PARAMETER } : {}),
  }
}

function bindingParameter(entityType: string, collection: boolean): CsdlParameter {
  return { name: BINDING_PARAMETER, type: entityType, collection, nullable: false, optional: false }
}

function describeParameter(parameter: VirtualTableParameter): CsdlParameter {
  return {
    name: parameter.name,
    type: parameter.edmType,
    collection: false,
    nullable: true,
    optional: true,
    ...facetsOf(parameter.edmType, undefined),
  }
}

function describeProperty(property: PropertyModel, nullable: boolean): CsdlProperty {
  return { name: property.name, type: property.edmType, nullable, ...facetsOf(property.edmType, property.storage) }
}

/** Facets from how a value is stored; a parameter has no storage and gets the type's own facets only. */
function facetsOf(type: EdmPrimitiveType, storage: StorageType | undefined): CsdlFacets {
  switch (type) {
    case 'Edm.String':
      // An enum is stored as a string but is a closed list of values, not "any text up to N characters",
      // so it gets no MaxLength.
      return storage?.kind === 'string' && storage.length !== undefined ? { maxLength: storage.length } : {}
    case 'Edm.Decimal':
      return storage?.kind === 'decimal' ? { precision: storage.precision, scale: storage.scale } : { scale: 'variable' }
    case 'Edm.DateTimeOffset':
      return { precision: 0 }
    default:
      return {}
  }
}

const typeExpression = (type: string, collection: boolean) => (collection ? `Collection(${type})` : type)

// ---------------------------------------------------------------------------------------------------
// CSDL XML (OData CSDL XML 4.01)

type AttributeValue = string | number | boolean | undefined

/** ` Name="value"` for each defined value, in the order given. */
function attributes(values: Readonly<Record<string, AttributeValue>>): string {
  let text = ''
  for (const [name, value] of Object.entries(values)) if (value !== undefined) text += ` ${name}="${escapeXml(String(value))}"`
  return text
}

/** Appends indented lines; elements with children are opened and closed around a callback. */
class XmlLines {
  private readonly lines: string[] = ['<?xml version="1.0" encoding="utf-8"?>']
  private depth = 0

  /** The document: joined once, one line per element. */
  text(): string {
    return `${this.lines.join('\n')}\n`
  }

  empty(name: string, values: Readonly<Record<string, AttributeValue>> = {}): void {
    this.lines.push(`${'  '.repeat(this.depth)}<${name}${attributes(values)}/>`)
  }

  element(name: string, values: Readonly<Record<string, AttributeValue>>, children: () => void): void {
    this.lines.push(`${'  '.repeat(this.depth)}<${name}${attributes(values)}>`)
    this.depth++
    children()
    this.depth--
    this.lines.push(`${'  '.repeat(this.depth)}</${name}>`)
  }
}

/** The facets as XML attributes (undefined ones are left out). */
function facetAttributes(facets: CsdlFacets): Record<string, AttributeValue> {
  return { MaxLength: facets.maxLength, Precision: facets.precision, Scale: facets.scale }
}

/** The `$metadata` document as CSDL XML 4.01, UTF-8 (the caller sends it as `application/xml`). */
export function buildMetadataXml(model: ServiceModel): string {
  const schema = describeSchema(model)
  const xml = new XmlLines()
  xml.element('edmx:Edmx', { 'xmlns:edmx': EDMX_NAMESPACE, Version: '4.01' }, () => {
    xml.element('edmx:Reference', { Uri: CORE_VOCABULARY.xmlUri }, () =>
      xml.empty('edmx:Include', { Namespace: CORE_VOCABULARY.namespace, Alias: CORE_VOCABULARY.alias }),
    )
    xml.element('edmx:DataServices', {}, () => {
      xml.element('Schema', { xmlns: EDM_NAMESPACE, Namespace: schema.namespace }, () => {
        for (const type of schema.entityTypes) writeStructuredTypeXml(xml, type)
        for (const type of schema.complexTypes) writeStructuredTypeXml(xml, type)
        for (const operation of schema.operations) writeOperationXml(xml, operation)
        xml.element('EntityContainer', { Name: schema.container.name }, () => {
          for (const set of schema.container.entitySets) {
            const bindings = () => {
              for (const binding of set.navigationPropertyBindings)
                xml.empty('NavigationPropertyBinding', { Path: binding.path, Target: binding.target })
            }
            if (set.navigationPropertyBindings.length === 0) xml.empty('EntitySet', { Name: set.name, EntityType: set.entityType })
            else xml.element('EntitySet', { Name: set.name, EntityType: set.entityType }, bindings)
          }
        })
      })
    })
  })
  return xml.text()
}

function writeStructuredTypeXml(xml: XmlLines, type: CsdlStructuredType): void {
  xml.element(type.kind, { Name: type.name }, () => {
    if (type.kind === 'EntityType')
      xml.element('Key', {}, () => {
        for (const name of type.key) xml.empty('PropertyRef', { Name: name })
      })
    for (const property of type.properties) {
      // Nullable defaults to true in CSDL XML, so only the exception is written.
      xml.empty('Property', {
        Name: property.name,
        Type: typeExpression(property.type, property.collection === true),
        Nullable: property.nullable ? undefined : false,
        ...facetAttributes(property),
      })
    }
    for (const navigation of type.navigationProperties) {
      const values = { Name: navigation.name, Type: typeExpression(navigation.targetType, navigation.collection) }
      const constraint = navigation.referentialConstraint
      if (constraint === undefined) xml.empty('NavigationProperty', values)
      else
        xml.element('NavigationProperty', values, () =>
          xml.empty('ReferentialConstraint', { Property: constraint.property, ReferencedProperty: constraint.referencedProperty }),
        )
    }
  })
}

function writeOperationXml(xml: XmlLines, operation: CsdlOperation): void {
  const values = {
    Name: operation.name,
    IsBound: true,
    ...(operation.kind === 'Function' ? { IsComposable: operation.isComposable } : {}),
    EntitySetPath: operation.entitySetPath,
  }
  xml.element(operation.kind, values, () => {
    for (const parameter of operation.parameters) {
      const parameterValues = {
        Name: parameter.name,
        Type: typeExpression(parameter.type, parameter.collection),
        Nullable: parameter.nullable,
        ...facetAttributes(parameter),
      }
      if (!parameter.optional) xml.empty('Parameter', parameterValues)
      // An empty record: optional, with no default value stated.
      else
        xml.element('Parameter', parameterValues, () =>
          xml.element('Annotation', { Term: `${CORE_VOCABULARY.alias}.OptionalParameter` }, () => xml.empty('Record')),
        )
    }
    // Rows of a result are never null, hence Nullable="false" (it applies to the items of a collection).
    if (operation.returnType !== undefined)
      xml.empty('ReturnType', { Type: typeExpression(operation.returnType.type, operation.returnType.collection), Nullable: false })
  })
}

// ---------------------------------------------------------------------------------------------------
// CSDL JSON (OData CSDL JSON 4.01). Note the defaults differ from XML: an absent `$Nullable` means false.

type JsonObject = { [member: string]: unknown }

function facetMembers(facets: CsdlFacets): JsonObject {
  return {
    ...(facets.maxLength !== undefined ? { $MaxLength: facets.maxLength } : {}),
    ...(facets.precision !== undefined ? { $Precision: facets.precision } : {}),
    ...(facets.scale !== undefined ? { $Scale: facets.scale } : {}),
  }
}

function structuredTypeJson(type: CsdlStructuredType): JsonObject {
  const members: JsonObject = { $Kind: type.kind }
  if (type.kind === 'EntityType') members.$Key = [...type.key]
  for (const property of type.properties) {
    members[property.name] = {
      ...(property.collection ? { $Collection: true } : {}),
      $Type: property.type,
      ...(property.nullable ? { $Nullable: true } : {}),
      ...facetMembers(property),
    }
  }
  for (const navigation of type.navigationProperties) {
    const constraint = navigation.referentialConstraint
    members[navigation.name] = {
      $Kind: 'NavigationProperty',
      $Type: navigation.targetType,
      // Single-valued navigations are nullable (an empty reference has no target); `$Collection` excludes `$Nullable`.
      ...(navigation.collection ? { $Collection: true } : { $Nullable: true }),
      ...(constraint === undefined ? {} : { $ReferentialConstraint: { [constraint.property]: constraint.referencedProperty } }),
    }
  }
  return members
}

function operationJson(operation: CsdlOperation): JsonObject {
  return {
    $Kind: operation.kind,
    $IsBound: true,
    ...(operation.kind === 'Function' && operation.isComposable ? { $IsComposable: true } : {}),
    ...(operation.entitySetPath !== undefined ? { $EntitySetPath: operation.entitySetPath } : {}),
    $Parameter: operation.parameters.map((parameter) => ({
      $Name: parameter.name,
      $Type: parameter.type,
      ...(parameter.collection ? { $Collection: true } : {}),
      ...(parameter.nullable ? { $Nullable: true } : {}),
      ...facetMembers(parameter),
      ...(parameter.optional ? { [`@${CORE_VOCABULARY.alias}.OptionalParameter`]: {} } : {}),
    })),
    ...(operation.returnType !== undefined
      ? { $ReturnType: { $Type: operation.returnType.type, ...(operation.returnType.collection ? { $Collection: true } : {}) } }
      : {}),
  }
}

/** The `$metadata` document as CSDL JSON 4.01 (`$format=json`), a serialized JSON string. */
export function buildMetadataJson(model: ServiceModel): string {
  const schema = describeSchema(model)
  const members: JsonObject = {}
  for (const type of [...schema.entityTypes, ...schema.complexTypes]) members[type.name] = structuredTypeJson(type)
  // Overloads of one name (`Balance` bound to several registers) share one member: an array.
  for (const operation of schema.operations) {
    const overloads = (members[operation.name] ??= [])
    if (!Array.isArray(overloads)) throw new Error(`operation ${operation.name} has the name of a type`)
    overloads.push(operationJson(operation))
  }
  const container: JsonObject = { $Kind: 'EntityContainer' }
  for (const set of schema.container.entitySets) {
    container[set.name] = {
      $Collection: true,
      $Type: set.entityType,
      ...(set.navigationPropertyBindings.length > 0
        ? {
            $NavigationPropertyBinding: Object.fromEntries(set.navigationPropertyBindings.map((binding) => [binding.path, binding.target])),
          }
        : {}),
    }
  }
  members[schema.container.name] = container
  return JSON.stringify({
    $Version: '4.01',
    $EntityContainer: `${schema.namespace}.${schema.container.name}`,
    $Reference: { [CORE_VOCABULARY.jsonUri]: { $Include: [{ $Namespace: CORE_VOCABULARY.namespace, $Alias: CORE_VOCABULARY.alias }] } },
    [schema.namespace]: members,
  })
}
