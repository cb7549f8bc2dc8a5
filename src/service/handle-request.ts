// The one dispatcher from a resolved request to its handler, and the only door to them: a single HTTP
// request (src/http/server.ts) and every operation of a `$batch` come through here, so that both meet the
// same refusals in the same order (method, then the profile's right to write, then the handler's own).
// An operation of a change set comes with the set's transaction (change-set.ts): its write joins it
// instead of running in a transaction of its own.
import { ODataError } from '../errors.js'
import { buildServiceDocument } from '../model/service-document.js'
import type { ResponseSink } from '../respond/response-sink.js'
import type { Transaction } from '../store/transaction.js'
import { allowedMethods, describeResource, methodNotAllowed } from './allowed-methods.js'
import { authorizeWrite } from './authorize.js'
import { readCollection, readCollectionCount } from './read-collection.js'
import { readEntity } from './read-entity.js'
import { readMetadata } from './read-metadata.js'
import { readNavigation } from './read-navigation.js'
import type { ServiceContext } from './service-context.js'
import type { ServiceRequest } from './service-request.js'
import { runWrite } from './writes/run-write.js'
import { readVirtualTable } from './read-virtual-table.js'

/**
 * The refusals every request meets before its handler: `405` with `Allow` for a method the resource does
 * not accept, then `403` for a write the profile may not make. Throws; returns whether it is a write.
 */
export function admitRequest(request: ServiceRequest): boolean {
  const path = request.path
  const allowed = allowedMethods(path)
  if (!allowed.includes(request.method)) throw methodNotAllowed(request.method, allowed, describeResource(path))
  if (request.method === 'GET' || request.method === 'HEAD') return false
  if (path.kind === 'entity' || path.kind === 'action' || (path.kind === 'collection' && !path.count)) {
    authorizeWrite(request.subject, path.set)
    return true
  }
  return false
}

/**
 * Serves one request into `sink`. `transaction`: the change set's, which a write runs in (the caller
 * commits it); without one a write runs in a transaction of its own, committed before it answers.
 */
export async function handleRequest(
  context: ServiceContext,
  request: ServiceRequest,
  sink: ResponseSink,
  transaction?: Transaction,
): Promise<void> {
  if (admitRequest(request)) return runWrite(context, request, sink, transaction)
  const path = request.path
  switch (path.kind) {
    case 'serviceDocument':
      return sink.sendJson(200, buildServiceDocument(context.model, request.serviceRoot))
    case 'metadata':
      return readMetadata(context, request, sink)
    case 'batch':
      // HTTP hands `$batch` to its endpoint (src/http/batch-endpoint.ts), which refuses the reference
      // flavour in the order of decisions.md §7; only an operation of a batch addressing `$batch` comes here.
      throw new ODataError('NotImplemented', 'A $batch cannot be an operation of another batch')
    case 'collection':
      if (!path.count) return readCollection(context, request, sink, path.set)
      return readCollectionCount(context, request, sink, path.set)
    case 'entity':
      return readEntity(context, request, sink, path.set, path.key)
    case 'navigation':
      return readNavigation(context, request, sink, path.set, path.key, path.navigation, path.count)
    case 'action':
      // An action is always a write (POST, admitted above); no other method reaches here.
      throw new ODataError('InternalError', `${request.method} reached the action ${path.action.name}`)
    case 'function':
      return readVirtualTable(context, request, sink, path)
  }
}
