// Configuration → ServiceModel. Every entity set, property, navigation, table and virtual-table signature
// is derived here; nothing downstream knows a register or catalog by name.
//
// Cross-references are checked as the model is built, and every problem is reported with its path in the
// configuration file, like the schema errors (configuration.ts).
import {
  ConfigurationError,
  type AccountingRegisterConfig,
  type AttributeConfig,
  type ConfigurationProblem,
  type Configuration,
  type DocumentConfig,
  type PostingRuleConfig,
  type ProfileConfig,
} from './configuration.js'
import {
  resolveSettings,
  type ActionModel,
  type EntitySetKind,
  type EntitySetModel,
  type NavigationModel,
  type ProfileModel,
  type PropertyModel,
  type PropertyRole,
  type ServiceModel,
  type SourceObject,
  type SubjectModel,
} from './model.js'
import {
  ACCOUNTING_PARAMETERS,
  ACCUMULATION_PARAMETERS,
  PERIOD_KINDS,
  RESULT_SUFFIX,
  SLICE_PARAMETERS,
  type VirtualTableName,
  type VirtualTableParameter,
  type VirtualTableSignature,
} from './virtual-tables.js'

/** MySQL table-name prefixes per kind of object: short, so that derived names stay within 64 characters. */
export const TABLE_PREFIX = {
  catalog: 'c_',
  document: 'd_',
  chartOfAccounts: 'coa_',
  informationRegister: 'ir_',
  accumulationRegister: 'ar_',
  accountingRegister: 'acr_',
} as const

const REFERENCE_PREFIX: Readonly<Record<string, string>> = {
  Catalog: 'Catalog_',
  Document: 'Document_',
  ChartOfAccounts: 'ChartOfAccounts_',
}

function property(
  name: string,
  role: PropertyRole,
  spec: Omit<PropertyModel, 'name' | 'column' | 'role' | 'nullable'> & { column?: string; nullable?: boolean },
): PropertyModel {
  return Object.freeze({
    name,
    column: spec.column ?? name,
    role,
    nullable: spec.nullable ?? false,
    edmType: spec.edmType,
    storage: spec.storage,
    ...(spec.reference ? { reference: spec.reference } : {}),
  })
}

const guidProperty = (name: string, role: PropertyRole) => property(name, role, { edmType: 'Edm.Guid', storage: { kind: 'guid' } })
const stringProperty = (name: string, role: PropertyRole, length?: number) =>
  property(name, role, { edmType: 'Edm.String', storage: length === undefined ? { kind: 'string' } : { kind: 'string', length } })
const booleanProperty = (name: string, role: PropertyRole) => property(name, role, { edmType: 'Edm.Boolean', storage: { kind: 'boolean' } })
const dateTimeProperty = (name: string, role: PropertyRole) =>
  property(name, role, { edmType: 'Edm.DateTimeOffset', storage: { kind: 'datetime' } })
const intProperty = (name: string, role: PropertyRole) => property(name, role, { edmType: 'Edm.Int32', storage: { kind: 'int' } })
const bigintProperty = (name: string, role: PropertyRole) => property(name, role, { edmType: 'Edm.Int64', storage: { kind: 'bigint' } })
const decimalProperty = (name: string, role: PropertyRole, precision: number, scale: number) =>
  property(name, role, { edmType: 'Edm.Decimal', storage: { kind: 'decimal', precision, scale } })
const enumProperty = (name: string, role: PropertyRole, values: readonly string[]) =>
  property(name, role, { edmType: 'Edm.String', storage: { kind: 'enum', values: Object.freeze([...values]) } })

/** A resource summed over many movements may outgrow its own precision; aggregates get this much headroom. */
const AGGREGATE_PRECISION_HEADROOM = 6

class ModelBuilder {
  readonly problems: ConfigurationProblem[] = []
  readonly sets: EntitySetModel[] = []
  private readonly setNames = new Set<string>()
  readonly namespace: string

  constructor(readonly configuration: Configuration) {
    this.namespace = configuration.namespace ?? 'StandardODATA'
  }

  problem(path: string, message: string): void {
    this.problems.push({ path, message })
  }

  /** `Catalog.Products` → `Catalog_Products`, checked to exist. */
  referenceTarget(to: string | undefined, path: string): string {
    const [family, name] = (to ?? '').split('.', 2) as [string, string]
    const target = `${REFERENCE_PREFIX[family] ?? ''}${name}`
    const config = this.configuration
    const exists =
      (family === 'Catalog' && config.catalogs.some((c) => c.name === name)) ||
      (family === 'Document' && config.documents.some((d) => d.name === name)) ||
      (family === 'ChartOfAccounts' && (config.chartsOfAccounts ?? []).some((c) => c.name === name))
    if (!exists) this.problem(path, `refers to ${JSON.stringify(to)}, which the configuration does not declare`)
    return target
  }

  attributeProperty(attribute: AttributeConfig, role: PropertyRole, path: string): PropertyModel {
    switch (attribute.type) {
      case 'reference': {
        const targetSet = this.referenceTarget(attribute.to, `${path}/to`)
        return property(`${attribute.name}_Key`, role, {
          edmType: 'Edm.Guid',
          storage: { kind: 'guid' },
          reference: { targetSet, navigation: attribute.name },
        })
      }
      case 'string':
        return stringProperty(attribute.name, role, attribute.length)
      case 'number':
        if ((attribute.scale ?? 0) > (attribute.precision ?? 0)) this.problem(`${path}/scale`, 'must not exceed precision')
        return decimalProperty(attribute.name, role, attribute.precision ?? 15, attribute.scale ?? 0)
      case 'boolean':
        return booleanProperty(attribute.name, role)
      case 'date':
        return dateTimeProperty(attribute.name, role)
    }
  }

  attributeProperties(attributes: readonly AttributeConfig[] | undefined, role: PropertyRole, path: string): PropertyModel[] {
    return (attributes ?? []).map((attribute, index) => this.attributeProperty(attribute, role, `${path}/${index}`))
  }

  addSet(spec: {
    name: string
    kind: EntitySetKind
    table: string
    properties: PropertyModel[]
    key: string[]
    navigations?: NavigationModel[]
    functions?: VirtualTableSignature[]
    actions?: ActionModel[]
    collectionMethods: string[]
    entityMethods: string[]
    source: SourceObject
    path: string
  }): EntitySetModel {
    if (this.setNames.has(spec.name)) this.problem(spec.path, `declares ${spec.name} a second time`)
    this.setNames.add(spec.name)
    const propertyByName = new Map<string, PropertyModel>()
    for (const p of spec.properties) {
      if (propertyByName.has(p.name)) this.problem(spec.path, `${spec.name} has two properties named ${p.name}`)
      propertyByName.set(p.name, p)
    }
    const navigations = [...(spec.navigations ?? []), ...referenceNavigations(spec.properties)]
    const navigationByName = new Map(navigations.map((n) => [n.name, n] as const))
    for (const n of navigations)
      if (propertyByName.has(n.name)) this.problem(spec.path, `${spec.name}: navigation ${n.name} clashes with a property`)
    const set: EntitySetModel = Object.freeze({
      name: spec.name,
      kind: spec.kind,
      table: spec.table,
      properties: Object.freeze(spec.properties),
      propertyByName,
      key: Object.freeze(spec.key.map((k) => propertyByName.get(k)!)),
      navigations: Object.freeze(navigations),
      navigationByName,
      functions: Object.freeze(spec.functions ?? []),
      actions: Object.freeze(spec.actions ?? []),
      collectionMethods: Object.freeze(spec.collectionMethods),
      entityMethods: Object.freeze(spec.entityMethods),
      source: spec.source,
    })
    this.sets.push(set)
    return set
  }
}

function referenceNavigations(properties: readonly PropertyModel[]): NavigationModel[] {
  return properties
    .filter((p) => p.reference !== undefined)
    .map((p) => Object.freeze({ name: p.reference!.navigation, targetSet: p.reference!.targetSet, collection: false, foreignKey: p.name }))
}

const READ_ONLY = { collectionMethods: ['GET'], entityMethods: ['GET'] }
const OBJECT_METHODS = { collectionMethods: ['GET', 'POST'], entityMethods: ['GET', 'PATCH', 'PUT', 'DELETE'] }

function buildCatalogs(b: ModelBuilder): void {
  b.configuration.catalogs.forEach((catalog, index) => {
    const path = `/catalogs/${index}`
    b.addSet({
      name: `Catalog_${catalog.name}`,
      kind: 'Catalog',
      table: `${TABLE_PREFIX.catalog}${catalog.name}`,
      properties: [
        guidProperty('Ref_Key', 'key'),
        stringProperty('DataVersion', 'system', 20),
        booleanProperty('DeletionMark', 'attribute'),
        stringProperty('Code', 'attribute', catalog.codeLength),
        stringProperty('Description', 'attribute', catalog.descriptionLength),
        ...b.attributeProperties(catalog.attributes, 'attribute', `${path}/attributes`),
      ],
      key: ['Ref_Key'],
      ...OBJECT_METHODS,
      source: { type: 'catalog', name: catalog.name },
      path,
    })
  })
}

function buildChartsOfAccounts(b: ModelBuilder): void {
  ;(b.configuration.chartsOfAccounts ?? []).forEach((chart, index) => {
    const path = `/chartsOfAccounts/${index}`
    const name = `ChartOfAccounts_${chart.name}`
    const linesName = `${name}_ExtDimensionTypes`
    chart.extDimensionKinds.forEach((kind, k) => {
      if (!b.configuration.catalogs.some((c) => c.name === kind.catalog))
        b.problem(
          `${path}/extDimensionKinds/${k}/catalog`,
          `names catalog ${JSON.stringify(kind.catalog)}, which the configuration does not declare`,
        )
    })
    const kindNames = chart.extDimensionKinds.map((k) => k.name)
    const codes = new Set<string>()
    chart.accounts.forEach((account, a) => {
      if (account.code.length > chart.codeLength) b.problem(`${path}/accounts/${a}/code`, `is longer than codeLength ${chart.codeLength}`)
      if (codes.has(account.code)) b.problem(`${path}/accounts/${a}/code`, `repeats account ${account.code}`)
      codes.add(account.code)
      ;(account.extDimensions ?? []).forEach((kind, k) => {
        if (!kindNames.includes(kind)) b.problem(`${path}/accounts/${a}/extDimensions/${k}`, `is not one of the chart's extDimensionKinds`)
      })
      if ((account.extDimensions ?? []).length > (chart.maxExtDimensions ?? 3))
        b.problem(`${path}/accounts/${a}/extDimensions`, `has more than maxExtDimensions ${chart.maxExtDimensions ?? 3}`)
    })
    const table = `${TABLE_PREFIX.chartOfAccounts}${chart.name}`
    b.addSet({
      name,
      kind: 'ChartOfAccounts',
      table,
      properties: [
        guidProperty('Ref_Key', 'key'),
        stringProperty('DataVersion', 'system', 20),
        booleanProperty('DeletionMark', 'attribute'),
        stringProperty('Code', 'attribute', chart.codeLength),
        stringProperty('Description', 'attribute', chart.descriptionLength),
        enumProperty('AccountType', 'attribute', ['Active', 'Passive', 'ActivePassive']),
      ],
      key: ['Ref_Key'],
      navigations: [{ name: 'ExtDimensionTypes', targetSet: linesName, collection: true, partnerKey: ['Ref_Key'] }],
      ...READ_ONLY,
      source: { type: 'chartOfAccounts', name: chart.name, extDimensionTypesSet: linesName },
      path,
    })
    b.addSet({
      name: linesName,
      kind: 'ChartOfAccountsExtDimensionTypes',
      table: `${table}__ExtDimensionTypes`,
      properties: [
        guidProperty('Ref_Key', 'key'),
        intProperty('LineNumber', 'key'),
        enumProperty('ExtDimensionType', 'attribute', kindNames),
      ],
      key: ['Ref_Key', 'LineNumber'],
      ...READ_ONLY,
      source: { type: 'chartOfAccountsExtDimensionTypes', chart: chart.name, ownerSet: name },
      path,
    })
  })
}

function buildDocuments(b: ModelBuilder): void {
  b.configuration.documents.forEach((document, index) => {
    const path = `/documents/${index}`
    const name = `Document_${document.name}`
    const table = `${TABLE_PREFIX.document}${document.name}`
    const tableParts = document.tableParts ?? []
    b.addSet({
      name,
      kind: 'Document',
      table,
      properties: [
        guidProperty('Ref_Key', 'key'),
        stringProperty('DataVersion', 'system', 20),
        booleanProperty('DeletionMark', 'attribute'),
        stringProperty('Number', 'attribute', document.numberLength),
        dateTimeProperty('Date', 'attribute'),
        booleanProperty('Posted', 'system'),
        ...b.attributeProperties(document.attributes, 'attribute', `${path}/attributes`),
      ],
      key: ['Ref_Key'],
      navigations: tableParts.map((tp) => ({ name: tp.name, targetSet: `${name}_${tp.name}`, collection: true, partnerKey: ['Ref_Key'] })),
      actions: [
        { name: 'Post', parameters: [{ name: 'PostingModeOperational', edmType: 'Edm.Boolean' }] },
        { name: 'Unpost', parameters: [] },
      ],
      ...OBJECT_METHODS,
      source: { type: 'document', name: document.name, tableParts: tableParts.map((tp) => tp.name), posting: document.posting ?? [] },
      path,
    })
    tableParts.forEach((tablePart, t) => {
      b.addSet({
        name: `${name}_${tablePart.name}`,
        kind: 'TablePart',
        table: `${table}__${tablePart.name}`,
        properties: [
          guidProperty('Ref_Key', 'key'),
          intProperty('LineNumber', 'key'),
          ...b.attributeProperties(tablePart.attributes, 'attribute', `${path}/tableParts/${t}/attributes`),
        ],
        key: ['Ref_Key', 'LineNumber'],
        ...READ_ONLY,
        source: { type: 'tablePart', document: document.name, name: tablePart.name, ownerSet: name },
        path: `${path}/tableParts/${t}`,
      })
    })
  })
}

function buildInformationRegisters(b: ModelBuilder): void {
  ;(b.configuration.informationRegisters ?? []).forEach((register, index) => {
    const path = `/informationRegisters/${index}`
    const name = `InformationRegister_${register.name}`
    const periodic = register.periodicity !== 'None'
    const dimensions = b.attributeProperties(register.dimensions, 'dimension', `${path}/dimensions`)
    const resources = b.attributeProperties(register.resources, 'resource', `${path}/resources`)
    const attributes = b.attributeProperties(register.attributes, 'attribute', `${path}/attributes`)
    // A register without key fields is keyed by SurrogateKey, always 0 (service.md §2.2).
    const surrogate = !periodic && dimensions.length === 0
    const keyProperties = [
      ...(periodic ? [dateTimeProperty('Period', 'period')] : []),
      ...dimensions,
      ...(surrogate ? [intProperty('SurrogateKey', 'key')] : []),
    ]
    const properties = [...keyProperties, ...resources, ...attributes]
    b.addSet({
      name,
      kind: 'InformationRegister',
      table: `${TABLE_PREFIX.informationRegister}${register.name}`,
      properties,
      key: keyProperties.map((p) => p.name),
      // Slices return the register's own entity type (decisions.md §6).
      functions: periodic
        ? (['SliceLast', 'SliceFirst'] as const).map((fn) => signature(fn, SLICE_PARAMETERS, name, true, properties))
        : [],
      collectionMethods: ['GET', 'POST'],
      entityMethods: ['GET', 'PATCH', 'DELETE'],
      source: {
        type: 'informationRegister',
        name: register.name,
        periodicity: register.periodicity,
        dimensions: dimensions.map((d) => d.name),
        resources: resources.map((r) => r.name),
      },
      path,
    })
  })
}

function signature(
  name: VirtualTableName,
  parameters: readonly VirtualTableParameter[],
  setName: string,
  resultIsEntity: boolean,
  resultProperties: readonly PropertyModel[],
): VirtualTableSignature {
  return Object.freeze({
    name,
    parameters,
    resultType: resultIsEntity ? setName : `${setName}_${RESULT_SUFFIX[name]}`,
    resultIsEntity,
    resultProperties: Object.freeze([...resultProperties]),
  })
}

/** The columns a turnover-style result may fill from its periodicity (§4.3), in the order they come. */
function periodColumns(): PropertyModel[] {
  return [
    dateTimeProperty('Period', 'period'),
    guidProperty('Recorder', 'period'),
    stringProperty('Recorder_Type', 'period', 80),
    bigintProperty('LineNumber', 'period'),
    ...PERIOD_KINDS.map((kind) => dateTimeProperty(`${kind}Period`, 'period')),
  ]
}

function aggregate(name: string, resource: PropertyModel): PropertyModel {
  const storage = resource.storage.kind === 'decimal' ? resource.storage : { kind: 'decimal' as const, precision: 15, scale: 0 }
  return decimalProperty(name, 'resource', Math.min(38, storage.precision + AGGREGATE_PRECISION_HEADROOM), storage.scale)
}

function recorderTypes(b: ModelBuilder, recorders: readonly string[], path: string): string[] {
  recorders.forEach((recorder, r) => {
    if (!b.configuration.documents.some((d) => d.name === recorder))
      b.problem(`${path}/recorders/${r}`, `names document ${JSON.stringify(recorder)}, which the configuration does not declare`)
  })
  return recorders.map((recorder) => `${b.namespace}.Document_${recorder}`)
}

function recordSetSets(
  b: ModelBuilder,
  spec: {
    name: string
    table: string
    recordTypeProperties: PropertyModel[]
    recorderTypeValues: string[]
    kind: 'AccumulationRegister' | 'AccountingRegister'
    source: SourceObject
    recordsSource: SourceObject
    functions: VirtualTableSignature[]
    path: string
  },
): void {
  const recordTypeName = `${spec.name}_RecordType`
  b.addSet({
    name: spec.name,
    kind: spec.kind,
    table: spec.table,
    properties: [guidProperty('Recorder', 'key'), enumProperty('Recorder_Type', 'key', spec.recorderTypeValues)],
    key: ['Recorder', 'Recorder_Type'],
    navigations: [{ name: 'RecordSet', targetSet: recordTypeName, collection: true, partnerKey: ['Recorder', 'Recorder_Type'] }],
    functions: spec.functions,
    collectionMethods: ['GET', 'POST'],
    entityMethods: ['GET', 'PUT', 'PATCH'],
    source: spec.source,
    path: spec.path,
  })
  b.addSet({
    name: recordTypeName,
    kind: spec.kind === 'AccumulationRegister' ? 'AccumulationRegisterRecordType' : 'AccountingRegisterRecordType',
    table: spec.table,
    properties: spec.recordTypeProperties,
    key: ['Recorder', 'Recorder_Type', 'LineNumber'],
    ...READ_ONLY,
    source: spec.recordsSource,
    path: spec.path,
  })
}

function buildAccumulationRegisters(b: ModelBuilder): void {
  ;(b.configuration.accumulationRegisters ?? []).forEach((register, index) => {
    const path = `/accumulationRegisters/${index}`
    const name = `AccumulationRegister_${register.name}`
    const table = `${TABLE_PREFIX.accumulationRegister}${register.name}`
    const dimensions = b.attributeProperties(register.dimensions, 'dimension', `${path}/dimensions`)
    const resources = b.attributeProperties(register.resources, 'resource', `${path}/resources`)
    register.resources.forEach((r, i) => {
      if (r.type !== 'number') b.problem(`${path}/resources/${i}/type`, 'an accumulation register resource must be a number')
    })
    const attributes = b.attributeProperties(register.attributes, 'attribute', `${path}/attributes`)
    const balanceKind = register.kind === 'Balance'
    const recorderTypeValues = recorderTypes(b, register.recorders, path)

    const turnoverColumns = (r: PropertyModel) => [
      ...(balanceKind ? [aggregate(`${r.name}Receipt`, r), aggregate(`${r.name}Expense`, r)] : []),
      aggregate(`${r.name}Turnover`, r),
    ]
    const functions: VirtualTableSignature[] = [
      signature('Turnovers', ACCUMULATION_PARAMETERS.Turnovers, name, false, [
        ...periodColumns(),
        ...dimensions,
        ...resources.flatMap(turnoverColumns),
      ]),
    ]
    if (balanceKind) {
      functions.unshift(
        signature('Balance', ACCUMULATION_PARAMETERS.Balance, name, false, [
          ...dimensions,
          ...resources.map((r) => aggregate(`${r.name}Balance`, r)),
        ]),
      )
      functions.push(
        signature('BalanceAndTurnovers', ACCUMULATION_PARAMETERS.BalanceAndTurnovers, name, false, [
          ...periodColumns(),
          ...dimensions,
          ...resources.flatMap((r) => [
            aggregate(`${r.name}OpeningBalance`, r),
            ...turnoverColumns(r),
            aggregate(`${r.name}ClosingBalance`, r),
          ]),
        ]),
      )
    }
    recordSetSets(b, {
      name,
      table,
      kind: 'AccumulationRegister',
      recorderTypeValues,
      recordTypeProperties: [
        guidProperty('Recorder', 'key'),
        enumProperty('Recorder_Type', 'key', recorderTypeValues),
        intProperty('LineNumber', 'key'),
        dateTimeProperty('Period', 'period'),
        booleanProperty('Active', 'system'),
        ...(balanceKind ? [enumProperty('RecordType', 'system', ['Receipt', 'Expense'])] : []),
        ...dimensions,
        ...resources,
        ...attributes,
      ],
      functions,
      source: {
        type: 'accumulationRegister',
        name: register.name,
        registerKind: register.kind,
        dimensions: dimensions.map((d) => d.name),
        resources: resources.map((r) => r.name),
        recordTypeSet: `${name}_RecordType`,
        ...(balanceKind ? { totalsTable: `${table}__totals` } : {}),
        recorders: register.recorders,
      },
      recordsSource: { type: 'accumulationRegisterRecords', register: register.name, recordSetSet: name },
      path,
    })
  })
}

/** Names of the extra-dimension columns of one side (`Dr`, `Cr` or '' for balances). */
export function extDimensionColumns(side: 'Dr' | 'Cr' | '', count: number): { value: string; type: string }[] {
  return Array.from({ length: count }, (_, i) => ({ value: `ExtDimension${side}${i + 1}`, type: `ExtDimension${side}${i + 1}_Type` }))
}

function buildAccountingRegisters(b: ModelBuilder): void {
  ;(b.configuration.accountingRegisters ?? []).forEach((register: AccountingRegisterConfig, index) => {
    const path = `/accountingRegisters/${index}`
    const name = `AccountingRegister_${register.name}`
    const table = `${TABLE_PREFIX.accountingRegister}${register.name}`
    const chart = (b.configuration.chartsOfAccounts ?? []).find((c) => c.name === register.chartOfAccounts)
    if (!chart)
      b.problem(
        `${path}/chartOfAccounts`,
        `names chart of accounts ${JSON.stringify(register.chartOfAccounts)}, which the configuration does not declare`,
      )
    const chartSet = `ChartOfAccounts_${register.chartOfAccounts}`
    const maxExt = chart?.maxExtDimensions ?? 3
    const extTypeValues = (chart?.extDimensionKinds ?? []).map((k) => `${b.namespace}.Catalog_${k.catalog}`)
    const dimensions = b.attributeProperties(register.dimensions, 'dimension', `${path}/dimensions`)
    const attributes = b.attributeProperties(register.attributes, 'attribute', `${path}/attributes`)
    register.resources.forEach((r, i) => {
      if (r.type !== 'number') b.problem(`${path}/resources/${i}/type`, 'an accounting register resource must be a number')
    })
    const resourceBase = b.attributeProperties(register.resources, 'resource', `${path}/resources`)
    const balanced = register.resources.map((r) => r.balanced !== false)
    const recorderTypeValues = recorderTypes(b, register.recorders, path)
    const account = (side: string) =>
      property(`Account${side}_Key`, 'dimension', {
        edmType: 'Edm.Guid',
        storage: { kind: 'guid' },
        reference: { targetSet: chartSet, navigation: `Account${side}` },
      })
    const extDims = (side: 'Dr' | 'Cr' | '') =>
      extDimensionColumns(side, maxExt).flatMap((c) => [
        guidProperty(c.value, 'dimension'),
        enumProperty(c.type, 'dimension', ['', ...extTypeValues]),
      ])
    const movementResources = resourceBase.flatMap((r, i) =>
      balanced[i]
        ? [r]
        : [
            decimalProperty(
              `${r.name}Dr`,
              'resource',
              (r.storage as { precision: number }).precision,
              (r.storage as { scale: number }).scale,
            ),
            decimalProperty(
              `${r.name}Cr`,
              'resource',
              (r.storage as { precision: number }).precision,
              (r.storage as { scale: number }).scale,
            ),
          ],
    )
    // The columns of one accounting entry: both sides' accounts and extra dimensions, then the rest.
    const entryColumns = [
      account('Dr'),
      ...extDims('Dr'),
      account('Cr'),
      ...extDims('Cr'),
      ...dimensions,
      ...movementResources,
      ...attributes,
    ]
    // Turnovers: Dr − Cr, then each side (decisions.md §6).
    const drCr = (suffix: string) =>
      resourceBase.flatMap((r) => [
        aggregate(`${r.name}${suffix}`, r),
        aggregate(`${r.name}${suffix}Dr`, r),
        aggregate(`${r.name}${suffix}Cr`, r),
      ])
    const balanceColumns = resourceBase.flatMap((r) => [
      aggregate(`${r.name}Balance`, r),
      aggregate(`${r.name}BalanceDr`, r),
      aggregate(`${r.name}BalanceCr`, r),
    ])
    const openingClosing = (which: 'Opening' | 'Closing') =>
      resourceBase.flatMap((r) => [
        aggregate(`${r.name}${which}Balance`, r),
        aggregate(`${r.name}${which}BalanceDr`, r),
        aggregate(`${r.name}${which}BalanceCr`, r),
      ])
    const functions: VirtualTableSignature[] = [
      signature('Balance', ACCOUNTING_PARAMETERS.Balance, name, false, [account(''), ...extDims(''), ...dimensions, ...balanceColumns]),
      signature('Turnovers', ACCOUNTING_PARAMETERS.Turnovers, name, false, [
        ...periodColumns(),
        account(''),
        ...extDims(''),
        property('BalancedAccount_Key', 'dimension', {
          edmType: 'Edm.Guid',
          storage: { kind: 'guid' },
          reference: { targetSet: chartSet, navigation: 'BalancedAccount' },
        }),
        ...extDimensionColumns('', maxExt).flatMap((c) => [
          guidProperty(`Balanced${c.value}`, 'dimension'),
          enumProperty(`Balanced${c.type}`, 'dimension', ['', ...extTypeValues]),
        ]),
        ...dimensions,
        ...drCr('Turnover'),
      ]),
      signature('BalanceAndTurnovers', ACCOUNTING_PARAMETERS.BalanceAndTurnovers, name, false, [
        ...periodColumns(),
        account(''),
        ...extDims(''),
        ...dimensions,
        ...openingClosing('Opening'),
        ...drCr('Turnover'),
        ...openingClosing('Closing'),
      ]),
      signature('ExtDimensions', ACCOUNTING_PARAMETERS.ExtDimensions, name, false, [
        account(''),
        intProperty('LineNumber', 'key'),
        stringProperty('ExtDimensionType', 'attribute', 30),
        stringProperty('ExtDimensionType_Type', 'attribute', 80),
      ]),
      signature('RecordsWithExtDimensions', ACCOUNTING_PARAMETERS.RecordsWithExtDimensions, name, false, [
        dateTimeProperty('Period', 'period'),
        guidProperty('Recorder', 'period'),
        stringProperty('Recorder_Type', 'period', 80),
        bigintProperty('LineNumber', 'period'),
        ...entryColumns,
      ]),
    ]
    recordSetSets(b, {
      name,
      table,
      kind: 'AccountingRegister',
      recorderTypeValues,
      recordTypeProperties: [
        guidProperty('Recorder', 'key'),
        enumProperty('Recorder_Type', 'key', recorderTypeValues),
        intProperty('LineNumber', 'key'),
        dateTimeProperty('Period', 'period'),
        booleanProperty('Active', 'system'),
        ...entryColumns,
      ],
      functions,
      source: {
        type: 'accountingRegister',
        name: register.name,
        config: register,
        chartSet,
        maxExtDimensions: maxExt,
        dimensions: dimensions.map((d) => d.name),
        resources: resourceBase.map((r) => r.name),
        recordTypeSet: `${name}_RecordType`,
        totalsTable: `${table}__totals`,
        recorders: register.recorders,
      },
      recordsSource: { type: 'accountingRegisterRecords', register: register.name, recordSetSet: name },
      path,
    })
  })
}

/** Posting rules name registers, columns and sources; check each against the model built so far. */
function checkPostingRules(b: ModelBuilder): void {
  const setByName = new Map(b.sets.map((s) => [s.name, s] as const))
  b.configuration.documents.forEach((document: DocumentConfig, d) => {
    const documentSet = setByName.get(`Document_${document.name}`)
    ;(document.posting ?? []).forEach((rule: PostingRuleConfig, r) => {
      const path = `/documents/${d}/posting/${r}`
      const [family, registerName] = rule.register.split('.', 2) as [string, string]
      const recordSet = setByName.get(`${family}_${registerName}`)
      if (!recordSet) {
        b.problem(`${path}/register`, `names ${rule.register}, which the configuration does not declare`)
        return
      }
      const source = recordSet.source
      if ((source.type === 'accumulationRegister' || source.type === 'accountingRegister') && !source.recorders.includes(document.name))
        b.problem(`${path}/register`, `${rule.register} does not list ${document.name} among its recorders`)
      const rows = rule.forEach === undefined ? undefined : setByName.get(`Document_${document.name}_${rule.forEach}`)
      if (rule.forEach !== undefined && !rows) b.problem(`${path}/forEach`, `${document.name} has no table part ${rule.forEach}`)
      const checkSource = (value: string, at: string) => {
        const [scope, attribute] = value.split('.', 2) as [string, string]
        const owner = scope === 'row' ? rows : documentSet
        if (scope === 'row' && rule.forEach === undefined) return b.problem(at, 'uses row.… but the rule has no forEach')
        if (owner && !owner.propertyByName.has(attribute) && !owner.propertyByName.has(`${attribute}_Key`))
          b.problem(at, `${value} is not an attribute`)
      }
      const recordType = setByName.get(`${recordSet.name}_RecordType`)
      for (const [column, value] of Object.entries(rule.values)) {
        if (recordType && !recordType.propertyByName.has(column) && !recordType.propertyByName.has(`${column}_Key`))
          b.problem(`${path}/values/${column}`, `${recordSet.name} has no column ${column}`)
        checkSource(value, `${path}/values/${column}`)
      }
      if (source.type === 'accumulationRegister') {
        if (source.registerKind === 'Balance' && rule.recordType === undefined)
          b.problem(`${path}/recordType`, 'is required for a register of the Balance kind')
        if (rule.debit || rule.credit) b.problem(path, 'debit and credit belong to accounting registers')
      }
      if (source.type === 'accountingRegister') {
        const chart = (b.configuration.chartsOfAccounts ?? []).find((c) => c.name === source.config.chartOfAccounts)
        for (const side of ['debit', 'credit'] as const) {
          const entry = rule[side]
          if (!entry) {
            b.problem(`${path}/${side}`, 'is required for an accounting register')
            continue
          }
          const account = chart?.accounts.find((a) => a.code === entry.account)
          if (!account) b.problem(`${path}/${side}/account`, `account ${entry.account} is not in the chart of accounts`)
          for (const [i, value] of (entry.extDimensions ?? []).entries()) checkSource(value, `${path}/${side}/extDimensions/${i}`)
          if (account && (entry.extDimensions ?? []).length !== (account.extDimensions ?? []).length)
            b.problem(
              `${path}/${side}/extDimensions`,
              `account ${entry.account} has ${(account.extDimensions ?? []).length} extra dimension(s)`,
            )
        }
      }
    })
  })
}

function setMatcher(patterns: readonly string[]): (setName: string) => boolean {
  const exact = new Set(patterns.filter((p) => !p.endsWith('*')))
  const prefixes = patterns.filter((p) => p.endsWith('*')).map((p) => p.slice(0, -1))
  return (setName) => exact.has(setName) || prefixes.some((prefix) => setName.startsWith(prefix))
}

function buildProfile(profile: ProfileConfig): ProfileModel {
  return Object.freeze({
    name: profile.name,
    maxBatchOperations: profile.maxBatchOperations,
    administer: profile.administer === true,
    rateRules: Object.freeze(profile.rateRules ?? []),
    expressionLimits: Object.freeze({ ...(profile.expressionLimits ?? {}) }),
    canRead: setMatcher(profile.read),
    canWrite: setMatcher(profile.write),
  })
}

/** Builds the model, or throws ConfigurationError listing every cross-reference problem with its path. */
export function buildModel(configuration: Configuration, source = 'configuration'): ServiceModel {
  const b = new ModelBuilder(configuration)
  buildCatalogs(b)
  buildChartsOfAccounts(b)
  buildDocuments(b)
  buildInformationRegisters(b)
  buildAccumulationRegisters(b)
  buildAccountingRegisters(b)
  checkPostingRules(b)

  const profiles = new Map<string, ProfileModel>()
  configuration.profiles.forEach((p, i) => {
    if (profiles.has(p.name)) b.problem(`/profiles/${i}/name`, `repeats profile ${p.name}`)
    profiles.set(p.name, buildProfile(p))
  })
  const subjects: SubjectModel[] = []
  const tokens = new Set<string>()
  const names = new Set<string>()
  configuration.subjects.forEach((s, i) => {
    const profile = profiles.get(s.profile)
    if (!profile)
      b.problem(`/subjects/${i}/profile`, `names profile ${JSON.stringify(s.profile)}, which the configuration does not declare`)
    if (s.token !== undefined && tokens.has(s.token)) b.problem(`/subjects/${i}/token`, 'is used by another subject')
    if (names.has(s.name)) b.problem(`/subjects/${i}/name`, `repeats subject ${s.name}`)
    if (s.token !== undefined) tokens.add(s.token)
    names.add(s.name)
    if (profile) subjects.push(Object.freeze({ name: s.name, password: s.password, token: s.token, profile }))
  })
  if (b.problems.length > 0) throw new ConfigurationError(source, b.problems)

  return Object.freeze({
    name: configuration.name,
    namespace: b.namespace,
    mounts: { reference: configuration.mounts?.reference ?? '/odata/standard.odata', token: configuration.mounts?.token ?? '/api' },
    settings: resolveSettings(configuration.settings),
    entitySets: Object.freeze(b.sets),
    entitySetByName: new Map(b.sets.map((s) => [s.name, s] as const)),
    profiles,
    subjects: Object.freeze(subjects),
    configuration,
  })
}
