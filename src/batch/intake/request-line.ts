// The first line of an embedded request: `<METHOD> <url> HTTP/1.1` (service.md §2.3).
//
// The HTTP version may be missing: the standard's own Example 101 writes
// `GET /service/Customers('ALFKI')` alone, and a tolerant reader costs nothing here.

import { isToken } from './http-chars.js'
import { batchMalformed } from './intake-errors.js'

export interface RequestLine {
  /** Upper-cased. */
  readonly method: string
  /** As written (clients may write non-ASCII names without percent-encoding; the head is UTF-8). */
  readonly url: string
}

const HTTP_VERSION = /^HTTP\/\d\.\d$/

/**
 * Parses a request line (control characters were already refused by the head reader). The parts are
 * separated by spaces (RFC 9112 §3); runs of spaces are tolerated.
 * @param part names the part in an error message.
 */
export function parseRequestLine(line: string, part: { describe(): string }): RequestLine {
  const methodEnd = line.indexOf(' ')
  const method = methodEnd === -1 ? line : line.slice(0, methodEnd)
  if (!isToken(method) || methodEnd === -1) {
    throw batchMalformed(`${part.describe()}: the request line "${line}" is not "<METHOD> <url> HTTP/1.1".`)
  }
  let urlStart = methodEnd + 1
  while (line.charCodeAt(urlStart) === 0x20) urlStart++
  let urlEnd = line.indexOf(' ', urlStart)
  if (urlEnd === -1) urlEnd = line.length
  if (urlEnd === urlStart) throw batchMalformed(`${part.describe()}: the request line has no URL.`)
  const url = line.slice(urlStart, urlEnd)
  if (url.includes('\t')) throw batchMalformed(`${part.describe()}: the URL of the request line holds a tab.`)
  const rest = line.slice(urlEnd).trim()
  if (rest !== '' && !HTTP_VERSION.test(rest)) {
    throw batchMalformed(`${part.describe()}: the request line ends with "${rest}" where "HTTP/1.1" was expected.`)
  }
  return { method: method.toUpperCase(), url }
}
