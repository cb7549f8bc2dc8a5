// The configuration file: its shape as TypeScript types, loading (JSON or YAML) and validation.
//
// Validation has two layers, and both report every problem by its path in the file:
// 1. the JSON schema (config/configuration.schema.json) checks shapes and value ranges;
// 2. cross-references (a reference to an unknown catalog, a posting rule naming an unknown attribute)
//    are checked while the model is built (build-model.ts), which reports in the same form.
import { readFileSync } from 'node:fs'
import { extname } from 'node:path'
import { fileURLToPath } from 'node:url'
import AjvModule, { type ErrorObject } from 'ajv'
import { parse as parseYaml } from 'yaml'

export type AttributeType = 'string' | 'number' | 'boolean' | 'date' | 'reference'

export interface AttributeConfig {
  name: string
  type: AttributeType
  /** Strings: maximum length in characters; absent means unlimited. */
  length?: number
  precision?: number
  scale?: number
  /** References: `Catalog.<Name>`, `Document.<Name>` or `ChartOfAccounts.<Name>`. */
  to?: string
  /** Accounting register resources: one value per record (true) or a Dr and a Cr value (false). */
  balanced?: boolean
}

export interface CatalogConfig {
  name: string
  codeLength: number
  descriptionLength: number
  attributes?: AttributeConfig[]
}

export interface ChartOfAccountsConfig {
  name: string
  codeLength: number
  descriptionLength: number
  maxExtDimensions?: number
  extDimensionKinds: { name: string; catalog: string }[]
  accounts: { code: string; description: string; type: 'Active' | 'Passive' | 'ActivePassive'; extDimensions?: string[] }[]
}

export interface PostingSideConfig {
  account: string
  extDimensions?: string[]
}

export interface PostingRuleConfig {
  register: string
  forEach?: string
  recordType?: 'Receipt' | 'Expense'
  debit?: PostingSideConfig
  credit?: PostingSideConfig
  values: Record<string, string>
}

export interface DocumentConfig {
  name: string
  numberLength: number
  attributes?: AttributeConfig[]
  tableParts?: { name: string; attributes: AttributeConfig[] }[]
  posting?: PostingRuleConfig[]
}

export type InformationPeriodicity = 'None' | 'Second' | 'Day' | 'Month' | 'Quarter' | 'Year'

export interface InformationRegisterConfig {
  name: string
  periodicity: InformationPeriodicity
  dimensions: AttributeConfig[]
  resources: AttributeConfig[]
  attributes?: AttributeConfig[]
}

export interface AccumulationRegisterConfig {
  name: string
  kind: 'Balance' | 'Turnovers'
  dimensions: AttributeConfig[]
  resources: AttributeConfig[]
  attributes?: AttributeConfig[]
  recorders: string[]
}

export interface AccountingRegisterConfig {
  name: string
  chartOfAccounts: string
  dimensions: AttributeConfig[]
  resources: AttributeConfig[]
  attributes?: AttributeConfig[]
  recorders: string[]
}

export interface RateRuleConfig {
  operations: number
  per: number
}

export interface ProfileConfig {
  name: string
  read: string[]
  write: string[]
  maxBatchOperations?: number
  /** May read and change the service's settings at run time. */
  administer?: boolean
  rateRules?: RateRuleConfig[]
  expressionLimits?: Record<string, number>
}

export interface SubjectConfig {
  name: string
  password?: string
  token?: string
  profile: string
}

export interface SettingsConfig {
  maxBatchSizeMB?: number
  maxBatchOperations?: number
  logLevel?: 'off' | 'errors' | 'writes' | 'all'
  pageSize?: number
  /** A write body's unknown names: refused (default) or ignored, as the reference system does. Not a run-time setting. */
  unknownProperties?: 'refuse' | 'ignore'
}

export interface SeedConfig {
  documentsPerScale?: number
  startDate?: string
  days?: number
  tableRows?: { min: number; max: number }
  catalogs?: Record<string, { count: number; growth?: 'none' | 'sqrt' | 'linear' }>
  skewed?: string[]
  documentMix?: { document: string; share: number }[]
  dailyRecords?: { register: string; dimensions: Record<string, { share?: number; values?: string[] }> }[]
}

export interface Configuration {
  name: string
  namespace?: string
  mounts?: { reference?: string; token?: string }
  settings?: SettingsConfig
  catalogs: CatalogConfig[]
  chartsOfAccounts?: ChartOfAccountsConfig[]
  documents: DocumentConfig[]
  informationRegisters?: InformationRegisterConfig[]
  accumulationRegisters?: AccumulationRegisterConfig[]
  accountingRegisters?: AccountingRegisterConfig[]
  profiles: ProfileConfig[]
  subjects: SubjectConfig[]
  seed?: SeedConfig
}

/** One problem in the configuration, located by a JSON-pointer-like path (`/documents/0/attributes/2/to`). */
export interface ConfigurationProblem {
  readonly path: string
  readonly message: string
}

export class ConfigurationError extends Error {
  readonly problems: readonly ConfigurationProblem[]
  constructor(source: string, problems: readonly ConfigurationProblem[]) {
    super(`${source}: ${problems.length} problem(s) in the configuration:\n` + problems.map((p) => `  ${p.path || '/'}: ${p.message}`).join('\n'))
    this.name = 'ConfigurationError'
    this.problems = problems
  }
}

const schemaPath = fileURLToPath(new URL('../../../config/configuration.schema.json', import.meta.url))
let compiledValidator: ((data: unknown) => boolean) & { errors?: ErrorObject[] | null } | undefined

let compiledSettingsValidator: ((data: unknown) => boolean) & { errors?: ErrorObject[] | null } | undefined

function validator() {
  if (compiledValidator === undefined) {
    const Ajv = AjvModule.default ?? AjvModule
    const ajv = new Ajv({ allErrors: true, strict: false, unicodeRegExp: true })
    const schema = JSON.parse(readFileSync(schemaPath, 'utf8'))
    compiledValidator = ajv.compile(schema)
    // The settings alone, by the same definition: what an administrator or the environment sets.
    compiledSettingsValidator = ajv.compile({ $defs: schema.$defs, $ref: '#/$defs/settings' })
  }
  return compiledValidator
}

/**
 * Checks settings on their own (the `settings` section's schema); returns the problems, each with its
 * path under the settings object (`/maxBatchOperations`), none when they are valid.
 */
export function settingsProblems(data: unknown): ConfigurationProblem[] {
  validator()
  const validate = compiledSettingsValidator!
  if (validate(data)) return []
  return (validate.errors ?? []).map(describeSchemaError)
}

function describeSchemaError(error: ErrorObject): ConfigurationProblem {
  switch (error.keyword) {
    case 'additionalProperties':
      return { path: `${error.instancePath}/${(error.params as { additionalProperty: string }).additionalProperty}`, message: 'is not a known field' }
    case 'required':
      return { path: `${error.instancePath}/${(error.params as { missingProperty: string }).missingProperty}`, message: 'is required' }
    case 'enum':
      return { path: error.instancePath, message: `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}` }
    default:
      return { path: error.instancePath, message: error.message ?? error.keyword }
  }
}

/** Checks a parsed configuration against the schema; throws ConfigurationError listing every problem. */
export function validateConfiguration(data: unknown, source = 'configuration'): Configuration {
  const validate = validator()
  if (!validate(data)) {
    const seen = new Set<string>()
    const problems: ConfigurationProblem[] = []
    for (const error of validate.errors ?? []) {
      // `if`/`then` wrappers repeat the concrete error they contain; keep the concrete one only.
      if (error.keyword === 'if' || error.keyword === 'allOf') continue
      const problem = describeSchemaError(error)
      const key = `${problem.path}\u0000${problem.message}`
      if (!seen.has(key)) {
        seen.add(key)
        problems.push(problem)
      }
    }
    throw new ConfigurationError(source, problems)
  }
  return data as Configuration
}

/** Reads a configuration file (`.json`, `.yaml` or `.yml`) and validates it against the schema. */
export function loadConfigurationFile(file: string): Configuration {
  const text = readFileSync(file, 'utf8')
  let data: unknown
  try {
    data = extname(file) === '.json' ? JSON.parse(text) : parseYaml(text)
  } catch (error) {
    throw new ConfigurationError(file, [{ path: '', message: `cannot be parsed: ${(error as Error).message}` }])
  }
  return validateConfiguration(data, file)
}
