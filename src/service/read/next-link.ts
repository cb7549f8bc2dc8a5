// `@odata.nextLink`: the request again, from the service root, with the skip token of the page's last
// row. `$skip` is dropped (the token already is past it) and `$top` counts down. The link keeps the way
// the client logged in, so that it works when followed as given: the token segment of `/api/t/<token>/v4/`
// (`request.linkRoot`) and the `token` parameter of the token flavour stay; a client that logged in by a
// header sends the header again. Context URLs and `Location` stay token-free (they name resources, they
// are not followed for more of the same answer); the request log never shows a token (redact-url.ts).
import type { ServiceRequest } from '../service-request.js'

const REPLACED = new Set(['$skip', '$skiptoken', '$top'])

export function nextLink(request: ServiceRequest, resourcePath: string, skipToken: string, remainingTop: number | undefined): string {
  const parts: string[] = []
  for (const [name, value] of request.query.system) {
    if (!REPLACED.has(name)) parts.push(`${name}=${encodeURIComponent(value)}`)
  }
  for (const [name, value] of request.query.custom) {
    if (name !== 'token' || request.flavour === 'token') parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
  }
  if (remainingTop !== undefined) parts.push(`$top=${remainingTop}`)
  parts.push(`$skiptoken=${skipToken}`)
  return `${request.linkRoot ?? request.serviceRoot}${resourcePath}?${parts.join('&')}`
}
