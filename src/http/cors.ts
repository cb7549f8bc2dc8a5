// Cross-origin requests from browsers (the Fetch standard's CORS protocol). The allowed origins come from
// the configuration's `cors.allowedOrigins`, or CORS_ORIGINS (comma-separated) over it; `*` is refused: a
// service answering with credentials must name the origins it trusts.
// - A preflight (`OPTIONS` with `Origin` and `Access-Control-Request-Method`) is answered here, before
//   authentication (a browser sends no credentials with it): 204 with the methods and headers OData clients
//   send, and Max-Age; a preflight from another origin is 403.
// - Any other request from an allowed origin gets Access-Control-Allow-Origin and Expose-Headers naming
//   the OData headers a script must read (OData-Version, OData-EntityId, Preference-Applied, Retry-After,
//   Location, ETag); from another origin a read runs as before, and the browser keeps the answer from the script.
// - A request that changes state (POST, PUT, PATCH, MERGE, DELETE) from an origin that is neither allowed nor
//   the service's own is refused before it runs (403 OriginNotAllowed): a page on another site could otherwise
//   send it with the browser's cached Basic credentials, and the browser would only hide the answer.
import { ConfigurationError, type ConfigurationProblem } from '../model/configuration.js'
import type { Headers } from './responder.js'

export const ALLOWED_METHODS = 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS'
export const ALLOWED_HEADERS =
  'Authorization, Accept, Content-Type, If-Match, If-None-Match, Prefer, OData-Version, OData-MaxVersion, Repeatability-Request-ID, Repeatability-First-Sent, Content-ID, Isolation'
export const EXPOSED_HEADERS =
  'OData-Version, OData-EntityId, Preference-Applied, Retry-After, Location, ETag, Repeatability-Result, Content-Type'
const DEFAULT_MAX_AGE_SECONDS = 600
const STATE_CHANGING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'MERGE', 'DELETE'])

export interface CorsConfiguration {
  readonly allowedOrigins?: readonly string[]
  readonly maxAgeSeconds?: number
}

/** What the HTTP layer does with a request as far as CORS goes. */
export type CorsOutcome =
  /** Answer this preflight now, with these status and headers. */
  | { readonly preflight: true; readonly status: 204 | 403; readonly headers: Headers }
  /** Go on, adding these headers to the answer (none for a request without an allowed Origin). */
  | { readonly preflight: false; readonly headers: Headers | undefined }

const ORIGIN = /^https?:\/\/(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+)(:\d{1,5})?$/

export class CorsPolicy {
  private readonly origins: ReadonlySet<string>
  private readonly maxAge: string

  /** Throws ConfigurationError naming each origin that is not one (`*`, a path, a missing scheme). */
  constructor(configuration: CorsConfiguration = {}, environmentOrigins?: string) {
    const fromEnvironment = environmentOrigins?.trim()
    const listed = fromEnvironment
      ? fromEnvironment
          .split(',')
          .map((origin) => origin.trim())
          .filter((origin) => origin !== '')
      : (configuration.allowedOrigins ?? [])
    const where = fromEnvironment ? 'CORS_ORIGINS' : '/cors/allowedOrigins'
    const problems: ConfigurationProblem[] = []
    for (const [index, origin] of listed.entries()) {
      const path = fromEnvironment ? where : `${where}/${index}`
      if (origin === '*' || origin.includes('*'))
        problems.push({
          path,
          message: `"${origin}": a wildcard is refused; list each origin a browser client is served from (https://app.example.com)`,
        })
      else if (!ORIGIN.test(origin))
        problems.push({
          path,
          message: `"${origin}" is not an origin: scheme, host and optional port, no path (https://app.example.com:8443)`,
        })
    }
    if (problems.length > 0) throw new ConfigurationError(fromEnvironment ? 'environment' : 'configuration', problems)
    this.origins = new Set(listed.map((origin) => origin.toLowerCase()))
    this.maxAge = String(configuration.maxAgeSeconds ?? DEFAULT_MAX_AGE_SECONDS)
  }

  get enabled(): boolean {
    return this.origins.size > 0
  }

  allows(origin: string): boolean {
    return this.origins.has(origin.toLowerCase())
  }

  /**
   * Whether a request changing state comes from a foreign origin: its `Origin` is neither in the list nor
   * the service's own (the `Host` it was sent to; a browser sends `Origin` with a same-origin POST too, as the
   * `$admin` page's settings changes do). `Origin: null` (a sandboxed or local page) is foreign.
   */
  refusesStateChange(method: string, requestHeaders: ReadonlyMap<string, string>): boolean {
    if (!STATE_CHANGING_METHODS.has(method)) return false
    const origin = requestHeaders.get('origin')
    if (origin === undefined || this.allows(origin)) return false
    const host = requestHeaders.get('host')
    const originHost = /^https?:\/\/([^/]+)$/i.exec(origin.trim())?.[1]
    return host === undefined || originHost === undefined || originHost.toLowerCase() !== host.trim().toLowerCase()
  }

  /** The CORS part of a request: a preflight to answer now, or headers for its answer. */
  outcome(method: string, requestHeaders: ReadonlyMap<string, string>): CorsOutcome {
    const origin = requestHeaders.get('origin')
    if (!this.enabled || origin === undefined) return { preflight: false, headers: undefined }
    const allowed = this.allows(origin)
    if (method === 'OPTIONS' && requestHeaders.has('access-control-request-method')) {
      if (!allowed) return { preflight: true, status: 403, headers: { Vary: 'Origin', 'Content-Type': 'text/plain;charset=utf-8' } }
      return {
        preflight: true,
        status: 204,
        headers: {
          'Access-Control-Allow-Origin': origin,
          'Access-Control-Allow-Methods': ALLOWED_METHODS,
          'Access-Control-Allow-Headers': ALLOWED_HEADERS,
          'Access-Control-Max-Age': this.maxAge,
          Vary: 'Origin',
        },
      }
    }
    if (!allowed) return { preflight: false, headers: { Vary: 'Origin' } }
    return {
      preflight: false,
      headers: { 'Access-Control-Allow-Origin': origin, 'Access-Control-Expose-Headers': EXPOSED_HEADERS, Vary: 'Origin' },
    }
  }
}
