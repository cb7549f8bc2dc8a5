// GET of a whole entity set, streamed in key order. `$select`, `$top` and `$skip` are applied here;
// the expression options ($filter, $orderby, $expand, $apply, $count) come with the query compiler.
import { ODataError } from '../errors.js'
import type { EntitySetModel } from '../model/model.js'
import { createEntityWriter } from '../respond/entity-writer.js'
import type { ResponseSink } from '../respond/response-sink.js'
import { streamRows } from '../respond/stream-rows.js'
import { quoteIdentifier as q } from '../sql/quote-identifier.js'
import { authorizeRead } from './authorize.js'
import { jsonFormat, responseHeaders } from './response-format.js'
import { selectedProperties } from './select-list.js'
import type { ServiceContext } from './service-context.js'
import type { ServiceRequest } from './service-request.js'

const SUPPORTED = new Set(['$select', '$top', '$skip', '$format'])

function nonNegativeInteger(option: string, text: string | undefined): number | undefined {
  if (text === undefined) return undefined
  if (!/^\d{1,15}$/.test(text.trim())) throw new ODataError('InvalidQueryOption', `${option} must be a non-negative integer`, { target: option })
  return Number(text.trim())
}

export async function readCollection(context: ServiceContext, request: ServiceRequest, sink: ResponseSink, set: EntitySetModel): Promise<void> {
  authorizeRead(request.subject, set)
  for (const option of request.query.system.keys()) {
    if (option === '$search') throw new ODataError('SearchNotSupported', '$search is not supported; use $filter', { target: '$search' })
    if (!SUPPORTED.has(option)) throw new ODataError('NotImplemented', `${option} is not available yet`, { target: option })
  }
  const format = jsonFormat(request)
  const properties = selectedProperties(set, request.query.system.get('$select'))
  const top = nonNegativeInteger('$top', request.query.system.get('$top'))
  const skip = nonNegativeInteger('$skip', request.query.system.get('$skip'))
  const columns = properties.length > 0 ? properties.map((p) => q(p.column)).join(', ') : '1'
  let sql = `SELECT ${columns} FROM ${q(set.table)} ORDER BY ${set.key.map((k) => q(k.column)).join(', ')}`
  const values: unknown[] = []
  if (top !== undefined || skip !== undefined) {
    sql += ' LIMIT ? OFFSET ?'
    values.push(top ?? Number.MAX_SAFE_INTEGER, skip ?? 0)
  }
  const head = `{"@odata.context":${JSON.stringify(`${request.serviceRoot}$metadata#${set.name}`)},"value":[`
  await streamRows(sink, context.pool, { sql, values, writer: createEntityWriter(properties, format), status: 200, headers: responseHeaders(format), head, tail: ']}' })
}
