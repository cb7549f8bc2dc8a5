// The first line of an embedded request: `<METHOD> <url> HTTP/1.1` (service.md §2.3), checked over
// its bytes, where it lies; the method and URL strings are made only when an operation is read
// (multipart-operation.ts).
//
// The HTTP version is required, as service.md §2.3 writes the line (the standard's own Example 101
// writes `GET /service/Customers('ALFKI')` alone; such a line is refused). A line whose only word after
// the method is the version has no URL.

import { HORIZONTAL_TAB, SPACE, TOKEN_BYTE, hasSpaceOrControl, isBlankByte } from '../http-chars.js'

/** Where the method and URL of a request line lie (positions in the buffer that holds it). */
export interface RequestLineRanges {
  methodEnd: number
  urlStart: number
  urlEnd: number
}

const HTTP_VERSION = /^HTTP\/\d\.\d$/
const DIGIT_0 = 0x30
const DIGIT_9 = 0x39
/** `HTTP/` */
const HTTP_SLASH = [0x48, 0x54, 0x54, 0x50, 0x2f]

/**
 * Checks the request line `data[start, end)` (without its line break; control characters other than tab
 * are refused by the head scanner; `words` is a DataView of `data`) and records where its method and
 * URL lie. The parts are separated by one space each (RFC 9112 §3): a run of spaces is refused, since
 * parsers that collapse it and parsers that read an empty word from it see different requests. Returns
 * the problem, for a message, or undefined when the line is well formed.
 */
export function checkRequestLine(data: Buffer, words: DataView, start: number, end: number, ranges: RequestLineRanges): string | undefined {
  let methodEnd = start
  while (methodEnd < end && TOKEN_BYTE[data[methodEnd]] === 1) methodEnd++
  if (methodEnd === start || methodEnd === end || data[methodEnd] !== SPACE) {
    return `the request line "${data.toString('utf8', start, end)}" is not "<METHOD> <url> HTTP/1.1"`
  }
  const urlStart = methodEnd + 1
  if (isBlankByte(data[urlStart])) return 'the request line has more than one space after its method'
  let urlEnd = urlStart
  let tab = false
  for (; urlEnd < end; urlEnd++) {
    // Words of URL characters are passed four bytes at a time.
    while (urlEnd + 4 <= end && !hasSpaceOrControl(words.getInt32(urlEnd, true))) urlEnd += 4
    if (urlEnd === end) break
    const code = data[urlEnd]
    if (code === SPACE) break
    if (code === HORIZONTAL_TAB) tab = true
  }
  if (urlEnd === urlStart) return 'the request line has no URL'
  if (tab) return 'the URL of the request line holds a tab'
  if (urlEnd + 1 < end && isBlankByte(data[urlEnd + 1])) return 'the request line has more than one space after its URL'
  ranges.methodEnd = methodEnd
  ranges.urlStart = urlStart
  ranges.urlEnd = urlEnd
  return versionProblem(data, start, urlStart, urlEnd, end)
}

/** What follows the URL `data[urlStart, urlEnd)`: `HTTP/d.d`, blanks around it allowed. */
function versionProblem(data: Buffer, lineStart: number, urlStart: number, urlEnd: number, end: number): string | undefined {
  let restStart = urlEnd
  let restEnd = end
  while (restStart < restEnd && isBlankByte(data[restStart])) restStart++
  while (restEnd > restStart && isBlankByte(data[restEnd - 1])) restEnd--
  if (restStart < restEnd && isHttpVersion(data, restStart, restEnd)) return undefined
  // Anything else is decoded and read as the string it was before: String.prototype.trim also removes
  // Unicode blanks such as a no-break space, which a sender may have written after the version.
  const rest = data.toString('utf8', urlEnd, end).trim()
  if (HTTP_VERSION.test(rest)) return undefined
  if (rest !== '') return `the request line ends with "${rest}" where "HTTP/1.1" was expected`
  // `GET  HTTP/1.1`: the version stands where the URL should.
  if (HTTP_VERSION.test(data.toString('utf8', urlStart, urlEnd))) return 'the request line has no URL'
  return `the request line "${data.toString('utf8', lineStart, end)}" has no HTTP version ("<METHOD> <url> HTTP/1.1")`
}

function isHttpVersion(data: Buffer, start: number, end: number): boolean {
  if (end - start !== 8) return false
  for (let index = 0; index < HTTP_SLASH.length; index++) if (data[start + index] !== HTTP_SLASH[index]) return false
  return isDigit(data[start + 5]) && data[start + 6] === 0x2e && isDigit(data[start + 7])
}

function isDigit(code: number): boolean {
  return code >= DIGIT_0 && code <= DIGIT_9
}
