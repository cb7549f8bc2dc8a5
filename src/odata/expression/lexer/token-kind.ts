// The kinds of token the lexer produces. Numbers rather than strings: the parser compares them on every
// token. Deliberately typed as plain `number`, not as literal types: the parser reads `lexer.kind`, calls
// `lexer.next()` and reads it again, and TypeScript would keep the first comparison's narrowing across
// the call (it assumes calls do not change properties).

export const TokenKind = {
  End: 0,
  /** odataIdentifier, possibly namespace-qualified (`Edm.String`, `StandardODATA.Catalog_Products`). */
  Name: 1,
  /** `$it`, `$this`, `$count`, `$filter`, … */
  DollarName: 2,
  /** `@alias` or `@Namespace.Term`. */
  AtName: 3,
  Integer: 4,
  /** Digits with a fractional part, no exponent. */
  Decimal: 5,
  /** A number with an exponent, or `-INF` (plain `INF` and `NaN` are Names). */
  Double: 6,
  /** `'…'` with `''` for a quote. */
  String: 7,
  /** `"…"` with JSON escapes (in JSON arrays). */
  JsonString: 8,
  Guid: 9,
  Date: 10,
  DateTimeOffset: 11,
  TimeOfDay: 12,
  /** `prefix'…'`: `guid'…'`, `datetime'…'`, `duration'…'`, `time'…'`, `binary'…'`, `Namespace.Enum'…'`. */
  PrefixedString: 13,
  OpenParen: 14,
  CloseParen: 15,
  OpenBracket: 16,
  CloseBracket: 17,
  OpenBrace: 18,
  CloseBrace: 19,
  Comma: 20,
  Colon: 21,
  Semicolon: 22,
  Slash: 23,
  Equals: 24,
  Star: 25,
  Minus: 26,
} satisfies Record<string, number>

export type TokenKind = number

/** Whether a token of this kind is a primitive literal by itself (Names such as `true` aside). */
export function isLiteralToken(kind: TokenKind): boolean {
  return kind >= TokenKind.Integer && kind <= TokenKind.PrefixedString && kind !== TokenKind.JsonString
}
