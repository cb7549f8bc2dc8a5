// The operand of commonExpr (its first alternatives: primitiveLiteral, parenExpr, methodCallExpr,
// castExpr, isofExpr, firstMemberExpr, parameterAlias) followed by the primary-level operators `has`
// and `in` (URL Conventions 5.1.1.15: they bind tighter than `not` and the arithmetic operators).
import { BinaryOperationNode } from '../ast/binary-operation-node.js'
import type { CommonExpressionNode } from '../ast/expression-node.js'
import { InNode } from '../ast/in-node.js'
import { LiteralNode } from '../ast/literal-node.js'
import { ParameterAliasNode } from '../ast/parameter-alias-node.js'
import { Keyword } from '../lexer/keyword.js'
import { TokenKind } from '../lexer/token-kind.js'
import { castExpr } from './cast-expr.js'
import { commonExpr } from './common-expr.js'
import { inOperand } from './list-expr.js'
import { firstMemberExpr } from './member-expr.js'
import { methodCallExpr } from './method-call-expr.js'
import type { ParseState } from './parse-state.js'
import { atPrimitiveLiteral, primitiveLiteral, readEnumMembers } from './primitive-literal.js'

export function primaryExpr(state: ParseState): CommonExpressionNode {
  const lexer = state.lexer
  let node = operand(state)
  for (;;) {
    if (lexer.kind !== TokenKind.Name || !lexer.spaceBefore) return node
    const position = lexer.start
    if (lexer.keyword === Keyword.Has) {
      // ABNF hasExpr = RWS "has" RWS enumLiteral
      lexer.next()
      state.requireSpaceBefore('has')
      const right = enumLiteral(state)
      state.countNode(position)
      node = BinaryOperationNode.create('has', node, right, position)
    } else if (lexer.keyword === Keyword.In) {
      // ABNF inExpr = RWS "in" RWS ( listExpr / commonExpr )
      lexer.next()
      state.requireSpaceBefore('in')
      const right = inOperand(state)
      state.countNode(position)
      node = InNode.create(node, right, position)
    } else {
      return node
    }
  }
}

/** One operand, without the operators after it. */
export function operand(state: ParseState): CommonExpressionNode {
  const lexer = state.lexer
  switch (lexer.kind) {
    case TokenKind.OpenParen:
      return parenExpr(state)
    case TokenKind.AtName:
      return parameterAlias(state)
    case TokenKind.DollarName:
      return firstMemberExpr(state)
    case TokenKind.Name:
      return nameOperand(state)
    case TokenKind.OpenBracket:
      return state.syntaxError(lexer.start, "a JSON array may only stand on the right of 'in'")
    case TokenKind.OpenBrace:
      return state.syntaxError(lexer.start, 'JSON objects are not supported in expressions')
    default:
      if (atPrimitiveLiteral(state)) return primitiveLiteral(state)
      return state.expected('an expression')
  }
}

/** A name starts a literal (`true`), a call (`contains(`, `cast(`) or a member path. */
function nameOperand(state: ParseState): CommonExpressionNode {
  const lexer = state.lexer
  if (state.followedByParenthesis()) {
    if (lexer.keyword === Keyword.Cast) return castExpr(state, 'cast')
    if (lexer.keyword === Keyword.Isof) return castExpr(state, 'isof')
    if (lexer.keyword === Keyword.Any || lexer.keyword === Keyword.All) {
      return state.syntaxError(lexer.start, `${lexer.tokenText()}() must follow a collection path, as in Goods/${lexer.tokenText()}(g: …)`)
    }
    if (lexer.qualified) {
      // ABNF functionExpr with a namespace: bound or unbound functions of the model. The service exposes
      // none that an expression could call.
      return state.syntaxError(lexer.start, `unknown function '${lexer.tokenText()}'`)
    }
    return methodCallExpr(state)
  }
  if (atPrimitiveLiteral(state)) return primitiveLiteral(state)
  return firstMemberExpr(state)
}

/** ABNF parenExpr = OPEN BWS commonExpr BWS CLOSE; the parentheses leave no node behind. */
function parenExpr(state: ParseState): CommonExpressionNode {
  state.openParenthesis("'('")
  const inner = commonExpr(state)
  state.closeParenthesis()
  return inner
}

/** ABNF parameterAlias = AT odataIdentifier */
function parameterAlias(state: ParseState): ParameterAliasNode {
  const lexer = state.lexer
  const position = lexer.start
  if (lexer.qualified) return state.syntaxError(position, `annotations such as '${lexer.tokenText()}' are not supported`)
  const name = state.text.slice(position + 1, lexer.end)
  state.countNode(position)
  lexer.next()
  if (state.atPathSlash()) return state.syntaxError(lexer.start, 'a path after a parameter alias is not supported')
  return ParameterAliasNode.create(name, position)
}

/** ABNF enumLiteral, the right operand of `has`: `Namespace.Type'Member'` or just `'Member'`. */
function enumLiteral(state: ParseState): LiteralNode {
  const lexer = state.lexer
  if (lexer.kind === TokenKind.PrefixedString && lexer.qualified) return primitiveLiteral(state)
  if (lexer.kind !== TokenKind.String) return state.expected("an enumeration literal after 'has'")
  const { start, end } = lexer
  state.countNode(start)
  const members = readEnumMembers(state.text, start + 1, end - 1, (description) => state.literalError(start, description))
  lexer.next()
  return LiteralNode.create('Enum', { typeName: null, members }, start)
}
