// GET of an entity set (`Catalog_Products`, `AccumulationRegister_Stock_RecordType`) and its `/$count`:
// every query option of service.md §4.1, streamed (src/service/read/read-rows.ts).
//
// Change tracking (docs/change-tracking.md): a read with `Prefer: odata.track-changes` of a tracked set
// takes the low-water mark of the change record before its first page and ends its last page with a
// delta link of that position; a `$deltatoken` either continues such a read (its next links carry one)
// or is a delta link, answered from the change record (src/service/read/read-delta.ts).
import type { EntitySetModel } from '../model/model.js'
import type { ResponseSink } from '../respond/response-sink.js'
import { entitySetSources } from '../sql/entity-set-sources.js'
import { changeWatermark } from '../store/change-feed.js'
import { authorizeRead } from './authorize.js'
import { trackableOptions, trackChangesPreference, tracksChanges } from './read/change-tracking.js'
import { decodeDeltaToken, encodeDeltaToken } from './read/delta-token.js'
import { deltaLink } from './read/next-link.js'
import { readCount } from './read/read-count.js'
import { readDelta } from './read/read-delta.js'
import { readRows, type RowsTarget, type RowsTracking } from './read/read-rows.js'
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
  const token = request.query.system.get('$deltatoken')
  if (token !== undefined) {
    const position = await decodeDeltaToken(context.pool, request, set, token)
    if (position.phase === 'delta') return readDelta(context, request, sink, set, position)
    return readRows(context, request, sink, setTarget(context, set), await tracking(context, request, set, position.from))
  }
  const preference = trackChangesPreference(request)
  if (preference !== undefined && tracksChanges(set) && trackableOptions(request)) {
    // Taken before the first row is read: a change committed while the pages are read shows in the first delta.
    const from = await changeWatermark(context.pool)
    return readRows(context, request, sink, setTarget(context, set), await tracking(context, request, set, from, preference))
  }
  await readRows(context, request, sink, setTarget(context, set))
}

async function tracking(
  context: ServiceContext,
  request: ServiceRequest,
  set: EntitySetModel,
  from: string,
  preference = 'odata.track-changes',
): Promise<RowsTracking> {
  const [readToken, deltaToken] = await Promise.all([
    encodeDeltaToken(context.pool, request, set, { phase: 'read', from }),
    encodeDeltaToken(context.pool, request, set, { phase: 'delta', from }),
  ])
  return { applied: preference, readToken, deltaLink: deltaLink(request, encodeURIComponent(set.name), deltaToken) }
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
