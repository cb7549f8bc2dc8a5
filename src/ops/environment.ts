// The process's environment, checked once at start against a JSON schema (ajv, as the configuration file
// is), so that a mistyped variable stops the process with every problem named, not a late surprise:
// `PORT: must be an integer from 0 to 65535 (got "80a")`. The service's settings among them
// (MAX_BATCH_SIZE_MB, …) are checked by live-settings.ts with the configuration's own rules, the allowed
// origins by the CORS policy, the address by database-url.ts; their problems are reported together.
import { existsSync } from 'node:fs'
import { availableParallelism } from 'node:os'
import AjvModule, { type ErrorObject } from 'ajv'
import { CorsPolicy } from '../http/cors.js'
import type { RetentionPolicy } from '../log/request-log-retention.js'
import { ConfigurationError, type ConfigurationProblem } from '../model/configuration.js'
import { configurationFile } from '../model/default-configuration.js'
import { settingsFromEnvironment } from '../service/live-settings.js'
import { DEFAULT_DATABASE_URL, parseDatabaseUrl, redactDatabaseUrl } from '../store/database-url.js'

export interface ProcessEnvironment {
  readonly port: number
  readonly host: string
  readonly databaseUrl: string
  readonly configFile: string
  readonly seedScale: number
  readonly workers: number
  readonly stopTimeoutSeconds: number
  readonly metricsToken: string | undefined
  readonly corsOrigins: string | undefined
  /** HTTP_PIPELINING: `serialize` puts the request-serialising front before uWS (src/pipelining). */
  readonly pipelining: 'uws' | 'serialize'
  /** REQUEST_LOG_KEEP_DAYS, REQUEST_LOG_KEEP_ROWS: how much of the request log is kept (docs/request-log.md). */
  readonly logRetention: RetentionPolicy
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']

/** Each variable: its schema (values arrive as text; numbers are coerced) and what it must be, in words. */
const VARIABLES = {
  PORT: { schema: { type: 'integer', minimum: 0, maximum: 65535 }, must: 'an integer from 0 to 65535' },
  HOST: {
    schema: { type: 'string', pattern: '^[A-Za-z0-9.:\\-\\[\\]]{1,255}$' },
    must: 'an interface address or host name (127.0.0.1, 0.0.0.0, ::)',
  },
  SEED_SCALE: { schema: { type: 'number', minimum: 0, maximum: 100000 }, must: 'a number from 0 to 100000' },
  LOG_LEVEL: { schema: { enum: LOG_LEVELS }, must: `one of ${LOG_LEVELS.join(', ')}` },
  WORKERS: { schema: { type: 'integer', minimum: 1, maximum: 256 }, must: 'a number of processes from 1 to 256' },
  STOP_TIMEOUT_SECONDS: { schema: { type: 'number', minimum: 0, maximum: 3600 }, must: 'a number of seconds from 0 to 3600' },
  HTTP_PIPELINING: {
    schema: { enum: ['uws', 'serialize'] },
    must: 'uws (uWS alone) or serialize (pipelined requests answered in order, through the front)',
  },
  REQUEST_LOG_KEEP_DAYS: { schema: { type: 'number', minimum: 0, maximum: 36500 }, must: 'a number of days from 0 to 36500' },
  REQUEST_LOG_KEEP_ROWS: { schema: { type: 'integer', minimum: 0, maximum: 1e12 }, must: 'a number of entries from 0' },
  METRICS_TOKEN: {
    schema: { type: 'string', minLength: 16, pattern: '^[\\x21-\\x7e]+$' },
    must: 'at least 16 visible ASCII characters, no spaces',
  },
} as const

type VariableName = keyof typeof VARIABLES

type Validator = ((data: unknown) => boolean) & { errors?: ErrorObject[] | null }
let compiled: Validator | undefined

function validator(): Validator {
  if (compiled === undefined) {
    const Ajv = AjvModule.default ?? AjvModule
    const ajv = new Ajv({ allErrors: true, coerceTypes: true, strict: false })
    const properties = Object.fromEntries(Object.entries(VARIABLES).map(([name, variable]) => [name, variable.schema]))
    compiled = ajv.compile({ type: 'object', properties })
  }
  return compiled
}

/** Reads and checks the environment; throws ConfigurationError naming every variable that is wrong. */
export function readEnvironment(environment: Readonly<Record<string, string | undefined>>): ProcessEnvironment {
  const given: Record<string, string> = {}
  for (const name of Object.keys(VARIABLES)) {
    const value = environment[name]
    if (value !== undefined && value !== '') given[name] = value.trim()
  }
  const values: Record<string, unknown> = { ...given }
  const problems: ConfigurationProblem[] = []
  // A number is written in digits (with a fraction where the variable takes one), as `$admin/log?page=` and
  // the settings take it: the schema's coercion would read `1e3`, `0x10` or `+5` as numbers, so that one
  // text meant different things in different places.
  // (Text that is no number at all, or out of range, is left to the schema's own message.)
  for (const [name, text] of Object.entries(given)) {
    const { schema, must } = VARIABLES[name as VariableName]
    if (!('type' in schema) || (schema.type !== 'integer' && schema.type !== 'number')) continue
    const integer = schema.type === 'integer'
    const value = Number(text)
    const readAsNumber = Number.isFinite(value) && (!integer || Number.isInteger(value))
    if (!readAsNumber || (integer ? /^-?\d+$/ : /^-?\d+(\.\d+)?$/).test(text)) continue
    problems.push({ path: name, message: `must be ${must}, written in digits (got ${JSON.stringify(text)})` })
    delete values[name]
  }
  const validate = validator()
  if (!validate(values)) {
    const named = new Set<string>()
    for (const error of validate.errors ?? []) {
      const name = error.instancePath.slice(1) as VariableName
      if (named.has(name)) continue
      named.add(name)
      problems.push({ path: name, message: `must be ${VARIABLES[name].must} (got ${JSON.stringify(given[name])})` })
    }
  }
  const databaseUrl = environment.DATABASE_URL || DEFAULT_DATABASE_URL
  try {
    parseDatabaseUrl(databaseUrl)
  } catch (error) {
    const message = (error as Error).message.replace(/^DATABASE_URL /, '')
    // What was given, its password masked, unless the message already quotes it.
    const got = /\(got /.test(message) ? '' : ` (got ${JSON.stringify(redactDatabaseUrl(databaseUrl))})`
    problems.push({ path: 'DATABASE_URL', message: `${message}${got}` })
  }
  const configFile = configurationFile(environment)
  if (!existsSync(configFile)) problems.push({ path: 'CONFIG', message: `names no file (${JSON.stringify(configFile)})` })
  for (const check of [() => settingsFromEnvironment(environment), () => new CorsPolicy({}, environment.CORS_ORIGINS)]) {
    try {
      check()
    } catch (error) {
      if (!(error instanceof ConfigurationError)) throw error
      problems.push(...error.problems)
    }
  }
  if (problems.length > 0) throw new ConfigurationError('environment', problems)
  return {
    port: (values.PORT as number | undefined) ?? 8080,
    host: (values.HOST as string | undefined) ?? '127.0.0.1',
    databaseUrl,
    configFile,
    seedScale: (values.SEED_SCALE as number | undefined) ?? 1,
    workers: (values.WORKERS as number | undefined) ?? defaultWorkers(availableParallelism()),
    stopTimeoutSeconds: (values.STOP_TIMEOUT_SECONDS as number | undefined) ?? 25,
    metricsToken: values.METRICS_TOKEN as string | undefined,
    corsOrigins: environment.CORS_ORIGINS?.trim() || undefined,
    pipelining: (values.HTTP_PIPELINING as 'uws' | 'serialize' | undefined) ?? 'uws',
    logRetention: {
      keepDays: values.REQUEST_LOG_KEEP_DAYS as number | undefined,
      keepRows: values.REQUEST_LOG_KEEP_ROWS as number | undefined,
    },
  }
}

/**
 * Processes when WORKERS is not set: half the cores, at least one. The database `make run` serves from runs on
 * the same host and fills a core of its own under load: on two cores, two processes reached 0.26 to 0.83 of
 * one process's throughput for GET by key and 0.78 to 0.99 for `$batch` ingest (`perf/workers.bench.ts`,
 * docs/operations.md), so one process is the fast choice there.
 */
export function defaultWorkers(cores: number): number {
  return Math.max(1, Math.floor(cores / 2))
}
