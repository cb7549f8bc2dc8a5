// Generated from config/configuration.schema.json by scripts/generate-configuration-types.mjs (run by `make build`). Do not edit:
// change the schema. src/model/configuration.ts gives these types the names the code uses.

/**
 * A name usable in OData and as part of a MySQL identifier: letters of any script, digits, underscore; at most 30 characters so derived table names stay within MySQL's 64.
 *
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "identifier".
 */
export type Identifier = string
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "mount".
 */
export type Mount = string
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "attribute".
 */
export type Attribute = {
  name: Identifier
  type: 'string' | 'number' | 'boolean' | 'date' | 'reference'
  length?: number
  precision?: number
  scale?: number
  to?: string
  balanced?: boolean
}
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "attributes".
 */
export type Attributes = Attribute[]
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "valueSource".
 */
export type ValueSource = string
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "setPattern".
 */
export type SetPattern = string

export interface ODataRegisterServiceConfiguration {
  $schema?: string
  name: string
  namespace?: Identifier
  mounts?: {
    reference?: Mount
    token?: Mount
  }
  settings?: Settings
  /**
   * Cross-origin requests from browsers: the origins allowed (scheme, host and port, as a browser sends them in Origin; "*" is refused), and how long a browser may keep a preflight's answer.
   */
  cors?: {
    allowedOrigins?: string[]
    maxAgeSeconds?: number
  }
  catalogs: Catalog[]
  chartsOfAccounts?: ChartOfAccounts[]
  documents: Document[]
  informationRegisters?: InformationRegister[]
  accumulationRegisters?: AccumulationRegister[]
  accountingRegisters?: AccountingRegister[]
  /**
   * @minItems 1
   */
  profiles: Profile[]
  subjects: Subject[]
  seed?: Seed
}
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "settings".
 */
export interface Settings {
  maxBatchSizeMB?: number
  maxBatchOperations?: number
  logLevel?: 'off' | 'errors' | 'writes' | 'all'
  pageSize?: number
  /**
   * How long the change record keeps what changed, in hours (default 168, a week): a delta link older than that answers 410 DeltaLinkGone.
   */
  changeRetentionHours?: number
  /**
   * What a write body's names that are not properties of the type make: refuse (400 UnknownProperty, the default) or ignore (the reference system's lenient reading). Read at start-up; not a run-time setting.
   */
  unknownProperties?: 'refuse' | 'ignore'
}
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "catalog".
 */
export interface Catalog {
  name: Identifier
  codeLength: number
  descriptionLength: number
  attributes?: Attributes
}
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "chartOfAccounts".
 */
export interface ChartOfAccounts {
  name: Identifier
  codeLength: number
  descriptionLength: number
  maxExtDimensions?: number
  extDimensionKinds: {
    name: Identifier
    catalog: Identifier
  }[]
  accounts: {
    code: string
    description: string
    type: 'Active' | 'Passive' | 'ActivePassive'
    /**
     * @maxItems 3
     */
    extDimensions?: Identifier[]
  }[]
}
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "document".
 */
export interface Document {
  name: Identifier
  numberLength: number
  attributes?: Attributes
  tableParts?: {
    name: Identifier
    attributes: Attributes
  }[]
  posting?: PostingRule[]
}
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "postingRule".
 */
export interface PostingRule {
  register: string
  forEach?: Identifier
  recordType?: 'Receipt' | 'Expense'
  debit?: PostingSide
  credit?: PostingSide
  values: {
    [k: string]: ValueSource
  }
}
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "postingSide".
 */
export interface PostingSide {
  account: string
  /**
   * @maxItems 3
   */
  extDimensions?: ValueSource[]
}
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "informationRegister".
 */
export interface InformationRegister {
  name: Identifier
  periodicity: 'None' | 'Second' | 'Day' | 'Month' | 'Quarter' | 'Year'
  dimensions: Attributes
  resources: Attributes
  attributes?: Attributes
}
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "accumulationRegister".
 */
export interface AccumulationRegister {
  name: Identifier
  kind: 'Balance' | 'Turnovers'
  dimensions: Attributes
  resources: Attributes
  attributes?: Attributes
  /**
   * @minItems 1
   */
  recorders: Identifier[]
}
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "accountingRegister".
 */
export interface AccountingRegister {
  name: Identifier
  chartOfAccounts: Identifier
  dimensions: Attributes
  resources: Attributes
  attributes?: Attributes
  /**
   * @minItems 1
   */
  recorders: Identifier[]
}
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "profile".
 */
export interface Profile {
  name: Identifier
  read: SetPattern[]
  write: SetPattern[]
  maxBatchOperations?: number
  /**
   * Whether the profile's subjects may read and change the service's settings at run time (<service root>/$settings).
   */
  administer?: boolean
  rateRules?: {
    operations: number
    per: number
  }[]
  expressionLimits?: {
    [k: string]: number
  }
}
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "subject".
 */
export interface Subject {
  name: string
  password?: string
  token?: string
  profile: Identifier
}
/**
 * This interface was referenced by `ODataRegisterServiceConfiguration`'s JSON-Schema
 * via the `definition` "seed".
 */
export interface Seed {
  documentsPerScale?: number
  startDate?: string
  days?: number
  tableRows?: {
    min: number
    max: number
  }
  catalogs?: {
    [k: string]: {
      count: number
      growth?: 'none' | 'sqrt' | 'linear'
    }
  }
  skewed?: string[]
  documentMix?: {
    document: Identifier
    share: number
  }[]
  dailyRecords?: {
    register: Identifier
    dimensions: {
      [k: string]: {
        share?: number
        /**
         * @minItems 1
         */
        values?: string[]
      }
    }
  }[]
}
