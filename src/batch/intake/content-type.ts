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
  let position = 0
  const length = value.length
  const skipBlanks = (): void => {
    while (position < length && isBlankByte(value.charCodeAt(position))) position++
  }
  const readToken = (): string => {
    const start = position
    while (position < length && isTokenChar(value.charCodeAt(position))) position++
    return value.slice(start, position)
  }

  skipBlanks()
  const type = readToken()
  if (type === '' || value[position] !== '/') return undefined
  position++
  const subtype = readToken()
  if (subtype === '') return undefined
  let boundary: string | undefined
  for (;;) {
    skipBlanks()
    if (position === length) break
    if (value[position] !== ';') return undefined
    position++
    skipBlanks()
    if (position === length) break // a trailing ";" is common and harmless
    const name = readToken().toLowerCase()
    if (name === '' || value[position] !== '=') return undefined
    position++
    let parameterValue: string
    if (value[position] === '"') {
      position++
      parameterValue = ''
      for (;;) {
        if (position === length) return undefined // unterminated quoted-string
        const char = value[position++]
        if (char === '"') break
        parameterValue += char === '\\' && position < length ? value[position++] : char
      }
    } else {
      parameterValue = readToken()
      if (parameterValue === '') return undefined
    }
    if (name === 'boundary') {
      if (boundary !== undefined) return undefined // two boundaries: which one would the sender mean?
      boundary = parameterValue
    }
  }
  return { mediaType: `${type}/${subtype}`.toLowerCase(), boundary }
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
