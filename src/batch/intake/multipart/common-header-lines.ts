// Header lines that every OData client writes in a multipart batch, recognised whole.
//
// A part head is nearly always `Content-Type: application/http` and `Content-Transfer-Encoding:
// binary`, and most embedded requests with a body say `Content-Type: application/json`. Comparing such
// a line with its known text, four bytes at a time, proves at once everything the head scanner would
// check byte by byte (a token name, its colon, no control character) and tells which header it is.
// Any other spelling (another case, other blanks) is simply read the general way.

import { CARRIAGE_RETURN, LINE_FEED } from '../http-chars.js'

/** The headers the head scanner records. */
export const enum FieldName {
  /** Not known yet: compare the name. */
  Unknown,
  ContentType,
  ContentId,
  Other,
}

export interface CommonHeaderLine {
  /** The line's length without its line break. */
  readonly length: number
  /** Offset of the colon after the name. */
  readonly colon: number
  /** Offset of the value (after the colon and one space). */
  readonly value: number
  readonly name: FieldName
  /** The text as little-endian 32-bit words, then its last bytes. */
  readonly words: Int32Array
  readonly tail: Buffer
  readonly text: string
}

function knownLine(text: string, name: FieldName): CommonHeaderLine {
  const bytes = Buffer.from(text, 'latin1')
  const wordCount = Math.floor(bytes.length / 4)
  const words = new Int32Array(wordCount)
  for (let index = 0; index < wordCount; index++) words[index] = bytes.readInt32LE(index * 4)
  const colon = text.indexOf(':')
  return { length: bytes.length, colon, value: colon + 2, name, words, tail: bytes.subarray(wordCount * 4), text }
}

const KNOWN_LINES: readonly CommonHeaderLine[] = [
  knownLine('Content-Type: application/http', FieldName.ContentType),
  knownLine('Content-Transfer-Encoding: binary', FieldName.Other),
  knownLine('Content-Type: application/json', FieldName.ContentType),
]

/** `Cont`, the first word of every known line. */
const FIRST_WORD = KNOWN_LINES[0].words[0]

/**
 * The known line at `data[start, …)`, followed by its line break (LF or CRLF) before `end`, or
 * undefined. `words` is a DataView of `data`.
 */
export function commonHeaderLineAt(data: Buffer, words: DataView, start: number, end: number): CommonHeaderLine | undefined {
  if (start + 4 > end || words.getInt32(start, true) !== FIRST_WORD) return undefined
  for (const line of KNOWN_LINES) {
    const lineEnd = start + line.length
    if (lineEnd >= end) continue
    const lineWords = line.words
    let index = 1
    while (index < lineWords.length && words.getInt32(start + index * 4, true) === lineWords[index]) index++
    if (index < lineWords.length) continue
    const tail = line.tail
    const tailStart = lineEnd - tail.length
    index = 0
    while (index < tail.length && data[tailStart + index] === tail[index]) index++
    if (index < tail.length) continue
    const next = data[lineEnd]
    if (next === LINE_FEED || (next === CARRIAGE_RETURN && lineEnd + 1 < end && data[lineEnd + 1] === LINE_FEED)) return line
  }
  return undefined
}
