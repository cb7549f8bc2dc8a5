// Character classes for the lexer: one table lookup per ASCII character on the hot path; the Unicode
// categories of ABNF odataIdentifier (letters, as in the Cyrillic names of real configurations) are
// consulted only for characters above U+007F.

export const IDENTIFIER_START = 1 // ALPHA / "_"
export const IDENTIFIER_PART = 2 // ALPHA / "_" / DIGIT
export const DIGIT = 4
export const HEX_DIGIT = 8

export const ASCII_CLASS: Uint8Array = (() => {
  const table = new Uint8Array(128)
  for (let c = 0x30; c <= 0x39; c++) table[c] = IDENTIFIER_PART | DIGIT | HEX_DIGIT
  for (let c = 0x41; c <= 0x5a; c++) table[c] = IDENTIFIER_START | IDENTIFIER_PART
  for (let c = 0x61; c <= 0x7a; c++) table[c] = IDENTIFIER_START | IDENTIFIER_PART
  for (let c = 0x41; c <= 0x46; c++) table[c] |= HEX_DIGIT
  for (let c = 0x61; c <= 0x66; c++) table[c] |= HEX_DIGIT
  table[0x5f] = IDENTIFIER_START | IDENTIFIER_PART
  return table
})()

// ABNF odataIdentifier, comment on identifierLeadingCharacter / identifierCharacter: the full rule allows
// the Unicode categories L and Nl first, and L, Nl, Nd, Mn, Mc, Pc, Cf after.
const UNICODE_IDENTIFIER_START = /^[\p{L}\p{Nl}]$/u
const UNICODE_IDENTIFIER_PART = /^[\p{L}\p{Nl}\p{Nd}\p{Mn}\p{Mc}\p{Pc}\p{Cf}]$/u

export function isDigit(code: number): boolean {
  return code >= 0x30 && code <= 0x39
}

export function isHexDigit(code: number): boolean {
  return code < 128 && code >= 0 && (ASCII_CLASS[code] & HEX_DIGIT) !== 0
}

/** Code point (not code unit) tests for characters above U+007F. */
export function isUnicodeIdentifierStart(codePoint: number): boolean {
  return UNICODE_IDENTIFIER_START.test(String.fromCodePoint(codePoint))
}

export function isUnicodeIdentifierPart(codePoint: number): boolean {
  return UNICODE_IDENTIFIER_PART.test(String.fromCodePoint(codePoint))
}

/** Whether an identifier may start at `index` (false past the end). */
export function isIdentifierStartAt(text: string, index: number): boolean {
  if (index >= text.length) return false
  const code = text.charCodeAt(index)
  if (code < 128) return (ASCII_CLASS[code] & IDENTIFIER_START) !== 0
  return isUnicodeIdentifierStart(text.codePointAt(index) as number)
}

/** Whether an identifier may continue at `index` (false past the end). */
export function isIdentifierPartAt(text: string, index: number): boolean {
  if (index >= text.length) return false
  const code = text.charCodeAt(index)
  if (code < 128) return (ASCII_CLASS[code] & IDENTIFIER_PART) !== 0
  return isUnicodeIdentifierPart(text.codePointAt(index) as number)
}

/** Whether `count` digits start at `index`. */
export function digitsAt(text: string, index: number, count: number): boolean {
  if (index + count > text.length) return false
  for (let i = index; i < index + count; i++) if (!isDigit(text.charCodeAt(i))) return false
  return true
}
