// Character classes of HTTP/1.1 syntax (RFC 9110 §5.6.2, §5.5) and the byte values the parsers name.

function table(predicate: (code: number) => boolean): Uint8Array {
  const result = new Uint8Array(256)
  for (let code = 0; code < 256; code++) result[code] = predicate(code) ? 1 : 0
  return result
}

/** tchar, as a lookup table: the bytes of a method, a header name or a parameter name. */
export const TOKEN_BYTE: Uint8Array = table(
  (code) =>
    (code >= 0x61 && code <= 0x7a) || (code >= 0x41 && code <= 0x5a) || (code >= 0x30 && code <= 0x39) ||
    "!#$%&'*+-.^_`|~".includes(String.fromCharCode(code)),
)

export const CARRIAGE_RETURN = 0x0d
export const LINE_FEED = 0x0a
export const SPACE = 0x20
export const HORIZONTAL_TAB = 0x09
export const HYPHEN = 0x2d

export function isBlankByte(code: number): boolean {
  return code === SPACE || code === HORIZONTAL_TAB
}

// Regular expressions run natively: faster here than loops over the characters.
const TOKEN_PATTERN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/
const CONTROL_CHARACTER = /[\x00-\x08\x0a-\x1f\x7f]/

/** True when the string is a non-empty HTTP token (a method, a header name). */
export function isToken(text: string): boolean {
  return TOKEN_PATTERN.test(text)
}

/**
 * True when the string holds no control character but horizontal tab. Refusing them keeps a
 * Content-ID, a header value or a URL from smuggling a line break into a response or a log.
 */
export function hasNoControlCharacters(text: string): boolean {
  return !CONTROL_CHARACTER.test(text)
}
