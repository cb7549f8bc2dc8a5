// Reading a Content-Type value: the media type and the `boundary` parameter, for the batch request
// itself and for a change-set part (`multipart/mixed; boundary=…`, quoted or not).

import { TOKEN_BYTE, isBlankByte } from './http-chars.js'
import { batchMalformed } from './intake-errors.js'

export interface ContentType {
  /** Lower-cased `type/subtype`, blanks removed. */
  readonly mediaType: string
  /** The `boundary` parameter, unquoted, or undefined when absent. */
  readonly boundary: string | undefined
}

const isTokenChar = (code: number): boolean => code <= 0xff && TOKEN_BYTE[code] === 1

/**
 * Parses `type/subtype *( OWS ";" OWS name=value )` (RFC 9110 §8.3). Parameters other than
 * `boundary` are skipped but must be well formed. Returns undefined for anything malformed.
 */
export function parseContentType(value: string): ContentType | undefined {
  const length = value.length
  let position = skipBlanks(value, 0)
  const typeEnd = tokenEnd(value, position)
  if (typeEnd === position || value.charCodeAt(typeEnd) !== SLASH) return undefined
  const subtypeEnd = tokenEnd(value, typeEnd + 1)
  if (subtypeEnd === typeEnd + 1) return undefined
  const mediaType = value.slice(position, subtypeEnd).toLowerCase()
  position = subtypeEnd
  let boundary: string | undefined
  for (;;) {
    position = skipBlanks(value, position)
    if (position === length) break
    if (value.charCodeAt(position) !== SEMICOLON) return undefined
    position = skipBlanks(value, position + 1)
    if (position === length) break // a trailing ";" is common and harmless
    const nameEnd = tokenEnd(value, position)
    if (nameEnd === position || value.charCodeAt(nameEnd) !== EQUALS) return undefined
    const name = value.slice(position, nameEnd).toLowerCase()
    position = nameEnd + 1
    let parameterValue: string
    if (value.charCodeAt(position) === QUOTE) {
      position++
      parameterValue = ''
      for (;;) {
        if (position === length) return undefined // unterminated quoted-string
        const char = value[position++]
        if (char === '"') break
        parameterValue += char === '\\' && position < length ? value[position++] : char
      }
    } else {
      const valueEnd = tokenEnd(value, position)
      if (valueEnd === position) return undefined
      parameterValue = value.slice(position, valueEnd)
      position = valueEnd
    }
    if (name === 'boundary') {
      if (boundary !== undefined) return undefined // two boundaries: which one would the sender mean?
      boundary = parameterValue
    }
  }
  return { mediaType, boundary }
}

const SLASH = 0x2f
const SEMICOLON = 0x3b
const EQUALS = 0x3d
const QUOTE = 0x22

function skipBlanks(value: string, position: number): number {
  while (position < value.length && isBlankByte(value.charCodeAt(position))) position++
  return position
}

function tokenEnd(value: string, position: number): number {
  while (position < value.length && isTokenChar(value.charCodeAt(position))) position++
  return position
}

// RFC 2046 §5.1.1: bchars. None of them is CR or LF, which the delimiter search relies on: a needle
// `\n--boundary` holds exactly one line feed, at its start.
const BOUNDARY_PATTERN = /^[0-9A-Za-z'()+_,\-./:=? ]{0,69}[0-9A-Za-z'()+_,\-./:=?]$/

export function isValidBoundary(boundary: string): boolean {
  return BOUNDARY_PATTERN.test(boundary)
}

/** The boundary of a `multipart/mixed` batch or change set; BatchMalformed when missing or invalid. */
export function boundaryFromContentType(contentTypeValue: string): string {
  const contentType = parseContentType(contentTypeValue)
  if (contentType === undefined) throw batchMalformed(`The Content-Type "${contentTypeValue}" cannot be parsed.`)
  return boundaryOf(contentType, contentTypeValue)
}

export function boundaryOf(contentType: ContentType, written: string): string {
  if (contentType.boundary === undefined) throw batchMalformed(`The Content-Type "${written}" has no boundary parameter.`)
  if (!isValidBoundary(contentType.boundary)) {
    throw batchMalformed(`The boundary "${contentType.boundary}" is not 1 to 70 characters allowed by RFC 2046.`)
  }
  return contentType.boundary
}
