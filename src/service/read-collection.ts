// GET of an entity set (`Catalog_Products`, `AccumulationRegister_Stock_RecordType`) and its `/$count`:
// every query option of service.md §4.1, streamed (src/service/read/read-rows.ts).
import type { EntitySetModel } from '../model/model.js'
import type { ResponseSink } from '../respond/response-sink.js'
import { entitySetSources } from '../sql/entity-set-sources.js'
import { authorizeRead } from './authorize.js'
import { readCount } from './read/read-count.js'
import { readRows, type RowsTarget } from './read/read-rows.js'
import type { ServiceContext } from './service-context.js'
import type { ServiceRequest } from './service-request.js'

function setTarget(context: ServiceContext, set: EntitySetModel): RowsTarget {
  return {
    base: entitySetSources(context.model)(set.name),
    contextName: set.name,
    resourcePath: encodeURIComponent(set.name),
    conditions: () => [],
  }
}

export async function readCollection(
  context: ServiceContext,
  request: ServiceRequest,
  sink: ResponseSink,
  set: EntitySetModel,
): Promise<void> {
  authorizeRead(request.subject, set)
  await readRows(context, request, sink, setTarget(context, set))
}

export async function readCollectionCount(
  context: ServiceContext,
  request: ServiceRequest,
  sink: ResponseSink,
  set: EntitySetModel,
): Promise<void> {
  authorizeRead(request.subject, set)
  await readCount(context, request, sink, setTarget(context, set))
}
