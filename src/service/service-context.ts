// What every handler needs and nothing more: the model, the pool, documents built once at start-up,
// and the settings in force (they change at run time: read them per request).
import type { ServiceModel } from '../model/model.js'
import type { Pool } from '../store/pool.js'
import { buildMetadataXml } from '../model/csdl.js'
import { RequestLog } from '../log/request-log.js'
import { RateLimiter } from '../limits/rate-limiter.js'
import { LiveSettings, settingsFromEnvironment } from './live-settings.js'

export interface ServiceContext {
  readonly model: ServiceModel
  readonly pool: Pool
  /** `$metadata`, built once: the model never changes while the service runs. */
  readonly metadataXml: string
  readonly requestLog: RequestLog
  /** `settings.current`: the configuration's settings as the environment and an administrator changed them. */
  readonly settings: LiveSettings
  /** The profiles' rate rules, counted in blocks reserved from MySQL (decisions.md §8). */
  readonly rateLimiter: RateLimiter
}

/**
 * @param environment the process environment, for the settings it overrides (tests pass none); a bad
 * value throws ConfigurationError naming the variable.
 */
export function createServiceContext(
  model: ServiceModel,
  pool: Pool,
  environment: Readonly<Record<string, string | undefined>> = {},
): ServiceContext {
  const settings = new LiveSettings(model.settings, model.configuration.settings ?? {}, settingsFromEnvironment(environment))
  return {
    model,
    pool,
    metadataXml: buildMetadataXml(model),
    requestLog: new RequestLog(pool, () => settings.current.logLevel, configuredTokens(model)),
    settings,
    rateLimiter: new RateLimiter(pool),
  }
}

/** Every token a subject can authenticate with: the request log masks them wherever they appear. */
function configuredTokens(model: ServiceModel): string[] {
  return model.subjects.flatMap((subject) => (subject.token === undefined ? [] : [subject.token]))
}
