// `@odata.nextLink`: the request again, from the service root, with the skip token of the page's last
// row. `$skip` is dropped (the token already is past it) and `$top` counts down. The link keeps the way
// the client logged in, so that it works when followed as given: the token segment of `/api/t/<token>/v4/`
// (`request.linkRoot`) and the `token` parameter of the token flavour stay; a client that logged in by a
// header sends the header again. Context URLs and `Location` stay token-free (they name resources, they
// are not followed for more of the same answer); the request log never shows a token (redact-url.ts).
//
// `@odata.deltaLink` (change tracking, docs/change-tracking.md) is made the same way: the options that
// define the rows, and the `$deltatoken` of its position.
import type { ServiceRequest } from '../service-request.js'

const REPLACED = new Set(['$skip', '$skiptoken', '$top', '$deltatoken'])
/** What a delta link keeps of the request: the options its token is bound to, and the format. */
const DELTA_KEPT = new Set(['$filter', '$select', '$format'])

function linkTo(
  request: ServiceRequest,
  resourcePath: string,
  keep: (option: string) => boolean,
  added: readonly (readonly [string, string])[],
): string {
  const parts: string[] = []
  for (const [name, value] of request.query.system) {
    if (keep(name)) parts.push(`${name}=${encodeURIComponent(value)}`)
  }
  for (const [name, value] of request.query.custom) {
    if (name !== 'token' || request.flavour === 'token') parts.push(`${encodeURIComponent(name)}=${encodeURIComponent(value)}`)
  }
  for (const [name, value] of added) parts.push(`${name}=${value}`)
  return `${request.linkRoot ?? request.serviceRoot}${resourcePath}?${parts.join('&')}`
}

/** `deltaToken`: the first read of a tracked set carries its position to its last page (delta-token.ts). */
export function nextLink(
  request: ServiceRequest,
  resourcePath: string,
  skipToken: string,
  remainingTop: number | undefined,
  deltaToken?: string,
): string {
  const added: [string, string][] = []
  if (remainingTop !== undefined) added.push(['$top', String(remainingTop)])
  added.push(['$skiptoken', skipToken])
  if (deltaToken !== undefined) added.push(['$deltatoken', deltaToken])
  return linkTo(request, resourcePath, (name) => !REPLACED.has(name), added)
}

/** The link of a delta (or of its next page): the defining options and the token of the position. */
export function deltaLink(request: ServiceRequest, resourcePath: string, deltaToken: string): string {
  return linkTo(request, resourcePath, (name) => DELTA_KEPT.has(name), [['$deltatoken', deltaToken]])
}
