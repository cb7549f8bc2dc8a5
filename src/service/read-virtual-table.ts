// GET of a virtual table (service.md §4.2): `…/<Register>/<Function>(…)` and `…/StandardODATA.<Function>(…)`,
// parameters in the parentheses or the query string, and `/$count`. src/virtual makes the call a
// queryable source (virtual-table-call.ts); the read pipeline then runs over it like over any
// collection: $filter, $orderby, $select, $expand (after grouping), $apply, $top, $skip, $count,
// server-driven paging, and rows streamed with backpressure.
import type { ResponseSink } from '../respond/response-sink.js'
import { prepareCall, virtualTableSource, type FunctionCall } from '../virtual/virtual-table-call.js'
import { authorizeRead } from './authorize.js'
import { parseReadOptions } from './read/parsed-read-options.js'
import { poolRunner } from './read/query-runner.js'
import { readCount } from './read/read-count.js'
import { readRows, type RowsTarget } from './read/read-rows.js'
import type { ServiceContext } from './service-context.js'
import type { ServiceRequest } from './service-request.js'

export type { FunctionCall }

export async function readVirtualTable(
  context: ServiceContext,
  request: ServiceRequest,
  sink: ResponseSink,
  path: FunctionCall,
): Promise<void> {
  authorizeRead(request.subject, path.set)
  const options = parseReadOptions(request, path.count ? 'count' : 'collection')
  const prepared = prepareCall(context.model, path, request.query.custom, options)
  const base = await virtualTableSource(prepared, poolRunner(context.pool))
  const model = context.model
  const signature = path.function
  const parameters = [...path.parameters].map(([name, value]) => `${name}=${value}`).join(',')
  const target: RowsTarget = {
    base,
    contextName: signature.resultIsEntity ? path.set.name : `Collection(${model.namespace}.${signature.resultType})`,
    resourcePath: `${encodeURIComponent(path.set.name)}/${signature.name}(${encodeURIComponent(parameters)})`,
    conditions: () => [],
    fingerprint: `${path.set.name}/${signature.name}(${parameters})?${[...request.query.custom]
      .filter(([name]) => name !== 'token')
      .map(([n, v]) => `${n}=${v}`)
      .join('&')}`,
    options,
  }
  if (path.count) await readCount(context, request, sink, target)
  else await readRows(context, request, sink, target)
}
