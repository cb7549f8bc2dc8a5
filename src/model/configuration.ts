// The configuration file: loading (JSON or YAML) and validation; its types are generated from the schema.
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

import type {
  AccountingRegister,
  AccumulationRegister,
  Attribute,
  Catalog,
  ChartOfAccounts,
  Document,
  InformationRegister,
  ODataRegisterServiceConfiguration,
  PostingRule,
  PostingSide,
  Profile,
  Seed,
  Settings,
  Subject,
} from './configuration-types.js'

// The configuration's shape is generated from the JSON schema (configuration-types.ts), so the types and the
// validation cannot disagree; these are the names the code uses for it.
export type Configuration = ODataRegisterServiceConfiguration
export type AttributeConfig = Attribute
export type AttributeType = Attribute['type']
export type CatalogConfig = Catalog
export type ChartOfAccountsConfig = ChartOfAccounts
export type PostingSideConfig = PostingSide
export type PostingRuleConfig = PostingRule
export type DocumentConfig = Document
export type InformationRegisterConfig = InformationRegister
export type InformationPeriodicity = InformationRegister['periodicity']
export type AccumulationRegisterConfig = AccumulationRegister
export type AccountingRegisterConfig = AccountingRegister
export type RateRuleConfig = NonNullable<Profile['rateRules']>[number]
export type ProfileConfig = Profile
export type SubjectConfig = Subject
export type SettingsConfig = Settings
export type SeedConfig = Seed

/** One problem in the configuration, located by a JSON-pointer-like path (`/documents/0/attributes/2/to`). */
export interface ConfigurationProblem {
  readonly path: string
  readonly message: string
}

export class ConfigurationError extends Error {
  readonly problems: readonly ConfigurationProblem[]
  constructor(source: string, problems: readonly ConfigurationProblem[]) {
    super(
      `${source}: ${problems.length} problem(s)${source === 'environment' ? '' : ' in the configuration'}:\n${problems.map((p) => `  ${p.path || '/'}: ${p.message}`).join('\n')}`,
    )
    this.name = 'ConfigurationError'
    this.problems = problems
  }
}

const schemaPath = fileURLToPath(new URL('../../../config/configuration.schema.json', import.meta.url))
let compiledValidator: (((data: unknown) => boolean) & { errors?: ErrorObject[] | null }) | undefined

let compiledSettingsValidator: (((data: unknown) => boolean) & { errors?: ErrorObject[] | null }) | undefined

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
      return {
        path: `${error.instancePath}/${(error.params as { additionalProperty: string }).additionalProperty}`,
        message: 'is not a known field',
      }
    case 'required':
      return { path: `${error.instancePath}/${(error.params as { missingProperty: string }).missingProperty}`, message: 'is required' }
    case 'enum':
      return {
        path: error.instancePath,
        message: `must be one of ${(error.params as { allowedValues: unknown[] }).allowedValues.map((v) => JSON.stringify(v)).join(', ')}`,
      }
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
