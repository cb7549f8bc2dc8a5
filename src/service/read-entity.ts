// GET of one entity by key, in every key form of decisions.md §2 (the resource-path resolver has
// already turned the predicate into stored values).
import { ODataError } from '../errors.js'
import type { EntitySetModel, PropertyModel } from '../model/model.js'
import type { KeyValues } from '../odata/resource-path.js'
import { createEntityWriter } from '../respond/entity-writer.js'
import type { ResponseSink } from '../respond/response-sink.js'
import { quoteIdentifier as q } from '../sql/quote-identifier.js'
import { sqlValues } from '../store/pool.js'
import { authorizeRead } from './authorize.js'
import { jsonFormat, responseHeaders } from './response-format.js'
import { selectedProperties } from './select-list.js'
import type { ServiceContext } from './service-context.js'
import type { ServiceRequest } from './service-request.js'

/** Query options that mean something for a single entity; others are refused rather than ignored. */
const SINGLE_ENTITY_OPTIONS = new Set(['$select', '$format', '$expand'])

export function keyCondition(set: EntitySetModel): string {
  return set.key.map((k) => `${q(k.column)} = ?`).join(' AND ')
}

export function keyParameters(set: EntitySetModel, key: KeyValues): unknown[] {
  return set.key.map((k) => key.get(k.name))
}

/** Reads the stored row of one entity as an array in the order of `properties`, or undefined. */
export async function fetchEntityRow(context: ServiceContext, set: EntitySetModel, key: KeyValues, properties: readonly PropertyModel[]): Promise<unknown[] | undefined> {
  const sql = `SELECT ${properties.map((p) => q(p.column)).join(', ')} FROM ${q(set.table)} WHERE ${keyCondition(set)} LIMIT 1`
  const [rows] = await context.pool.execute({ sql, rowsAsArray: true }, sqlValues(keyParameters(set, key)))
  return (rows as unknown[][])[0]
}

/**
 * A record set (`AccumulationRegister_Stock(Recorder=…,Recorder_Type=…)`) exists when it has movements or
 * when its recorder document exists (an empty set is still a set the recorder may write).
 */
async function recordSetExists(context: ServiceContext, set: EntitySetModel, key: KeyValues): Promise<boolean> {
  const [movements] = await context.pool.execute(`SELECT 1 FROM ${q(set.table)} WHERE ${keyCondition(set)} LIMIT 1`, sqlValues(keyParameters(set, key)))
  if ((movements as unknown[]).length > 0) return true
  const recorderType = String(key.get('Recorder_Type'))
  const recorderSet = context.model.entitySetByName.get(recorderType.slice(recorderType.indexOf('.') + 1))
  if (!recorderSet || recorderSet.kind !== 'Document') return false
  const [documents] = await context.pool.execute(`SELECT 1 FROM ${q(recorderSet.table)} WHERE ${q('Ref_Key')} = ? LIMIT 1`, sqlValues([key.get('Recorder')]))
  return (documents as unknown[]).length > 0
}

export async function readEntity(context: ServiceContext, request: ServiceRequest, sink: ResponseSink, set: EntitySetModel, key: KeyValues): Promise<void> {
  authorizeRead(request.subject, set)
  for (const option of request.query.system.keys()) {
    if (!SINGLE_ENTITY_OPTIONS.has(option)) throw new ODataError('InvalidQueryOption', `${option} does not apply to a single entity`, { target: option })
  }
  if (request.query.system.has('$expand')) throw new ODataError('NotImplemented', '$expand is not available yet', { target: '$expand' })
  const format = jsonFormat(request)
  const properties = selectedProperties(set, request.query.system.get('$select'))
  let row: unknown[] | undefined
  if (set.kind === 'AccumulationRegister' || set.kind === 'AccountingRegister') {
    row = (await recordSetExists(context, set, key)) ? properties.map((p) => key.get(p.name)) : undefined
  } else {
    row = await fetchEntityRow(context, set, key, properties)
  }
  if (!row) throw new ODataError('NotFound', `${set.name} has no entity with this key`)

  const dataVersion = set.propertyByName.get('DataVersion')
  let etag: string | undefined
  if (dataVersion) {
    const index = properties.indexOf(dataVersion)
    const version = index >= 0 ? row[index] : (await fetchEntityRow(context, set, key, [dataVersion]))?.[0]
    etag = `W/"${String(version)}"`
  }
  const context_ = `"@odata.context":${JSON.stringify(`${request.serviceRoot}$metadata#${set.name}/$entity`)},`
  const annotations = context_ + (etag === undefined ? '' : `"@odata.etag":${JSON.stringify(etag)},`)
  const writer = createEntityWriter(properties, format)
  let body = writer.write(row, annotations)
  if (properties.length === 0) body = body.replace(/,}$/, '}')
  sink.sendJson(200, body, responseHeaders(format, etag === undefined ? {} : { ETag: etag }))
}
