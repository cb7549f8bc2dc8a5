// The service model: everything else is derived from it — the MySQL schema (src/store/schema.ts), the
// EDM and `$metadata` (csdl.ts), the SQL column mapping and the JSON property names. It is built once
// from the configuration (build-model.ts) and never changes while the service runs.
import type {
  AccountingRegisterConfig,
  Configuration,
  InformationPeriodicity,
  PostingRuleConfig,
  ProfileConfig,
  SettingsConfig,
  SubjectConfig,
} from './configuration.js'
import type { VirtualTableSignature } from './virtual-tables.js'

export type EdmPrimitiveType = 'Edm.Guid' | 'Edm.String' | 'Edm.Decimal' | 'Edm.Boolean' | 'Edm.DateTimeOffset' | 'Edm.Int32' | 'Edm.Int64'

/** How a value is held in MySQL; the store maps each to a column type. */
export type StorageType =
  | { readonly kind: 'guid' }
  | { readonly kind: 'string'; readonly length?: number }
  | { readonly kind: 'decimal'; readonly precision: number; readonly scale: number }
  | { readonly kind: 'boolean' }
  | { readonly kind: 'datetime' }
  | { readonly kind: 'int' }
  | { readonly kind: 'bigint' }
  | { readonly kind: 'enum'; readonly values: readonly string[] }

/** What a property is to the entity, which decides who may set it and how virtual tables treat it. */
export type PropertyRole =
  | 'key'
  | 'system' // DataVersion, Posted, LineNumber, Recorder_Type… — maintained by the service
  | 'attribute'
  | 'dimension'
  | 'resource'
  | 'period'

export interface PropertyModel {
  /** The name in JSON, URLs and `$metadata` (`Warehouse_Key`, `Quantity`). */
  readonly name: string
  /** The MySQL column. */
  readonly column: string
  readonly edmType: EdmPrimitiveType
  readonly storage: StorageType
  readonly role: PropertyRole
  readonly nullable: boolean
  /** For `X_Key`: the entity set the GUID points to and the navigation property named `X`. */
  readonly reference?: { readonly targetSet: string; readonly navigation: string }
}

export interface NavigationModel {
  readonly name: string
  readonly targetSet: string
  readonly collection: boolean
  /** Single-valued: the `X_Key` property of this entity holding the target's `Ref_Key`. */
  readonly foreignKey?: string
  /** Collection-valued (table parts, record sets): the properties of the target matching this entity's key, in key order. */
  readonly partnerKey?: readonly string[]
}

export type EntitySetKind =
  | 'Catalog'
  | 'Document'
  | 'TablePart'
  | 'ChartOfAccounts'
  | 'ChartOfAccountsExtDimensionTypes'
  | 'InformationRegister'
  | 'AccumulationRegister'
  | 'AccumulationRegisterRecordType'
  | 'AccountingRegister'
  | 'AccountingRegisterRecordType'

export interface ActionModel {
  readonly name: 'Post' | 'Unpost'
  readonly parameters: readonly { readonly name: string; readonly edmType: EdmPrimitiveType }[]
}

export interface EntitySetModel {
  /** Entity set name, also the entity type name (`Catalog_Products`). */
  readonly name: string
  readonly kind: EntitySetKind
  /** The MySQL table the rows live in (record-set sets share the movement table of their register). */
  readonly table: string
  readonly properties: readonly PropertyModel[]
  readonly propertyByName: ReadonlyMap<string, PropertyModel>
  readonly key: readonly PropertyModel[]
  readonly navigations: readonly NavigationModel[]
  readonly navigationByName: ReadonlyMap<string, NavigationModel>
  /** Bound functions on the collection (virtual tables). */
  readonly functions: readonly VirtualTableSignature[]
  /** Bound actions on a single entity (documents: Post, Unpost). */
  readonly actions: readonly ActionModel[]
  /** Which HTTP methods the collection and a single entity accept, for 405 with Allow. */
  readonly collectionMethods: readonly string[]
  readonly entityMethods: readonly string[]
  /** Back-link to the object this set is a view of. */
  readonly source: SourceObject
}

export interface RegisterDimension {
  readonly property: PropertyModel
}

/** The application objects the configuration declares, as the sets see them. */
export type SourceObject =
  | { readonly type: 'catalog'; readonly name: string }
  | {
      readonly type: 'document'
      readonly name: string
      readonly tableParts: readonly string[]
      readonly posting: readonly PostingRuleConfig[]
    }
  | { readonly type: 'tablePart'; readonly document: string; readonly name: string; readonly ownerSet: string }
  | { readonly type: 'chartOfAccounts'; readonly name: string; readonly extDimensionTypesSet: string }
  | { readonly type: 'chartOfAccountsExtDimensionTypes'; readonly chart: string; readonly ownerSet: string }
  | {
      readonly type: 'informationRegister'
      readonly name: string
      readonly periodicity: InformationPeriodicity
      readonly dimensions: readonly string[]
      readonly resources: readonly string[]
    }
  | {
      readonly type: 'accumulationRegister'
      readonly name: string
      readonly registerKind: 'Balance' | 'Turnovers'
      readonly dimensions: readonly string[]
      readonly resources: readonly string[]
      readonly recordTypeSet: string
      readonly totalsTable?: string
      readonly recorders: readonly string[]
    }
  | { readonly type: 'accumulationRegisterRecords'; readonly register: string; readonly recordSetSet: string }
  | {
      readonly type: 'accountingRegister'
      readonly name: string
      readonly config: AccountingRegisterConfig
      readonly chartSet: string
      readonly maxExtDimensions: number
      readonly dimensions: readonly string[]
      readonly resources: readonly string[]
      readonly recordTypeSet: string
      readonly totalsTable: string
      readonly recorders: readonly string[]
    }
  | { readonly type: 'accountingRegisterRecords'; readonly register: string; readonly recordSetSet: string }

export interface ProfileModel {
  readonly name: string
  readonly maxBatchOperations: number | undefined
  /** May read and change the service's settings at run time. */
  readonly administer: boolean
  readonly rateRules: readonly { readonly operations: number; readonly per: number }[]
  readonly expressionLimits: Readonly<Record<string, number>>
  canRead(setName: string): boolean
  canWrite(setName: string): boolean
}

export interface SubjectModel {
  readonly name: string
  readonly password: string | undefined
  readonly token: string | undefined
  readonly profile: ProfileModel
}

export interface ResolvedSettings {
  readonly maxBatchSizeMB: number
  readonly maxBatchOperations: number
  readonly logLevel: 'off' | 'errors' | 'writes' | 'all'
  readonly pageSize: number
  /** How long the change record keeps its notes, in hours: a delta link older than that is 410 (docs/change-tracking.md). */
  readonly changeRetentionHours: number
}

export interface ServiceModel {
  readonly name: string
  /** The schema namespace of `$metadata`, also the prefix of `Recorder_Type` values (`StandardODATA`). */
  readonly namespace: string
  readonly mounts: { readonly reference: string; readonly token: string }
  readonly settings: ResolvedSettings
  readonly entitySets: readonly EntitySetModel[]
  readonly entitySetByName: ReadonlyMap<string, EntitySetModel>
  readonly profiles: ReadonlyMap<string, ProfileModel>
  readonly subjects: readonly SubjectModel[]
  readonly configuration: Configuration
}

export const DEFAULT_SETTINGS: ResolvedSettings = {
  maxBatchSizeMB: 10,
  maxBatchOperations: 100,
  logLevel: 'off',
  pageSize: 0,
  changeRetentionHours: 168,
}

export function resolveSettings(settings: SettingsConfig | undefined): ResolvedSettings {
  // `unknownProperties` is read from the configuration where bodies are read; it is no run-time setting.
  const { unknownProperties: _unknownProperties, ...live } = settings ?? {}
  return { ...DEFAULT_SETTINGS, ...live }
}

/** The all-zero GUID: the value of an empty reference, as in the reference system (decisions.md §3). */
export const EMPTY_GUID = '00000000-0000-0000-0000-000000000000'

export type { ProfileConfig, SubjectConfig }
