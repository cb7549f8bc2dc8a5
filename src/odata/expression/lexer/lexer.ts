// The lexer of the expression language: it works by index over the option text and keeps only the
// current token (kind, start, end and a few flags) — no token objects, no substrings while scanning.
// The parser asks for the next token and reads what it needs from the text; to look further ahead it
// takes a mark() and reset()s to it (the few places are bounded, so parsing stays linear).
//
// Whitespace (SP, HTAB: ABNF RWS/BWS after percent-decoding) is skipped but remembered in `spaceBefore`,
// because the grammar requires it in some places (`a eq b`) and forbids it in others (`Product/Code`).
//
// Literal shapes are recognised here (so that `2024-01-31` is one token, not a number and a minus);
// their fields are converted and range-checked by grammar/primitive-literal.ts.
import {
  ASCII_CLASS,
  DIGIT,
  IDENTIFIER_PART,
  IDENTIFIER_START,
  digitsAt,
  isDigit,
  isHexDigit,
  isIdentifierPartAt,
  isIdentifierStartAt,
  isUnicodeIdentifierPart,
  isUnicodeIdentifierStart,
} from './character-class.js'
import { Keyword, classifyKeyword } from './keyword.js'
import { TokenKind } from './token-kind.js'

/** How the lexer reports bad input; the parse state implements it with the option's target and code. */
export interface LexerErrors {
  syntaxError(position: number, description: string): never
  literalError(position: number, description: string): never
}

/** ABNF odataIdentifier = identifierLeadingCharacter *127identifierCharacter */
export const MAX_IDENTIFIER_LENGTH = 128

const SPACE = 0x20
const TAB = 0x09
const QUOTE = 0x27
const DOUBLE_QUOTE = 0x22
const DOT = 0x2e
const MINUS = 0x2d
const PLUS = 0x2b
const COLON = 0x3a

export class Lexer {
  kind: TokenKind = TokenKind.End
  /** Offset of the current token's first character. */
  start = 0
  /** Offset just past the current token. */
  end = 0
  /** Whether whitespace precedes the current token. */
  spaceBefore = false
  /** For an unqualified Name: the keyword it spells, else Keyword.None. */
  keyword: Keyword = Keyword.None
  /** For a Name or AtName: whether it is namespace-qualified (has a dot). */
  qualified = false
  /** For a PrefixedString: offset of the opening quote (the prefix is text[start, quote)). */
  quote = 0
  /** Tokens scanned so far, re-scans after reset() included: a measure of work for tests. */
  scanned = 0

  /** Where scanning continues. */
  private cursor = 0
  /** Where scanning of the current token began, whitespace included (what mark() returns). */
  private scanStart = 0

  constructor(
    readonly text: string,
    private readonly errors: LexerErrors,
  ) {}

  /** A position to come back to with reset(): the current token will be scanned again. */
  mark(): number {
    return this.scanStart
  }

  reset(mark: number): void {
    this.cursor = mark
    this.next()
  }

  /** Offset where the whitespace before the current token starts (the token's start if there is none). */
  get whitespaceStart(): number {
    return this.scanStart
  }

  /** The current token's text. Allocates: for names kept in the AST and for messages, not for decisions. */
  tokenText(): string {
    return this.text.slice(this.start, this.end)
  }

  /** Advances to the next token. */
  next(): void {
    this.scanned++
    const text = this.text
    const length = text.length
    let i = this.cursor
    this.scanStart = i
    while (i < length) {
      const c = text.charCodeAt(i)
      if (c !== SPACE && c !== TAB) break
      i++
    }
    this.spaceBefore = i !== this.scanStart
    this.start = i
    this.keyword = Keyword.None
    this.qualified = false
    if (i >= length) {
      this.finish(TokenKind.End, i)
      return
    }
    const c = text.charCodeAt(i)
    switch (c) {
      case 0x28:
        return this.finish(TokenKind.OpenParen, i + 1)
      case 0x29:
        return this.finish(TokenKind.CloseParen, i + 1)
      case 0x5b:
        return this.finish(TokenKind.OpenBracket, i + 1)
      case 0x5d:
        return this.finish(TokenKind.CloseBracket, i + 1)
      case 0x7b:
        return this.finish(TokenKind.OpenBrace, i + 1)
      case 0x7d:
        return this.finish(TokenKind.CloseBrace, i + 1)
      case 0x2c:
        return this.finish(TokenKind.Comma, i + 1)
      case COLON:
        return this.finish(TokenKind.Colon, i + 1)
      case 0x3b:
        return this.finish(TokenKind.Semicolon, i + 1)
      case 0x2f:
        return this.finish(TokenKind.Slash, i + 1)
      case 0x3d:
        return this.finish(TokenKind.Equals, i + 1)
      case 0x2a:
        return this.finish(TokenKind.Star, i + 1)
      case QUOTE:
        return this.finish(TokenKind.String, this.scanQuoted(i))
      case DOUBLE_QUOTE:
        return this.finish(TokenKind.JsonString, this.scanJsonString(i))
      case 0x24: // $
        return this.scanPrefixedName(i, TokenKind.DollarName, false)
      case 0x40: // @
        return this.scanPrefixedName(i, TokenKind.AtName, true)
      case MINUS:
        if (isDigit(text.charCodeAt(i + 1))) return this.scanNumber(i)
        // ABNF nanInfinity: "-INF" is one literal; any other minus is negateExpr.
        if (text.startsWith('INF', i + 1) && !isIdentifierPartAt(text, i + 4)) return this.finish(TokenKind.Double, i + 4)
        return this.finish(TokenKind.Minus, i + 1)
      case PLUS:
        // ABNF SIGN: a plus is only ever the sign of a number (or part of a date-time offset).
        if (isDigit(text.charCodeAt(i + 1))) return this.scanNumber(i)
        return this.errors.syntaxError(i, "unexpected character '+'")
    }
    if (c < 128) {
      const characterClass = ASCII_CLASS[c]
      // A bare GUID may start with a digit or a letter a-f, so it is tried before both.
      if (isHexDigit(c) && isGuidAt(text, i)) {
        this.finish(TokenKind.Guid, i + 36)
        return this.checkLiteralEnd(i)
      }
      if ((characterClass & DIGIT) !== 0) return this.scanNumber(i)
      if ((characterClass & IDENTIFIER_START) !== 0) return this.scanName(i)
    } else if (isUnicodeIdentifierStart(text.codePointAt(i) as number)) {
      return this.scanName(i)
    }
    return this.errors.syntaxError(i, `unexpected character ${describeCharacter(text, i)}`)
  }

  private finish(kind: TokenKind, end: number): void {
    this.kind = kind
    this.end = end
    this.cursor = end
  }

  /** Past the end of one identifier part starting at `i`, which must be an identifier start. */
  private scanIdentifierPart(i: number): number {
    const text = this.text
    const length = text.length
    const partStart = i
    i += text.charCodeAt(i) < 128 ? 1 : codePointLength(text, i)
    while (i < length) {
      const c = text.charCodeAt(i)
      if (c < 128) {
        if ((ASCII_CLASS[c] & IDENTIFIER_PART) === 0) break
        i++
      } else {
        const codePoint = text.codePointAt(i) as number
        if (!isUnicodeIdentifierPart(codePoint)) break
        i += codePoint > 0xffff ? 2 : 1
      }
    }
    if (i - partStart > MAX_IDENTIFIER_LENGTH) {
      this.errors.syntaxError(partStart, `a name may have at most ${MAX_IDENTIFIER_LENGTH} characters`)
    }
    return i
  }

  /** A (possibly namespace-qualified) identifier, or a prefixed literal such as `guid'…'`. */
  private scanName(start: number): void {
    const text = this.text
    let i = this.scanIdentifierPart(start)
    let qualified = false
    // ABNF namespace = namespacePart *( "." namespacePart ): a dot continues the name only before another part.
    while (text.charCodeAt(i) === DOT && isIdentifierStartAt(text, i + 1)) {
      qualified = true
      i = this.scanIdentifierPart(i + 1)
    }
    if (text.charCodeAt(i) === QUOTE && (qualified || isLiteralPrefix(text, start, i))) {
      this.quote = i
      this.finish(TokenKind.PrefixedString, this.scanQuoted(i))
      this.qualified = qualified
      return
    }
    this.finish(TokenKind.Name, i)
    this.qualified = qualified
    if (!qualified) this.keyword = classifyKeyword(text, start, i - start)
  }

  /** `$name` (system names) or `@name` (aliases, annotations). */
  private scanPrefixedName(start: number, kind: TokenKind, allowQualified: boolean): void {
    const text = this.text
    if (!isIdentifierStartAt(text, start + 1)) {
      return this.errors.syntaxError(start, `unexpected character ${describeCharacter(text, start)}`)
    }
    let i = this.scanIdentifierPart(start + 1)
    let qualified = false
    while (allowQualified && text.charCodeAt(i) === DOT && isIdentifierStartAt(text, i + 1)) {
      qualified = true
      i = this.scanIdentifierPart(i + 1)
    }
    this.finish(kind, i)
    this.qualified = qualified
  }

  /** Past the closing quote of a `'…'` string starting at `start`; `''` stands for one quote. */
  private scanQuoted(start: number): number {
    const text = this.text
    let i = start + 1
    for (;;) {
      const quote = text.indexOf("'", i)
      if (quote < 0) return this.errors.literalError(start, 'the string has no closing quote')
      if (text.charCodeAt(quote + 1) !== QUOTE) return quote + 1
      i = quote + 2
    }
  }

  /** Past the closing double quote of a JSON string (ABNF stringInUrl). */
  private scanJsonString(start: number): number {
    const text = this.text
    const length = text.length
    let i = start + 1
    while (i < length) {
      const c = text.charCodeAt(i)
      if (c === DOUBLE_QUOTE) return i + 1
      if (c === 0x5c) {
        const escaped = text.charCodeAt(i + 1)
        if (escaped === 0x75 /* u */) {
          for (let k = i + 2; k < i + 6; k++) {
            if (!isHexDigit(text.charCodeAt(k))) return this.errors.literalError(i, 'a \\u escape needs four hexadecimal digits')
          }
          i += 6
          continue
        }
        // ABNF charInJSON escapes: \" \\ \/ \b \f \n \r \t
        if (
          escaped !== DOUBLE_QUOTE &&
          escaped !== 0x5c &&
          escaped !== 0x2f &&
          escaped !== 0x62 &&
          escaped !== 0x66 &&
          escaped !== 0x6e &&
          escaped !== 0x72 &&
          escaped !== 0x74
        ) {
          return this.errors.literalError(i, 'unknown escape in a JSON string')
        }
        i += 2
        continue
      }
      i++
    }
    return this.errors.literalError(start, 'the JSON string has no closing double quote')
  }

  /**
   * A number (ABNF decimalLiteral: [SIGN] 1*DIGIT ["." 1*DIGIT] ["e" [SIGN] 1*DIGIT]), or, for unsigned
   * digits, a bare date, date-time or time of day, told apart by the character after the first digits.
   */
  private scanNumber(start: number): void {
    const text = this.text
    const signed = !isDigit(text.charCodeAt(start))
    let i = signed ? start + 1 : start
    const digitsStart = i
    while (isDigit(text.charCodeAt(i))) i++
    const run = i - digitsStart
    const after = text.charCodeAt(i)
    if (!signed && run === 4 && after === MINUS) return this.scanDate(start)
    if (!signed && run === 2 && after === COLON) {
      this.finish(TokenKind.TimeOfDay, this.scanTimeOfDay(start, start))
      return this.checkLiteralEnd(start)
    }
    let kind: TokenKind = TokenKind.Integer
    if (after === DOT) {
      if (!isDigit(text.charCodeAt(i + 1))) return this.errors.literalError(start, 'a digit must follow the decimal point')
      i += 2
      while (isDigit(text.charCodeAt(i))) i++
      kind = TokenKind.Decimal
    }
    const exponent = text.charCodeAt(i)
    if (exponent === 0x65 || exponent === 0x45) {
      let k = i + 1
      const sign = text.charCodeAt(k)
      if (sign === PLUS || sign === MINUS) k++
      if (!isDigit(text.charCodeAt(k))) return this.errors.literalError(start, 'the exponent has no digits')
      while (isDigit(text.charCodeAt(k))) k++
      i = k
      kind = TokenKind.Double
    }
    this.finish(kind, i)
    this.checkLiteralEnd(start)
  }

  /** ABNF date [ "T" timeOfDayLiteral [ "Z" / SIGN hour ":" minute ] ]; the offset is optional here (decisions.md §2). */
  private scanDate(start: number): void {
    const text = this.text
    if (!(digitsAt(text, start + 5, 2) && text.charCodeAt(start + 7) === MINUS && digitsAt(text, start + 8, 2))) {
      return this.errors.literalError(start, 'a date is written YYYY-MM-DD')
    }
    let i = start + 10
    const t = text.charCodeAt(i)
    if (t !== 0x54 && t !== 0x74) {
      this.finish(TokenKind.Date, i)
      return this.checkLiteralEnd(start)
    }
    i = this.scanTimeOfDay(i + 1, start)
    i = scanOffset(text, i)
    if (i < 0) return this.errors.literalError(start, 'a time zone offset is written Z, +HH:MM or -HH:MM')
    this.finish(TokenKind.DateTimeOffset, i)
    this.checkLiteralEnd(start)
  }

  /** ABNF timeOfDayLiteral = hour ":" minute [ ":" second [ "." fractionalSeconds ] ]; returns its end. */
  private scanTimeOfDay(i: number, literalStart: number): number {
    const end = scanTimeOfDayShape(this.text, i)
    if (end < 0) return this.errors.literalError(literalStart, 'a time is written HH:MM[:SS[.fffffff]]')
    return end
  }

  /** A literal must not run on into a name, a number or another literal (`12abc`, `1.2.3`, `2024-1-1`). */
  private checkLiteralEnd(start: number): void {
    const text = this.text
    const c = text.charCodeAt(this.end)
    if (c === DOT || c === MINUS || c === COLON || c === QUOTE || isIdentifierPartAt(text, this.end)) {
      this.errors.literalError(start, `malformed literal ${describeCharacters(text, start, this.end + 1)}`)
    }
  }
}

/** ABNF guid = 8HEXDIG "-" 4HEXDIG "-" 4HEXDIG "-" 4HEXDIG "-" 12HEXDIG, starting at `i`. */
export function isGuidAt(text: string, i: number): boolean {
  if (i + 36 > text.length || text.charCodeAt(i + 8) !== MINUS) return false
  for (let k = 0; k < 36; k++) {
    const c = text.charCodeAt(i + k)
    if (k === 8 || k === 13 || k === 18 || k === 23) {
      if (c !== MINUS) return false
    } else if (!isHexDigit(c)) {
      return false
    }
  }
  return true
}

/** End of `HH:MM[:SS[.f+]]` starting at `i`, or -1 when the shape is wrong. */
export function scanTimeOfDayShape(text: string, i: number): number {
  if (!(digitsAt(text, i, 2) && text.charCodeAt(i + 2) === COLON && digitsAt(text, i + 3, 2))) return -1
  i += 5
  if (text.charCodeAt(i) !== COLON) return i
  if (!digitsAt(text, i + 1, 2)) return -1
  i += 3
  if (text.charCodeAt(i) !== DOT) return i
  if (!isDigit(text.charCodeAt(i + 1))) return -1
  i += 2
  while (isDigit(text.charCodeAt(i))) i++
  return i
}

/** End of an optional `Z`, `+HH:MM` or `-HH:MM` at `i` (i itself when there is none), or -1 when malformed. */
export function scanOffset(text: string, i: number): number {
  const c = text.charCodeAt(i)
  if (c === 0x5a || c === 0x7a) return i + 1
  if (c !== PLUS && c !== MINUS) return i
  if (!(digitsAt(text, i + 1, 2) && text.charCodeAt(i + 3) === COLON && digitsAt(text, i + 4, 2))) return -1
  return i + 6
}

// Prefixes of quoted literals: OData 4.01 (duration, binary, geography, geometry) and the reference
// system's (guid, datetime, datetimeoffset, time), case-sensitive. Any namespace-qualified name before a
// quote is an enumeration literal (ABNF enumLiteral).
const LITERAL_PREFIXES = ['guid', 'datetime', 'datetimeoffset', 'duration', 'time', 'binary', 'geography', 'geometry']

function isLiteralPrefix(text: string, start: number, end: number): boolean {
  const length = end - start
  for (const prefix of LITERAL_PREFIXES) {
    if (prefix.length === length && text.startsWith(prefix, start)) return true
  }
  return false
}

function codePointLength(text: string, i: number): number {
  return (text.codePointAt(i) as number) > 0xffff ? 2 : 1
}

function describeCharacter(text: string, i: number): string {
  return JSON.stringify(String.fromCodePoint(text.codePointAt(i) as number))
}

function describeCharacters(text: string, start: number, end: number): string {
  return JSON.stringify(text.slice(start, Math.min(end, start + 40)))
}
