// ABNF primitiveLiteral: the current token as a LiteralNode, its value converted and range-checked.
// Literal problems are InvalidLiteral at the literal's position, whatever the option.
import { LiteralNode } from '../ast/literal-node.js'
import { Keyword } from '../lexer/keyword.js'
import { TokenKind, isLiteralToken } from '../lexer/token-kind.js'
import {
  readBinary,
  readDateTimeOffset,
  readDate,
  readDecimal,
  readDouble,
  readDuration,
  readGuid,
  readInteger,
  readJsonString,
  readString,
  readTimeOfDay,
  type Fail,
} from './literal-readers.js'
import type { ParseState } from './parse-state.js'

/** Whether the current token starts a primitive literal (`true`, `null`, `INF`, … included). */
export function atPrimitiveLiteral(state: ParseState): boolean {
  const lexer = state.lexer
  if (isLiteralToken(lexer.kind)) return true
  if (lexer.kind !== TokenKind.Name) return false
  const keyword = lexer.keyword
  return (
    keyword === Keyword.True || keyword === Keyword.False || keyword === Keyword.Null || keyword === Keyword.Inf || keyword === Keyword.NaN
  )
}

export function primitiveLiteral(state: ParseState): LiteralNode {
  const lexer = state.lexer
  const text = state.text
  const { start, end } = lexer
  const fail: Fail = (description) => state.literalError(start, description)
  state.countNode(start)
  let node: LiteralNode
  switch (lexer.kind) {
    case TokenKind.Integer:
      node = integerLiteral(text, start, end)
      break
    case TokenKind.Decimal:
      node = LiteralNode.create('Edm.Decimal', readDecimal(text, start, end), start)
      break
    case TokenKind.Double:
      node = LiteralNode.create('Edm.Double', readDouble(text, start, end, fail), start)
      break
    case TokenKind.String:
      node = LiteralNode.create('Edm.String', readString(text, start, end), start)
      break
    case TokenKind.Guid:
      node = LiteralNode.create('Edm.Guid', readGuid(text, start, end, fail), start)
      break
    case TokenKind.Date:
      node = LiteralNode.create('Edm.Date', readDate(text, start, end, fail), start)
      break
    case TokenKind.DateTimeOffset:
      node = LiteralNode.create('Edm.DateTimeOffset', readDateTimeOffset(text, start, end, fail), start)
      break
    case TokenKind.TimeOfDay:
      node = LiteralNode.create('Edm.TimeOfDay', readTimeOfDay(text, start, end, fail), start)
      break
    case TokenKind.PrefixedString:
      node = prefixedLiteral(state, fail)
      break
    case TokenKind.Name:
      node = keywordLiteral(state)
      break
    default:
      return state.expected('a literal')
  }
  lexer.next()
  return node
}

function integerLiteral(text: string, start: number, end: number): LiteralNode {
  const integer = readInteger(text, start, end)
  switch (integer.type) {
    case 'Edm.Int32':
      return LiteralNode.create('Edm.Int32', integer.value, start)
    case 'Edm.Int64':
      return LiteralNode.create('Edm.Int64', integer.value, start)
    case 'Edm.Decimal':
      return LiteralNode.create('Edm.Decimal', integer.value, start)
  }
}

/** A JSON string in a JSON array (ABNF stringInUrl) is an Edm.String literal. */
export function jsonStringLiteral(state: ParseState): LiteralNode {
  const { start, end } = state.lexer
  state.countNode(start)
  const value = readJsonString(state.text, start, end, (description) => state.literalError(start, description))
  state.lexer.next()
  return LiteralNode.create('Edm.String', value, start)
}

function keywordLiteral(state: ParseState): LiteralNode {
  const start = state.lexer.start
  switch (state.lexer.keyword) {
    case Keyword.True:
      return LiteralNode.create('Edm.Boolean', true, start)
    case Keyword.False:
      return LiteralNode.create('Edm.Boolean', false, start)
    case Keyword.Null:
      return LiteralNode.create('Null', null, start)
    case Keyword.Inf:
      return LiteralNode.create('Edm.Double', Infinity, start)
    case Keyword.NaN:
      return LiteralNode.create('Edm.Double', NaN, start)
    default:
      return state.expected('a literal')
  }
}

/** `prefix'…'`: the prefix says how to read the quoted text. */
function prefixedLiteral(state: ParseState, fail: Fail): LiteralNode {
  const lexer = state.lexer
  const text = state.text
  const { start, quote, end } = lexer
  const from = quote + 1
  const to = end - 1
  if (lexer.qualified) {
    // ABNF enumLiteral = [ qualifiedEnumTypeName ] SQUOTE singleEnumLiteral *( COMMA singleEnumLiteral ) SQUOTE
    return LiteralNode.create('Enum', { typeName: text.slice(start, quote), members: readEnumMembers(text, from, to, fail) }, start)
  }
  switch (text.slice(start, quote)) {
    case 'guid':
      return LiteralNode.create('Edm.Guid', readGuid(text, from, to, fail), start)
    case 'datetime':
    case 'datetimeoffset':
      // The reference system's form (decisions.md §2); a date alone means its midnight.
      return LiteralNode.create('Edm.DateTimeOffset', readDateTimeOffset(text, from, to, fail, true), start)
    case 'duration':
      return LiteralNode.create('Edm.Duration', readDuration(text, from, to, fail), start)
    case 'time':
      return LiteralNode.create('Edm.TimeOfDay', readTimeOfDay(text, from, to, fail), start)
    case 'binary':
      return LiteralNode.create('Edm.Binary', readBinary(text, from, to, fail), start)
    default:
      // geography'…' and geometry'…': the model has no spatial types.
      return fail(`${text.slice(start, quote)} literals are not supported`)
  }
}

// ABNF singleEnumLiteral = enumerationMember / int64Literal, the member an odataIdentifier.
const ENUM_MEMBER = String.raw`(?:[\p{L}\p{Nl}_][\p{L}\p{Nl}\p{Nd}\p{Mn}\p{Mc}\p{Pc}\p{Cf}]*|[+-]?\d+)`
const ENUM_MEMBERS = new RegExp(`^${ENUM_MEMBER}(?:,${ENUM_MEMBER})*$`, 'u')

/** The members of an enumeration literal: names or integers separated by commas, nothing else. */
export function readEnumMembers(text: string, from: number, to: number, fail: Fail): string {
  const members = text.slice(from, to)
  if (!ENUM_MEMBERS.test(members)) {
    fail('an enumeration literal lists member names or integers separated by commas')
  }
  return members
}
