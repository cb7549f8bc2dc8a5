// `$metadata` (src/model/csdl.ts) against the model it is built from.
//
// Two kinds of check here (the third, validation against the OASIS schemas, reads the corpus:
// test/corpus/csdl-schemas.corpus.ts):
// 2. the XML is read back (a small reader below) and compared with the model, in both directions: every
//    set, property, navigation, function and action the model has is declared, and nothing else is;
// 3. the JSON form declares the same things as the XML form.
import t from 'tap'
import { loadModel } from '../../src/model/load-model.js'
import { buildMetadataJson, buildMetadataXml, ENTITY_CONTAINER_NAME } from '../../src/model/csdl.js'
import { escapeXml } from '../../src/model/escape-xml.js'
import type { EntitySetModel, PropertyModel } from '../../src/model/model.js'

const model = loadModel('config/demo.json')
const metadataXml = buildMetadataXml(model)
const namespace = model.namespace
const qualified = (name: string) => `${namespace}.${name}`

// ---------------------------------------------------------------------------------------------------
// A small XML reader, enough for `$metadata`: elements, attributes in double quotes, the five entities and
// numeric character references, an XML declaration, whitespace between elements. Anything else throws,
// so an unexpected construct in the document fails the test instead of being skipped over.

interface XmlElement {
  readonly name: string
  readonly attributes: Readonly<Record<string, string>>
  readonly children: XmlElement[]
}

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" }

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-fA-F]+|#[0-9]+|[a-z]+);/g, (_, entity: string) => {
    if (entity.startsWith('#x')) return String.fromCodePoint(parseInt(entity.slice(2), 16))
    if (entity.startsWith('#')) return String.fromCodePoint(parseInt(entity.slice(1), 10))
    const decoded = ENTITIES[entity]
    if (decoded === undefined) throw new Error(`unknown entity &${entity};`)
    return decoded
  })
}

function readXml(text: string): XmlElement {
  const token = /<\?xml[^?]*\?>|<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[^\s="/>]+="[^"<]*")*)\s*(\/?)>|(\s+)/y
  const open: XmlElement[] = [{ name: '#document', attributes: {}, children: [] }]
  while (token.lastIndex < text.length) {
    const at = token.lastIndex
    const match = token.exec(text)
    if (match === null) throw new Error(`unexpected XML at offset ${at}: ${JSON.stringify(text.slice(at, at + 40))}`)
    const [, closing, name, attributeText, selfClosing] = match
    if (name === undefined) continue // the declaration or whitespace
    if (closing === '/') {
      const element = open.pop()!
      if (element.name !== name) throw new Error(`</${name}> closes <${element.name}> at offset ${at}`)
      continue
    }
    const attributes: Record<string, string> = {}
    for (const [, attribute, value] of (attributeText ?? '').matchAll(/([^\s=]+)="([^"]*)"/g)) {
      if (attribute! in attributes) throw new Error(`attribute ${attribute} repeated at offset ${at}`)
      attributes[attribute!] = decodeEntities(value!)
    }
    const element: XmlElement = { name: name, attributes, children: [] }
    open[open.length - 1]!.children.push(element)
    if (selfClosing !== '/') open.push(element)
  }
  if (open.length !== 1) throw new Error(`<${open[open.length - 1]!.name}> is not closed`)
  const [root] = open[0]!.children
  if (root === undefined || open[0]!.children.length !== 1) throw new Error('a document has exactly one root element')
  return root
}

const childrenNamed = (element: XmlElement, name: string) => element.children.filter((child) => child.name === name)
function onlyChild(element: XmlElement, name: string): XmlElement {
  const found = childrenNamed(element, name)
  if (found.length !== 1)
    throw new Error(`<${element.name} ${JSON.stringify(element.attributes)}> has ${found.length} <${name}>, expected one`)
  return found[0]!
}

// ---------------------------------------------------------------------------------------------------
// What the model says a declaration must look like, written out independently of csdl.ts.

/** The attributes a Property element must have; `nullable` is false only where the model says so. */
function expectedPropertyAttributes(property: PropertyModel, nullable: boolean): Record<string, string> {
  const expected: Record<string, string> = { Name: property.name, Type: property.edmType }
  if (!nullable) expected.Nullable = 'false'
  const storage = property.storage
  if (storage.kind === 'string' && storage.length !== undefined) expected.MaxLength = String(storage.length)
  if (storage.kind === 'decimal') Object.assign(expected, { Precision: String(storage.precision), Scale: String(storage.scale) })
  if (storage.kind === 'datetime') expected.Precision = '0' // stored as DATETIME: whole seconds
  return expected
}

/** Table parts and record sets (collection-valued in the model), and references, of a set. */
const partsOf = (set: EntitySetModel) => set.navigations.filter((navigation) => navigation.collection)
const referencesOf = (set: EntitySetModel) => set.navigations.filter((navigation) => !navigation.collection)
/** The reference system's row type names: `<Owner>_<Part>_RowType`, a register's record set `<Register>_RowType`. */
const rowTypeOf = (set: EntitySetModel, part: { name: string }) =>
  set.kind === 'AccumulationRegister' || set.kind === 'AccountingRegister' ? `${set.name}_RowType` : `${set.name}_${part.name}_RowType`

const root = readXml(metadataXml)
const schema = onlyChild(onlyChild(root, 'edmx:DataServices'), 'Schema')
const container = onlyChild(schema, 'EntityContainer')
const typesByName = (kind: string) => new Map(childrenNamed(schema, kind).map((element) => [element.attributes.Name!, element] as const))
const entityTypes = typesByName('EntityType')
const complexTypes = typesByName('ComplexType')
const entitySets = new Map(childrenNamed(container, 'EntitySet').map((element) => [element.attributes.Name!, element] as const))

/** The operation element named `name` whose binding parameter has type `bindingType`, or undefined. */
function boundOperation(kind: 'Function' | 'Action', name: string, bindingType: string): XmlElement | undefined {
  const matches = childrenNamed(schema, kind).filter(
    (element) => element.attributes.Name === name && childrenNamed(element, 'Parameter')[0]?.attributes.Type === bindingType,
  )
  if (matches.length > 1) throw new Error(`${kind} ${name} is declared ${matches.length} times for ${bindingType}`)
  return matches[0]
}

// ---------------------------------------------------------------------------------------------------
// 2. Read back and compared with the model

t.test('document frame: CSDL 4.01, one schema in the model namespace, the Core vocabulary for optional parameters', async (t) => {
  t.ok(metadataXml.startsWith('<?xml version="1.0" encoding="utf-8"?>\n'))
  t.equal(root.name, 'edmx:Edmx')
  t.equal(root.attributes.Version, '4.01')
  t.equal(root.attributes['xmlns:edmx'], 'http://docs.oasis-open.org/odata/ns/edmx')
  t.equal(childrenNamed(onlyChild(root, 'edmx:DataServices'), 'Schema').length, 1)
  t.equal(schema.attributes.Namespace, namespace)
  t.equal(schema.attributes.Namespace, 'StandardODATA', 'the demo namespace')
  t.equal(schema.attributes.xmlns, 'http://docs.oasis-open.org/odata/ns/edm')
  const include = onlyChild(onlyChild(root, 'edmx:Reference'), 'edmx:Include')
  t.same(include.attributes, { Namespace: 'Org.OData.Core.V1', Alias: 'Core' })
  t.equal(container.attributes.Name, ENTITY_CONTAINER_NAME)
})

t.test('every entity set has an entity type with its key, properties, facets and navigation properties', async (t) => {
  for (const set of model.entitySets) {
    const type = entityTypes.get(set.name)
    if (!t.ok(type, `EntityType ${set.name}`)) continue
    t.same(
      childrenNamed(onlyChild(type!, 'Key'), 'PropertyRef').map((ref) => ref.attributes.Name),
      set.key.map((property) => property.name),
      `${set.name}: key`,
    )
    t.same(
      childrenNamed(type!, 'Property').map((element) => element.attributes),
      [
        ...set.properties.map((property) => expectedPropertyAttributes(property, property.nullable)),
        // Table parts and record sets are properties of their owner (decisions.md §2, service.md §2.1).
        ...partsOf(set).map((part) => ({ Name: part.name, Type: `Collection(${qualified(rowTypeOf(set, part))})`, Nullable: 'false' })),
      ],
      `${set.name}: properties, in model order, with types and facets, then the table parts or record set`,
    )
    const navigations = childrenNamed(type!, 'NavigationProperty')
    t.same(
      navigations.map((element) => element.attributes),
      referencesOf(set).map((navigation) => ({ Name: navigation.name, Type: qualified(navigation.targetSet) })),
      `${set.name}: navigation properties, one per reference`,
    )
    for (const navigation of referencesOf(set)) {
      const element = navigations.find((candidate) => candidate.attributes.Name === navigation.name)
      if (element === undefined) continue
      const constraints = childrenNamed(element, 'ReferentialConstraint').map((constraint) => constraint.attributes)
      t.same(
        constraints,
        [{ Property: navigation.foreignKey, ReferencedProperty: 'Ref_Key' }],
        `${set.name}/${navigation.name}: ${navigation.foreignKey} → Ref_Key`,
      )
    }
  }
  t.equal(entityTypes.size, model.entitySets.length, 'no entity type the model does not have')
  t.equal(childrenNamed(schema, 'EntityType').length, entityTypes.size, 'no entity type declared twice')
})

t.test('table parts and record sets are collection properties of their owner, of a complex row type', async (t) => {
  const navigation = (type: string, name: string) =>
    childrenNamed(entityTypes.get(type)!, 'NavigationProperty').find((element) => element.attributes.Name === name)
  const property = (type: string, name: string) =>
    childrenNamed(entityTypes.get(type)!, 'Property').find((element) => element.attributes.Name === name)
  t.same(property('Document_GoodsReceipt', 'Goods')?.attributes, {
    Name: 'Goods',
    Type: 'Collection(StandardODATA.Document_GoodsReceipt_Goods_RowType)',
    Nullable: 'false',
  })
  t.same(property('AccumulationRegister_Stock', 'RecordSet')?.attributes, {
    Name: 'RecordSet',
    Type: 'Collection(StandardODATA.AccumulationRegister_Stock_RowType)',
    Nullable: 'false',
  })
  t.same(property('ChartOfAccounts_Main', 'ExtDimensionTypes')?.attributes, {
    Name: 'ExtDimensionTypes',
    Type: 'Collection(StandardODATA.ChartOfAccounts_Main_ExtDimensionTypes_RowType)',
    Nullable: 'false',
  })
  t.equal(navigation('Document_GoodsReceipt', 'Goods'), undefined, 'no navigation property Goods')
  t.equal(navigation('AccumulationRegister_Stock', 'RecordSet'), undefined, 'no navigation property RecordSet')
  // A row type has the properties of the rows' own entity type (whose set stays readable), and their references.
  for (const set of model.entitySets) {
    for (const part of partsOf(set)) {
      const rows = model.entitySetByName.get(part.targetSet)!
      const rowType = complexTypes.get(rowTypeOf(set, part))
      if (!t.ok(rowType, `ComplexType ${rowTypeOf(set, part)}`)) continue
      t.same(
        childrenNamed(rowType!, 'Property').map((element) => element.attributes),
        rows.properties.map((p) => expectedPropertyAttributes(p, p.nullable)),
        `${rowTypeOf(set, part)}: the properties of ${rows.name}`,
      )
      t.same(
        childrenNamed(rowType!, 'NavigationProperty').map((element) => [
          element.attributes.Name,
          element.attributes.Type,
          onlyChild(element, 'ReferentialConstraint').attributes.Property,
        ]),
        referencesOf(rows).map((reference) => [reference.name, qualified(reference.targetSet), reference.foreignKey]),
        `${rowTypeOf(set, part)}: its references are navigable`,
      )
      t.ok(entityTypes.has(rows.name), `${rows.name} stays an entity type`)
    }
  }
  const warehouse = navigation('Document_GoodsReceipt', 'Warehouse')!
  t.same(warehouse.attributes, { Name: 'Warehouse', Type: 'StandardODATA.Catalog_Warehouses' })
  t.same(onlyChild(warehouse, 'ReferentialConstraint').attributes, { Property: 'Warehouse_Key', ReferencedProperty: 'Ref_Key' })
})

t.test('the container has an entity set per set, with a binding for every navigation property', async (t) => {
  t.same(
    [...entitySets.keys()],
    model.entitySets.map((set) => set.name),
    'every set, in model order, nothing else',
  )
  for (const set of model.entitySets) {
    const element = entitySets.get(set.name)
    if (!t.ok(element, `EntitySet ${set.name}`)) continue
    t.equal(element!.attributes.EntityType, qualified(set.name))
    t.same(
      childrenNamed(element!, 'NavigationPropertyBinding').map((binding) => binding.attributes),
      [
        ...referencesOf(set).map((navigation) => ({ Path: navigation.name, Target: navigation.targetSet })),
        ...partsOf(set).flatMap((part) =>
          referencesOf(model.entitySetByName.get(part.targetSet)!).map((reference) => ({
            Path: `${part.name}/${reference.name}`,
            Target: reference.targetSet,
          })),
        ),
      ],
      `${set.name}: bindings, references inside the rows through their part`,
    )
  }
  for (const element of container.children) t.equal(element.name, 'EntitySet', 'the container holds entity sets only')
})

t.test('every virtual table of every set is a bound, composable function with the signature of the model', async (t) => {
  let expectedFunctions = 0
  for (const set of model.entitySets) {
    for (const signature of set.functions) {
      expectedFunctions++
      const fn = boundOperation('Function', signature.name, `Collection(${qualified(set.name)})`)
      if (!t.ok(fn, `${set.name}/${signature.name}`)) continue
      t.equal(fn!.attributes.IsBound, 'true')
      t.equal(fn!.attributes.IsComposable, 'true')
      t.equal(
        fn!.attributes.EntitySetPath,
        signature.resultIsEntity ? 'bindingParameter' : undefined,
        `${set.name}/${signature.name}: entity set path only for entity results`,
      )
      const parameters = childrenNamed(fn!, 'Parameter')
      t.same(parameters[0]!.attributes, { Name: 'bindingParameter', Type: `Collection(${qualified(set.name)})`, Nullable: 'false' })
      t.same(
        parameters.slice(1).map((parameter) => parameter.attributes),
        signature.parameters.map((parameter) => ({
          Name: parameter.name,
          Type: parameter.edmType,
          Nullable: 'true',
          ...(parameter.edmType === 'Edm.DateTimeOffset' ? { Precision: '0' } : {}),
        })),
        `${set.name}/${signature.name}: parameters, names and types from the model`,
      )
      for (const parameter of parameters.slice(1)) {
        t.same(
          onlyChild(parameter, 'Annotation').attributes,
          { Term: 'Core.OptionalParameter' },
          `${set.name}/${signature.name}(${parameter.attributes.Name}) may be omitted`,
        )
      }
      t.same(onlyChild(fn!, 'ReturnType').attributes, { Type: `Collection(${qualified(signature.resultType)})`, Nullable: 'false' })
    }
  }
  t.equal(childrenNamed(schema, 'Function').length, expectedFunctions, 'no function the model does not have')
  t.ok(expectedFunctions > 0)
})

t.test('the demo declares the functions of service.md §4.2 per register kind', async (t) => {
  const names = (set: string) =>
    childrenNamed(schema, 'Function')
      .filter((fn) => childrenNamed(fn, 'Parameter')[0]!.attributes.Type === `Collection(StandardODATA.${set})`)
      .map((fn) => fn.attributes.Name)
      .sort()
  t.same(names('InformationRegister_Prices'), ['SliceFirst', 'SliceLast'])
  t.same(names('InformationRegister_КурсыВалют'), ['SliceFirst', 'SliceLast'])
  t.same(names('InformationRegister_Barcodes'), [])
  t.same(names('AccumulationRegister_Stock'), ['Balance', 'BalanceAndTurnovers', 'Turnovers'])
  t.same(names('AccumulationRegister_Sales'), ['Turnovers'])
  t.same(names('AccountingRegister_Main'), ['Balance', 'BalanceAndTurnovers', 'ExtDimensions', 'RecordsWithExtDimensions', 'Turnovers'])
})

t.test('every non-entity result has a complex type with the result properties, all nullable', async (t) => {
  const expected = new Set<string>()
  for (const set of model.entitySets) {
    for (const signature of set.functions) {
      if (signature.resultIsEntity) {
        t.ok(entityTypes.has(signature.resultType), `${signature.resultType} is an entity type`)
        continue
      }
      if (expected.has(signature.resultType)) continue
      expected.add(signature.resultType)
      const type = complexTypes.get(signature.resultType)
      if (!t.ok(type, `ComplexType ${signature.resultType}`)) continue
      t.same(
        childrenNamed(type!, 'Property').map((element) => element.attributes),
        signature.resultProperties.map((property) => expectedPropertyAttributes(property, true)),
        `${signature.resultType}: properties`,
      )
      const references = signature.resultProperties.filter((property) => property.reference !== undefined)
      t.same(
        childrenNamed(type!, 'NavigationProperty').map((element) => [
          element.attributes.Name,
          element.attributes.Type,
          onlyChild(element, 'ReferentialConstraint').attributes.Property,
        ]),
        references.map((property) => [property.reference!.navigation, qualified(property.reference!.targetSet), property.name]),
        `${signature.resultType}: reference columns are navigable`,
      )
    }
  }
  for (const set of model.entitySets) for (const part of partsOf(set)) expected.add(rowTypeOf(set, part))
  t.same([...complexTypes.keys()].sort(), [...expected].sort(), 'no complex type the model does not have (results and row types)')
  t.equal(childrenNamed(schema, 'ComplexType').length, complexTypes.size, 'no complex type declared twice')
})

t.test('Post and Unpost are bound actions of every document, and of nothing else', async (t) => {
  let expectedActions = 0
  for (const set of model.entitySets) {
    if (set.kind === 'Document')
      t.same(
        set.actions.map((action) => action.name),
        ['Post', 'Unpost'],
        `${set.name}: the model has both actions`,
      )
    for (const action of set.actions) {
      expectedActions++
      const element = boundOperation('Action', action.name, qualified(set.name))
      if (!t.ok(element, `${set.name}/${action.name}`)) continue
      t.same(element!.attributes, { Name: action.name, IsBound: 'true' })
      t.same(
        childrenNamed(element!, 'Parameter').map((parameter) => parameter.attributes),
        [
          { Name: 'bindingParameter', Type: qualified(set.name), Nullable: 'false' },
          ...action.parameters.map((parameter) => ({ Name: parameter.name, Type: parameter.edmType, Nullable: 'true' })),
        ],
        `${set.name}/${action.name}: parameters`,
      )
      t.same(childrenNamed(element!, 'ReturnType'), [], `${set.name}/${action.name}: returns nothing (204)`)
    }
  }
  t.equal(childrenNamed(schema, 'Action').length, expectedActions, 'no action the model does not have')
  const post = boundOperation('Action', 'Post', 'StandardODATA.Document_GoodsSale')
  t.same(childrenNamed(post!, 'Parameter')[1]?.attributes, { Name: 'PostingModeOperational', Type: 'Edm.Boolean', Nullable: 'true' })
})

t.test('every qualified name resolves and every name is unique where CSDL needs it', async (t) => {
  const declaredTypes = new Set([...entityTypes.keys(), ...complexTypes.keys()].map(qualified))
  const unresolved: string[] = []
  const visit = (element: XmlElement) => {
    for (const attribute of ['Type', 'EntityType']) {
      const value = element.attributes[attribute]
      if (value === undefined) continue
      const typeName = value.replace(/^Collection\((.*)\)$/, '$1')
      if (!typeName.startsWith('Edm.') && !declaredTypes.has(typeName)) unresolved.push(`${element.name} ${attribute}="${value}"`)
    }
    if (element.name === 'NavigationPropertyBinding' && !entitySets.has(element.attributes.Target!))
      unresolved.push(`binding target ${element.attributes.Target}`)
    element.children.forEach(visit)
  }
  visit(schema)
  t.same(unresolved, [], 'every Type, EntityType and Target names a declaration')

  // Types, the container and operations share the schema's names; only operations may overload a name.
  const schemaNames = schema.children
    .filter((element) => element.name !== 'Function' && element.name !== 'Action')
    .map((element) => element.attributes.Name!)
  const operationNames = new Set(
    schema.children
      .filter((element) => element.name === 'Function' || element.name === 'Action')
      .map((element) => element.attributes.Name!),
  )
  t.equal(new Set(schemaNames).size, schemaNames.length, 'type and container names are unique')
  t.same(
    schemaNames.filter((name) => operationNames.has(name)),
    [],
    'no operation shares a name with a type',
  )
  for (const type of [...entityTypes.values(), ...complexTypes.values()]) {
    const members = type.children
      .filter((child) => child.name === 'Property' || child.name === 'NavigationProperty')
      .map((child) => child.attributes.Name!)
    t.equal(new Set(members).size, members.length, `${type.attributes.Name}: member names are unique`)
  }
})

t.test('Cyrillic names are written as they are, in UTF-8', async (t) => {
  t.ok(entityTypes.has('Catalog_Организации'), 'EntityType Catalog_Организации')
  t.ok(entitySets.has('InformationRegister_КурсыВалют'), 'EntitySet InformationRegister_КурсыВалют')
  t.ok(metadataXml.includes('<Property Name="Валюта" Type="Edm.String" Nullable="false" MaxLength="3"/>'), 'property Валюта')
  t.ok(
    metadataXml.includes('<Property Name="Кратность" Type="Edm.Decimal" Nullable="false" Precision="10" Scale="0"/>'),
    'property Кратность',
  )
  t.notMatch(metadataXml, /&#x?[0-9a-fA-F]+;/, 'no character references: the names are not escaped')
  t.equal(Buffer.from(metadataXml, 'utf8').toString('utf8'), metadataXml, 'the document round-trips through UTF-8')
})

t.test('facets: decimals carry precision and scale, unbounded strings no MaxLength, date-times Precision 0', async (t) => {
  const property = (type: string, name: string) =>
    childrenNamed(entityTypes.get(type)!, 'Property').find((p) => p.attributes.Name === name)!.attributes
  t.same(property('Document_GoodsReceipt_Goods', 'Quantity'), {
    Name: 'Quantity',
    Type: 'Edm.Decimal',
    Nullable: 'false',
    Precision: '15',
    Scale: '3',
  })
  t.same(property('Document_GoodsReceipt', 'Comment'), { Name: 'Comment', Type: 'Edm.String', Nullable: 'false' })
  t.same(property('Document_GoodsReceipt', 'Date'), { Name: 'Date', Type: 'Edm.DateTimeOffset', Nullable: 'false', Precision: '0' })
  t.same(property('Catalog_Products', 'Code'), { Name: 'Code', Type: 'Edm.String', Nullable: 'false', MaxLength: '11' })
  t.same(property('InformationRegister_Settings', 'SurrogateKey'), { Name: 'SurrogateKey', Type: 'Edm.Int32', Nullable: 'false' })
})

t.test('the document is the same on every build', async (t) => {
  t.equal(buildMetadataXml(model), metadataXml)
})

// ---------------------------------------------------------------------------------------------------
// 3. CSDL JSON

type JsonMembers = Record<string, any>
const metadataJson = JSON.parse(buildMetadataJson(model)) as JsonMembers

t.test('the JSON form declares what the XML form declares', async (t) => {
  t.equal(metadataJson.$Version, '4.01')
  t.equal(metadataJson.$EntityContainer, qualified(ENTITY_CONTAINER_NAME))
  const members = metadataJson[namespace] as JsonMembers
  const kindOf = (kind: string) =>
    Object.entries(members)
      .filter(([, member]) => !Array.isArray(member) && member.$Kind === kind)
      .map(([name]) => name)
  t.same(kindOf('EntityType'), [...entityTypes.keys()], 'entity types')
  t.same(kindOf('ComplexType'), [...complexTypes.keys()], 'complex types')
  for (const [name, type] of [...entityTypes, ...complexTypes]) {
    const json = members[name]
    const jsonProperties = Object.keys(json).filter((member) => !member.startsWith('$') && json[member].$Kind === undefined)
    const jsonNavigations = Object.keys(json).filter((member) => !member.startsWith('$') && json[member].$Kind === 'NavigationProperty')
    t.same(
      jsonProperties,
      childrenNamed(type, 'Property').map((p) => p.attributes.Name),
      `${name}: properties`,
    )
    t.same(
      jsonNavigations,
      childrenNamed(type, 'NavigationProperty').map((p) => p.attributes.Name),
      `${name}: navigation properties`,
    )
    for (const property of childrenNamed(type, 'Property')) {
      const jsonProperty = json[property.attributes.Name!]
      // The defaults differ: XML omits Nullable="true", JSON omits "$Nullable": false.
      t.equal(jsonProperty.$Nullable === true, property.attributes.Nullable !== 'false', `${name}/${property.attributes.Name}: nullability`)
      t.equal(jsonProperty.$Collection ? `Collection(${jsonProperty.$Type})` : jsonProperty.$Type, property.attributes.Type)
      t.equal(jsonProperty.$MaxLength === undefined ? undefined : String(jsonProperty.$MaxLength), property.attributes.MaxLength)
      t.equal(jsonProperty.$Precision === undefined ? undefined : String(jsonProperty.$Precision), property.attributes.Precision)
      t.equal(jsonProperty.$Scale === undefined ? undefined : String(jsonProperty.$Scale), property.attributes.Scale)
    }
    if (type.name === 'EntityType')
      t.same(
        json.$Key,
        childrenNamed(onlyChild(type, 'Key'), 'PropertyRef').map((ref) => ref.attributes.Name),
        `${name}: key`,
      )
  }
  // Operations: the same overloads, with the same parameters.
  const signatures = (operations: { name: string; kind: string; parameters: string[] }[]) =>
    operations.map((o) => `${o.kind} ${o.name}(${o.parameters.join(',')})`).sort()
  const fromXml = schema.children
    .filter((element) => element.name === 'Function' || element.name === 'Action')
    .map((element) => ({
      kind: element.name,
      name: element.attributes.Name!,
      parameters: childrenNamed(element, 'Parameter').map((p) => `${p.attributes.Name}:${p.attributes.Type}`),
    }))
  const fromJson = Object.entries(members)
    .filter(([, member]) => Array.isArray(member))
    .flatMap(([name, overloads]) =>
      (overloads as JsonMembers[]).map((overload) => ({
        kind: overload.$Kind as string,
        name,
        parameters: (overload.$Parameter as JsonMembers[]).map((p) => `${p.$Name}:${p.$Collection ? `Collection(${p.$Type})` : p.$Type}`),
      })),
    )
  t.same(signatures(fromJson), signatures(fromXml), 'functions and actions')
  const jsonContainer = members[ENTITY_CONTAINER_NAME] as JsonMembers
  t.equal(jsonContainer.$Kind, 'EntityContainer')
  for (const [name, set] of entitySets) {
    const bindings = Object.fromEntries(
      childrenNamed(set, 'NavigationPropertyBinding').map((binding) => [binding.attributes.Path, binding.attributes.Target]),
    )
    t.same(
      jsonContainer[name],
      {
        $Collection: true,
        $Type: set.attributes.EntityType,
        ...(Object.keys(bindings).length > 0 ? { $NavigationPropertyBinding: bindings } : {}),
      },
      `EntitySet ${name}`,
    )
  }
})

// ---------------------------------------------------------------------------------------------------

t.test('escapeXml', async (t) => {
  t.equal(escapeXml(`a&b<c>d"e'f`), 'a&amp;b&lt;c&gt;d&quot;e&apos;f')
  t.equal(escapeXml('line\nnext\ttab\r'), 'line&#10;next&#9;tab&#13;', 'whitespace that attribute normalization would turn into spaces')
  t.equal(escapeXml('Catalog_Организации'), 'Catalog_Организации', 'non-ASCII letters pass unchanged')
  t.equal(escapeXml('emoji 😀'), 'emoji 😀', 'a surrogate pair is one character and passes')
  t.throws(() => escapeXml('a\u0001b'), /U\+0001/, 'a C0 control cannot be written in XML 1.0')
  t.throws(() => escapeXml('a\uD800b'), /U\+D800/, 'nor a lone surrogate')
  t.equal(readXml(`<a x="${escapeXml('<&"\'\n>')}"/>`).attributes.x, '<&"\'\n>', 'round trip through the test reader')
})
