// The service's settings as they stand now (decisions.md §8): `maxBatchSizeMB`, `maxBatchOperations`,
// `logLevel`, `pageSize`. Each comes from the first of these that sets it:
//   1. an administrator, at run time (`<service root>/$settings`), persisted in MySQL (`_settings`, one
//      row per setting, its value as JSON), so that a restart keeps it and every process sees it;
//   2. the environment (MAX_BATCH_SIZE_MB, MAX_BATCH_OPERATIONS, REQUEST_LOG_LEVEL, PAGE_SIZE);
//   3. the configuration file's `settings`;
//   4. the defaults of decisions.md §8.
// An administrator's value is removed with `null` (JSON merge patch), and the next source shows again.
//
// Other processes learn of a change by reading the table again every few seconds (`startRefreshing`):
// a read of at most four rows, and a change is seen everywhere within that interval. The process that
// made the change sees it at once.

import { ODataError } from '../errors.js'
import { logger } from '../log/logger.js'
import { ConfigurationError, type ConfigurationProblem, settingsProblems } from '../model/configuration.js'
import type { ResolvedSettings } from '../model/model.js'
import { sql } from '../sql/sql-template.js'
import type { Pool } from '../store/pool.js'
import { databaseOf } from '../store/database.js'
import { runInTransaction } from '../store/transaction.js'

export type SettingName = keyof ResolvedSettings
export type SettingSource = 'administrator' | 'environment' | 'configuration' | 'default'

const REFRESH_EVERY_MS = 2000

/** A number as written in digits, or the text itself, which the schema then refuses with its own message. */
const numeric = (text: string): unknown => (/^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text)
/** A count is written in digits only: `2.0` stays text and is refused, as the other counts' variables are. */
const count = (text: string): unknown => (/^-?\d+$/.test(text) ? Number(text) : text)

/** The environment variable of each setting, and how its text becomes a value. */
const ENVIRONMENT: Readonly<Record<SettingName, { variable: string; parse: (text: string) => unknown }>> = {
  maxBatchSizeMB: { variable: 'MAX_BATCH_SIZE_MB', parse: numeric },
  maxBatchOperations: { variable: 'MAX_BATCH_OPERATIONS', parse: count },
  logLevel: { variable: 'REQUEST_LOG_LEVEL', parse: (text) => text },
  pageSize: { variable: 'PAGE_SIZE', parse: count },
  changeRetentionHours: { variable: 'CHANGE_RETENTION_HOURS', parse: numeric },
}

/** Every setting an administrator may change, in the order the administration page shows them. */
export const SETTING_NAMES = Object.keys(ENVIRONMENT) as SettingName[]

/** The settings the environment sets; throws ConfigurationError naming each bad variable. */
export function settingsFromEnvironment(environment: Readonly<Record<string, string | undefined>>): Partial<ResolvedSettings> {
  const values: Record<string, unknown> = {}
  for (const name of SETTING_NAMES) {
    const text = environment[ENVIRONMENT[name].variable]
    if (text !== undefined && text.trim() !== '') values[name] = ENVIRONMENT[name].parse(text.trim())
  }
  const problems = settingsProblems(values)
  if (problems.length > 0) {
    throw new ConfigurationError(
      'environment',
      problems.map((problem) => {
        const name = problem.path.slice(1) as SettingName
        const variable = ENVIRONMENT[name]?.variable
        // The text as given, so that a person sees what was wrong with it.
        const got = variable === undefined ? '' : ` (got ${JSON.stringify(environment[variable]?.trim())})`
        return { path: variable ?? problem.path, message: `${problem.message}${got}` }
      }),
    )
  }
  return values as Partial<ResolvedSettings>
}

export interface SettingsView {
  readonly settings: ResolvedSettings
  readonly sources: Readonly<Record<SettingName, SettingSource>>
}

export class LiveSettings {
  private administrator: Partial<ResolvedSettings> = {}
  private value: ResolvedSettings
  private refreshTimer: NodeJS.Timeout | undefined

  /**
   * @param configured defaults and the configuration file (ServiceModel.settings)
   * @param environment what the environment sets (settingsFromEnvironment)
   */
  constructor(
    private readonly configured: ResolvedSettings,
    private readonly configuredExplicitly: Partial<ResolvedSettings>,
    private readonly environment: Partial<ResolvedSettings> = {},
  ) {
    this.value = this.merge()
  }

  /** The settings in force; read it per request, it changes while the service runs. */
  get current(): ResolvedSettings {
    return this.value
  }

  /** The settings with where each one comes from. */
  view(): SettingsView {
    const sources = {} as Record<SettingName, SettingSource>
    for (const name of SETTING_NAMES) {
      sources[name] =
        this.administrator[name] !== undefined
          ? 'administrator'
          : this.environment[name] !== undefined
            ? 'environment'
            : this.configuredExplicitly[name] !== undefined
              ? 'configuration'
              : 'default'
    }
    return { settings: this.value, sources }
  }

  /** Reads the administrator's values from MySQL (at start, and when refreshing). */
  async load(pool: Pool): Promise<void> {
    const rows = await databaseOf(pool).rows<{ name: string; value: string }>(sql`SELECT \`name\`, \`value\` FROM \`_settings\``)
    this.administrator = storedValues(rows)
    this.value = this.merge()
  }

  /**
   * Applies a JSON merge patch of the administrator's values (a value sets one, `null` removes one),
   * persisted before it takes effect, all members in one transaction. Throws InvalidSetting (400)
   * listing every bad member, changing nothing. A row per setting: administrators changing different
   * settings at once (in different processes) both keep their change.
   */
  async change(pool: Pool, patch: unknown): Promise<SettingsView> {
    if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
      throw new ODataError(
        'InvalidBody',
        'The settings are changed with a JSON object: {"maxBatchOperations": 50}, or null to remove a value',
      )
    }
    const members = patch as Record<string, unknown>
    const unknown = Object.keys(members).filter((name) => !(SETTING_NAMES as string[]).includes(name))
    if (unknown.length > 0)
      throw invalidSettings(
        unknown.map((name) => ({ path: `/${name}`, message: `is not a setting (settings: ${SETTING_NAMES.join(', ')})` })),
      )
    const problems = settingsProblems(Object.fromEntries(Object.entries(members).filter(([, value]) => value !== null)))
    if (problems.length > 0) throw invalidSettings(problems)

    await runInTransaction(pool, async (transaction) => {
      for (const [name, value] of Object.entries(members)) {
        if (value === null) await transaction.run(sql`DELETE FROM \`_settings\` WHERE \`name\` = ${name}`)
        else await transaction.run(sql`REPLACE INTO \`_settings\` (\`name\`, \`value\`) VALUES (${name}, ${JSON.stringify(value)})`)
      }
    })
    await this.load(pool)
    return this.view()
  }

  /** Reads the administrator's values again every few seconds, to see other processes' changes. */
  startRefreshing(pool: Pool): void {
    this.stopRefreshing()
    this.refreshTimer = setInterval(() => {
      this.load(pool).catch((error: unknown) =>
        logger.warn({ err: error }, 'could not read the settings again; the last ones stay in force'),
      )
    }, REFRESH_EVERY_MS)
    this.refreshTimer.unref()
  }

  stopRefreshing(): void {
    if (this.refreshTimer !== undefined) clearInterval(this.refreshTimer)
    this.refreshTimer = undefined
  }

  private merge(): ResolvedSettings {
    return Object.freeze({ ...this.configured, ...this.environment, ...this.administrator })
  }
}

/** The stored administrator's values that are still valid settings; any other row is ignored, with a warning. */
function storedValues(rows: readonly { name: string; value: string }[]): Partial<ResolvedSettings> {
  const values: Record<string, unknown> = {}
  for (const row of rows) {
    const value = safeParse(row.value)
    if ((SETTING_NAMES as string[]).includes(row.name) && value !== undefined && settingsProblems({ [row.name]: value }).length === 0)
      values[row.name] = value
    else logger.warn({ setting: row.name, stored: row.value }, 'a stored setting is not a valid setting; it is ignored')
  }
  return values as Partial<ResolvedSettings>
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function invalidSettings(problems: readonly ConfigurationProblem[]): ODataError {
  return new ODataError(
    'InvalidSetting',
    `The settings were not changed: ${problems.map((problem) => `${problem.path.slice(1) || 'settings'} ${problem.message}`).join('; ')}`,
    {
      details: problems.map((problem) => ({ code: 'InvalidSetting', message: problem.message, target: problem.path.slice(1) })),
    },
  )
}
