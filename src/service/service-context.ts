// What every handler needs and nothing more: the model, the pool, documents built once at start-up.
import type { ServiceModel } from '../model/model.js'
import type { Pool } from '../store/pool.js'
import { buildMetadataXml } from '../model/csdl.js'
import { RequestLog } from '../log/request-log.js'

export interface ServiceContext {
  readonly model: ServiceModel
  readonly pool: Pool
  /** `$metadata`, built once: the model never changes while the service runs. */
  readonly metadataXml: string
  readonly requestLog: RequestLog
}

export function createServiceContext(model: ServiceModel, pool: Pool): ServiceContext {
  return { model, pool, metadataXml: buildMetadataXml(model), requestLog: new RequestLog(pool, () => model.settings.logLevel) }
}
