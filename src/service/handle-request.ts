// The one dispatcher from a resolved request to its handler. Single HTTP requests and `$batch`
// operations both come through here.
import { ODataError } from '../errors.js'
import { buildServiceDocument } from '../model/service-document.js'
import type { ResourcePath } from '../odata/resource-path.js'
import type { ResponseSink } from '../respond/response-sink.js'
import { authorizeWrite } from './authorize.js'
import { readCollection, readCollectionCount } from './read-collection.js'
import { readEntity } from './read-entity.js'
import { readMetadata } from './read-metadata.js'
import { readNavigation } from './read-navigation.js'
import type { ServiceContext } from './service-context.js'
import type { ServiceRequest } from './service-request.js'
import { runWrite } from './writes/run-write.js'
import { readVirtualTable } from './read-virtual-table.js'

/** The methods a resource accepts, for `405` with `Allow` (HEAD goes with GET). */
export function allowedMethods(path: ResourcePath): readonly string[] {
  switch (path.kind) {
    case 'serviceDocument':
    case 'metadata':
      return ['GET', 'HEAD']
    case 'batch':
      return ['POST', 'OPTIONS']
    case 'collection':
      return path.count ? ['GET', 'HEAD'] : withHead(path.set.collectionMethods)
    case 'entity':
      return withHead(path.set.entityMethods)
    case 'navigation':
    case 'function':
      return ['GET', 'HEAD']
    case 'action':
      return ['POST']
  }
}

function withHead(methods: readonly string[]): string[] {
  return methods.includes('GET') ? [...methods, 'HEAD'] : [...methods]
}

export function methodNotAllowed(method: string, allowed: readonly string[], what: string): ODataError {
  return new ODataError('MethodNotAllowed', `${method} is not allowed on ${what}; allowed: ${allowed.join(', ')}`, {
    headers: { Allow: allowed.join(', ') },
  })
}

export async function handleRequest(context: ServiceContext, request: ServiceRequest, sink: ResponseSink): Promise<void> {
  const path = request.path
  const allowed = allowedMethods(path)
  if (!allowed.includes(request.method)) throw methodNotAllowed(request.method, allowed, describe(path))
  const reading = request.method === 'GET' || request.method === 'HEAD'

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
      if (reading && !path.count) return readCollection(context, request, sink, path.set)
      if (reading) return readCollectionCount(context, request, sink, path.set)
      authorizeWrite(request.subject, path.set)
      return runWrite(context, request, sink)
    case 'entity':
      if (reading) return readEntity(context, request, sink, path.set, path.key)
      authorizeWrite(request.subject, path.set)
      return runWrite(context, request, sink)
    case 'navigation':
      return readNavigation(context, request, sink, path.set, path.key, path.navigation, path.count)
    case 'action':
      authorizeWrite(request.subject, path.set)
      return runWrite(context, request, sink)
    case 'function':
      return readVirtualTable(context, request, sink, path)
  }
}

function describe(path: ResourcePath): string {
  switch (path.kind) {
    case 'serviceDocument':
      return 'the service document'
    case 'metadata':
      return '$metadata'
    case 'batch':
      return '$batch'
    case 'collection':
      return path.count ? `${path.set.name}/$count` : path.set.name
    case 'entity':
      return `an entity of ${path.set.name}`
    case 'navigation':
      return `${path.set.name}/${path.navigation.name}`
    case 'action':
      return `the action ${path.action.name}`
    case 'function':
      return `the function ${path.function.name}`
  }
}
