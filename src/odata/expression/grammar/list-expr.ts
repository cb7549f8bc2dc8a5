// The right operand of `in` (ABNF inExpr = RWS "in" RWS ( listExpr / commonExpr )):
//   listExpr  = OPEN BWS [ primitiveLiteral BWS *( COMMA BWS primitiveLiteral BWS ) ] CLOSE
//   array     = begin-array [ valueInUrl *( value-separator valueInUrl ) ] end-array   (JSON form)
// or any other operand yielding a collection (`'x' in Tags`).
import type { CommonExpressionNode } from '../ast/expression-node.js'
import type { LiteralNode } from '../ast/literal-node.js'
import { ListNode } from '../ast/list-node.js'
import { TokenKind } from '../lexer/token-kind.js'
import { countRemainingItems, describeCount } from './count-remaining-items.js'
import type { ParseState } from './parse-state.js'
import { operand } from './primary-expr.js'
import { atPrimitiveLiteral, jsonStringLiteral, primitiveLiteral } from './primitive-literal.js'

export function inOperand(state: ParseState): ListNode | CommonExpressionNode {
  const lexer = state.lexer
  if (lexer.kind === TokenKind.OpenBracket) return jsonArray(state)
  if (lexer.kind !== TokenKind.OpenParen) return operand(state)
  // listExpr is tried before commonExpr, as in the ABNF: `(1, 2)` is a list, while `(1 add 2)` or
  // `(LastName)` are parenthesised expressions. One literal of look-ahead decides.
  const position = lexer.start
  const mark = lexer.mark()
  const nodesBefore = state.nodes
  state.openParenthesis("'('")
  if (lexer.kind === TokenKind.CloseParen) return listRest(state, [], position, TokenKind.CloseParen)
  if (atPrimitiveLiteral(state)) {
    const first = primitiveLiteral(state)
    if (lexer.kind === TokenKind.Comma || lexer.kind === TokenKind.CloseParen)
      return listRest(state, [first], position, TokenKind.CloseParen)
  }
  state.leave()
  state.nodes = nodesBefore
  lexer.reset(mark)
  return operand(state)
}

/** ABNF array, holding literals and JSON strings only. */
function jsonArray(state: ParseState): ListNode {
  const lexer = state.lexer
  const position = lexer.start
  state.enter(position)
  lexer.next()
  const items: LiteralNode[] = []
  if (lexer.kind !== TokenKind.CloseBracket) items.push(jsonArrayItem(state))
  return listRest(state, items, position, TokenKind.CloseBracket)
}

function jsonArrayItem(state: ParseState): LiteralNode {
  const lexer = state.lexer
  if (lexer.kind === TokenKind.JsonString) return jsonStringLiteral(state)
  if (atPrimitiveLiteral(state)) return primitiveLiteral(state)
  if (lexer.kind === TokenKind.OpenBracket || lexer.kind === TokenKind.OpenBrace) {
    return state.syntaxError(lexer.start, 'nested arrays and objects are not supported in a list')
  }
  return state.expected('a literal (a list holds literals only)')
}

/** The items after the first, up to the closing parenthesis or bracket; counts them against the limit. */
function listRest(state: ParseState, items: LiteralNode[], position: number, close: TokenKind): ListNode {
  const lexer = state.lexer
  const bracket = close === TokenKind.CloseBracket
  const limit = state.limits.maxInItems
  if (items.length > limit) {
    return state.tooComplex(
      position,
      `the 'in' list ${describeCount(countRemainingItems(state, items.length), limit, 'items')}; at most ${limit} are allowed`,
    )
  }
  while (lexer.kind === TokenKind.Comma) {
    lexer.next()
    if (items.length === limit) {
      const actual = countRemainingItems(state, limit + 1)
      return state.tooComplex(position, `the 'in' list ${describeCount(actual, limit, 'items')}; at most ${limit} are allowed`)
    }
    if (bracket) items.push(jsonArrayItem(state))
    else if (atPrimitiveLiteral(state)) items.push(primitiveLiteral(state))
    else state.expected('a literal (a list holds literals only)')
  }
  state.expect(close, bracket ? "',' or ']'" : "',' or ')'")
  state.leave()
  state.countNode(position)
  return ListNode.create(items, position)
}
