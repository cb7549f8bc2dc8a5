// `@odata.nextLink`: the request again, from the service root, with the skip token of the page's last
// row. `$skip` is dropped (the token already is past it) and `$top` counts down. The token of the
// token-path flavour is left out, as in context URLs: links must not spread credentials, and a client
// following them authenticates as it did for the first page (header, or the token again).
import type { ServiceRequest } from '../service-request.js'

const REPLACED = new Set(['$skip', '$skiptoken', '$top'])

export function nextLink(request: ServiceRequest, resourcePath: string, skipToken: string, remainingTop: number | undefined): string {
  const parts: string[] = []
  for (const [name, value] of request.query.system) {
    if (!REPLACED.has(name)) parts.push(`${name}=${encodeURIComponent(value)}`)
  }
  for (const [name, value] of request.query.custom) {
    if (name !== 'token') parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
  }
  if (remainingTop !== undefined) parts.push(`$top=${remainingTop}`)
  parts.push(`$skiptoken=${skipToken}`)
  return `${request.serviceRoot}${resourcePath}?${parts.join('&')}`
}
