// Character classes of HTTP/1.1 syntax (RFC 9110 §5.6.2, §5.5) and the byte values the parsers name.

function table(predicate: (code: number) => boolean): Uint8Array {
  const result = new Uint8Array(256)
  for (let code = 0; code < 256; code++) result[code] = predicate(code) ? 1 : 0
  return result
}

/** tchar, as a lookup table: the bytes of a method, a header name or a parameter name. */
export const TOKEN_BYTE: Uint8Array = table(
  (code) =>
    (code >= 0x61 && code <= 0x7a) ||
    (code >= 0x41 && code <= 0x5a) ||
    (code >= 0x30 && code <= 0x39) ||
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

// Four bytes at a time: a head is mostly printable text, read here as 32-bit words (DataView.getInt32)
// and tested with the carry tricks of "Bit Twiddling Hacks" (hasless, haszero), which tell exactly
// whether some byte of the word is below a value or equal to one. A word that passes needs no look at
// its bytes; only a word that fails is read byte by byte.
const HIGH_BITS = 0x80808080 | 0

/** Whether a byte of `word` is a control character (below 0x20) or DEL (0x7f). */
export function hasControlOrDelete(word: number): boolean {
  // A byte equal to DEL is a zero byte of `word ^ 0x7f7f7f7f`.
  const deletesZero = word ^ 0x7f7f7f7f
  return ((((word - 0x20202020) & ~word) | ((deletesZero - 0x01010101) & ~deletesZero)) & HIGH_BITS) !== 0
}

/** Whether a byte of `word` is a space or below it (a control character, tab included). */
export function hasSpaceOrControl(word: number): boolean {
  return ((word - 0x21212121) & ~word & HIGH_BITS) !== 0
}
