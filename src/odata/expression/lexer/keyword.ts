// The words with a meaning of their own in the expression language. The lexer classifies every
// unqualified Name once, so that the parser compares small integers instead of strings. Keywords are
// case-sensitive: `eq`, not `EQ` (a decision of this service; see the corpus allow-list in the tests).

export const Keyword = {
  None: 0,
  And: 1,
  Or: 2,
  Not: 3,
  Eq: 4,
  Ne: 5,
  Gt: 6,
  Ge: 7,
  Lt: 8,
  Le: 9,
  Has: 10,
  In: 11,
  Add: 12,
  Sub: 13,
  Mul: 14,
  Div: 15,
  Divby: 16,
  Mod: 17,
  True: 18,
  False: 19,
  Null: 20,
  Inf: 21,
  NaN: 22,
  Asc: 23,
  Desc: 24,
  Any: 25,
  All: 26,
  Cast: 27,
  Isof: 28,
  With: 29,
  As: 30,
  From: 31,
  Max: 32,
} as const

export type Keyword = (typeof Keyword)[keyof typeof Keyword]

function word(text: string, start: number, length: number, candidate: string): boolean {
  return length === candidate.length && text.startsWith(candidate, start)
}

/** The keyword spelled by text[start, start + length), or Keyword.None. Dispatches on the first character. */
export function classifyKeyword(text: string, start: number, length: number): Keyword {
  if (length < 2 || length > 5) return Keyword.None
  switch (text.charCodeAt(start)) {
    case 0x61: // a
      if (word(text, start, length, 'and')) return Keyword.And
      if (word(text, start, length, 'add')) return Keyword.Add
      if (word(text, start, length, 'asc')) return Keyword.Asc
      if (word(text, start, length, 'any')) return Keyword.Any
      if (word(text, start, length, 'all')) return Keyword.All
      if (word(text, start, length, 'as')) return Keyword.As
      return Keyword.None
    case 0x6f: // o
      return word(text, start, length, 'or') ? Keyword.Or : Keyword.None
    case 0x6e: // n
      if (word(text, start, length, 'not')) return Keyword.Not
      if (word(text, start, length, 'ne')) return Keyword.Ne
      if (word(text, start, length, 'null')) return Keyword.Null
      return Keyword.None
    case 0x65: // e
      return word(text, start, length, 'eq') ? Keyword.Eq : Keyword.None
    case 0x67: // g
      if (word(text, start, length, 'gt')) return Keyword.Gt
      if (word(text, start, length, 'ge')) return Keyword.Ge
      return Keyword.None
    case 0x6c: // l
      if (word(text, start, length, 'lt')) return Keyword.Lt
      if (word(text, start, length, 'le')) return Keyword.Le
      return Keyword.None
    case 0x68: // h
      return word(text, start, length, 'has') ? Keyword.Has : Keyword.None
    case 0x69: // i
      if (word(text, start, length, 'in')) return Keyword.In
      if (word(text, start, length, 'isof')) return Keyword.Isof
      return Keyword.None
    case 0x73: // s
      return word(text, start, length, 'sub') ? Keyword.Sub : Keyword.None
    case 0x6d: // m
      if (word(text, start, length, 'mul')) return Keyword.Mul
      if (word(text, start, length, 'mod')) return Keyword.Mod
      if (word(text, start, length, 'max')) return Keyword.Max
      return Keyword.None
    case 0x64: // d
      if (word(text, start, length, 'div')) return Keyword.Div
      if (word(text, start, length, 'divby')) return Keyword.Divby
      if (word(text, start, length, 'desc')) return Keyword.Desc
      return Keyword.None
    case 0x74: // t
      return word(text, start, length, 'true') ? Keyword.True : Keyword.None
    case 0x66: // f
      if (word(text, start, length, 'false')) return Keyword.False
      if (word(text, start, length, 'from')) return Keyword.From
      return Keyword.None
    case 0x49: // I
      return word(text, start, length, 'INF') ? Keyword.Inf : Keyword.None
    case 0x4e: // N
      return word(text, start, length, 'NaN') ? Keyword.NaN : Keyword.None
    case 0x63: // c
      return word(text, start, length, 'cast') ? Keyword.Cast : Keyword.None
    case 0x77: // w
      return word(text, start, length, 'with') ? Keyword.With : Keyword.None
    default:
      return Keyword.None
  }
}
