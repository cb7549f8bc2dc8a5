// The methods each kind of resource accepts, and the `405` that names them in `Allow` (RFC 9110 §15.5.6).
// The dispatcher (handle-request.ts) refuses with it, for a single request and a batch operation alike.
import { ODataError } from '../errors.js'
import type { ResourcePath } from '../odata/resource-path.js'

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

/** The resource as a refusal names it. */
export function describeResource(path: ResourcePath): string {
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
