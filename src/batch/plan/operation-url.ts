// Where an operation of a batch points (service.md §4.4 rule 1, decisions.md §7). Accepted forms:
//   relative to the service root         Catalog_Products(…)   or, as some clients write it, /Catalog_Products(…)
//   host-root-relative                   /api/v4/Catalog_Products(…)
//   absolute, same host                  http://host/api/v4/Catalog_Products(…)
//   a reference to an earlier operation  $1, $1/Post, $1/Goods
// Refused with 400 UnsafeOperationUrl, for that operation only: a `.` or `..` segment in any spelling
// (`%2e`, `%2E%2E`, mixed), another host, another service root (the other flavour included), whitespace or a
// control character at either end, userinfo in any spelling (`http://u:p@h`, `http:\\u:p@h`, `http:u:p@h`,
// `//u:p@h`, `\\u:p@h`): the batch's own credentials are the ones that count, and a password has no place here.
import { ODataError } from '../../errors.js'
import { redactUrl, startsWithUserinfo } from '../../log/redact-url.js'
import { hasDotSegment } from '../../odata/dot-segment.js'

export interface OperationUrlContext {
  /** The batch request's Host header (compared case-insensitively). */
  readonly host: string
  /** Paths that are this batch's own service root (`/api/v4/`, and `/api/t/<token>/v4/` when used). */
  readonly ownRoots: readonly string[]
  /** Mount prefixes of every service root of this process, to tell "another root" from "relative". */
  readonly knownMounts: readonly string[]
}

export type OperationTarget =
  /** `rest` is the still-encoded path after the service root; `query` the raw query string without `?`. */
  | { readonly kind: 'path'; readonly rest: string; readonly query: string }
  /** `$<id>` at the start: `rest` is what follows the id (`/Post`, `/Goods`, or ''). */
  | { readonly kind: 'reference'; readonly id: string; readonly rest: string; readonly query: string }

function unsafe(url: string, why: string): ODataError {
  // The message is answered and may be logged: no credential in it.
  const redacted = redactUrl(url)
  const shown = redacted.length > 200 ? `${redacted.slice(0, 200)}…` : redacted
  return new ODataError('UnsafeOperationUrl', `The operation URL ${JSON.stringify(shown)} ${why}`)
}

function splitQuery(url: string): [string, string] {
  const question = url.indexOf('?')
  return question < 0 ? [url, ''] : [url.slice(0, question), url.slice(question + 1)]
}

/** Whitespace or a control character (a tab, U+00A0, U+FEFF, …) at either end. */
const PADDED = /^[\s\p{C}]|[\s\p{C}]$/u

export function resolveOperationUrl(url: string, context: OperationUrlContext): OperationTarget {
  // A URL is never padded: a padded one would run while its other readers (the request log's redaction,
  // a proxy's rules) read it differently from the service.
  if (PADDED.test(url)) throw unsafe(url, 'starts or ends with whitespace')
  const [rawPath, query] = splitQuery(url)
  if (hasDotSegment(rawPath)) throw unsafe(url, 'has a dot segment')
  if (startsWithUserinfo(url)) throw unsafe(url, 'carries credentials (userinfo)')

  if (rawPath.startsWith('$') && !rawPath.startsWith('$metadata') && !rawPath.startsWith('$batch')) {
    const slash = rawPath.indexOf('/')
    const id = slash < 0 ? rawPath.slice(1) : rawPath.slice(1, slash)
    return { kind: 'reference', id, rest: slash < 0 ? '' : rawPath.slice(slash), query }
  }

  let path = rawPath
  const absolute = /^([a-z][a-z0-9+.-]*):\/\/([^/?#]*)(.*)$/i.exec(rawPath)
  if (absolute) {
    const scheme = absolute[1]!.toLowerCase()
    if (scheme !== 'http' && scheme !== 'https') throw unsafe(url, 'is not an http URL')
    const authority = absolute[2]!.replace(/^[^@]*@/, '')
    if (authority.toLowerCase() !== context.host.toLowerCase()) throw unsafe(url, `names another host than ${context.host}`)
    path = absolute[3] || '/'
  } else if (!path.startsWith('/')) {
    return { kind: 'path', rest: path, query }
  }

  // A path from the host root: it must be under this batch's own service root.
  for (const root of context.ownRoots) {
    if (path.startsWith(root)) return { kind: 'path', rest: path.slice(root.length), query }
    if (path === root.slice(0, -1)) return { kind: 'path', rest: '', query }
  }
  if (absolute || context.knownMounts.some((mount) => path === mount || path.startsWith(`${mount}/`))) {
    throw unsafe(url, 'is under another service root')
  }
  // A leading slash without any root: relative to the service root, as several clients send it.
  return { kind: 'path', rest: path.slice(1), query }
}
