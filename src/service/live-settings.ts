// The service's settings as they stand now (decisions.md §8): `maxBatchSizeMB`, `maxBatchOperations`,
// `logLevel`, `pageSize`. Each comes from the first of these that sets it:
//   1. an administrator, at run time (`<service root>/$settings`), persisted in MySQL (`_service_state`,
//      entry `settings`), so that a restart keeps it and every process of the service sees it;
//   2. the environment (MAX_BATCH_SIZE_MB, MAX_BATCH_OPERATIONS, REQUEST_LOG_LEVEL, PAGE_SIZE);
//   3. the configuration file's `settings`;
//   4. the defaults of decisions.md §8.
// An administrator's value is removed with `null` (JSON merge patch), and the next source shows again.
//
// Other processes learn of a change by reading the entry again every few seconds (`startRefreshing`):
// one indexed single-row read, and a change is seen everywhere within that interval. The process that
// made the change sees it at once.

import { ODataError } from '../errors.js'
import { logger } from '../log/logger.js'
import { ConfigurationError, type ConfigurationProblem, settingsProblems } from '../model/configuration.js'
import type { ResolvedSettings } from '../model/model.js'
import type { Pool } from '../store/pool.js'

export type SettingName = keyof ResolvedSettings
export type SettingSource = 'administrator' | 'environment' | 'configuration' | 'default'

/** The `_service_state` entry that holds the administrator's values (a JSON object). */
const SETTINGS_ENTRY = 'settings'
const REFRESH_EVERY_MS = 2000

/** A number as written, or the text itself, which the schema then refuses with its own message. */
const numeric = (text: string): unknown => (/^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text)

/** The environment variable of each setting, and how its text becomes a value. */
const ENVIRONMENT: Readonly<Record<SettingName, { variable: string; parse: (text: string) => unknown }>> = {
  maxBatchSizeMB: { variable: 'MAX_BATCH_SIZE_MB', parse: numeric },
  maxBatchOperations: { variable: 'MAX_BATCH_OPERATIONS', parse: numeric },
  logLevel: { variable: 'REQUEST_LOG_LEVEL', parse: (text) => text },
  pageSize: { variable: 'PAGE_SIZE', parse: numeric },
}

const NAMES = Object.keys(ENVIRONMENT) as SettingName[]

/** The settings the environment sets; throws ConfigurationError naming each bad variable. */
export function settingsFromEnvironment(environment: Readonly<Record<string, string | undefined>>): Partial<ResolvedSettings> {
  const values: Record<string, unknown> = {}
  for (const name of NAMES) {
    const text = environment[ENVIRONMENT[name].variable]
    if (text !== undefined && text.trim() !== '') values[name] = ENVIRONMENT[name].parse(text.trim())
  }
  const problems = settingsProblems(values)
  if (problems.length > 0) {
    throw new ConfigurationError(
      'environment',
      problems.map((problem) => {
        const name = problem.path.slice(1) as SettingName
        return { path: ENVIRONMENT[name]?.variable ?? problem.path, message: problem.message }
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
    for (const name of NAMES) {
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
    const [rows] = (await pool.query('SELECT `value` FROM `_service_state` WHERE `name` = ?', [SETTINGS_ENTRY])) as unknown as [{ value: unknown }[]]
    this.administrator = rows.length === 0 ? {} : storedValues(rows[0].value)
    this.value = this.merge()
  }

  /**
   * Applies a JSON merge patch of the administrator's values (a value sets one, `null` removes one),
   * persisted before it takes effect. Throws InvalidSetting (400) listing every bad member, changing
   * nothing. The read and the write are one transaction, so that two administrators changing different
   * settings at once (in different processes) both keep their change.
   */
  async change(pool: Pool, patch: unknown): Promise<SettingsView> {
    if (patch === null || typeof patch !== 'object' || Array.isArray(patch)) {
      throw new ODataError('InvalidBody', 'The settings are changed with a JSON object: {"maxBatchOperations": 50}, or null to remove a value')
    }
    const members = patch as Record<string, unknown>
    const unknown = Object.keys(members).filter((name) => !(NAMES as string[]).includes(name))
    if (unknown.length > 0) throw invalidSettings(unknown.map((name) => ({ path: `/${name}`, message: `is not a setting (settings: ${NAMES.join(', ')})` })))
    const setting = Object.fromEntries(Object.entries(members).filter(([, value]) => value !== null))
    const problems = settingsProblems(setting)
    if (problems.length > 0) throw invalidSettings(problems)

    const connection = await pool.getConnection()
    try {
      await connection.beginTransaction()
      const [rows] = (await connection.query('SELECT `value` FROM `_service_state` WHERE `name` = ? FOR UPDATE', [SETTINGS_ENTRY])) as unknown as [{ value: unknown }[]]
      const stored: Record<string, unknown> = rows.length === 0 ? {} : { ...storedValues(rows[0].value) }
      for (const [name, value] of Object.entries(members)) {
        if (value === null) delete stored[name]
        else stored[name] = value
      }
      await connection.query('REPLACE INTO `_service_state` (`name`, `value`) VALUES (?, ?)', [SETTINGS_ENTRY, JSON.stringify(stored)])
      await connection.commit()
      this.administrator = stored as Partial<ResolvedSettings>
      this.value = this.merge()
    } catch (error) {
      await connection.rollback().catch(() => undefined)
      throw error
    } finally {
      connection.release()
    }
    return this.view()
  }

  /** Reads the administrator's values again every few seconds, to see other processes' changes. */
  startRefreshing(pool: Pool): void {
    this.stopRefreshing()
    this.refreshTimer = setInterval(() => {
      this.load(pool).catch((error: unknown) => logger.warn({ err: error }, 'could not read the settings again; the last ones stay in force'))
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

/** The stored administrator's values, if they are still valid settings; otherwise none (and a warning). */
function storedValues(value: unknown): Partial<ResolvedSettings> {
  const parsed = typeof value === 'string' ? safeParse(value) : value
  const known = parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? Object.fromEntries(Object.entries(parsed).filter(([name]) => (NAMES as string[]).includes(name))) : undefined
  if (known === undefined || settingsProblems(known).length > 0) {
    logger.warn({ stored: value }, 'the stored settings are not valid settings; they are ignored')
    return {}
  }
  return known as Partial<ResolvedSettings>
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

function invalidSettings(problems: readonly ConfigurationProblem[]): ODataError {
  return new ODataError('InvalidSetting', `The settings were not changed: ${problems.map((problem) => `${problem.path.slice(1) || 'settings'} ${problem.message}`).join('; ')}`, {
    details: problems.map((problem) => ({ code: 'InvalidSetting', message: problem.message, target: problem.path.slice(1) })),
  })
}
