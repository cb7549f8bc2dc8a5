// ABNF methodCallExpr: a canonical function called with parenthesised, comma-separated arguments,
// `indexOfMethodCallExpr = "indexof" OPEN BWS commonExpr BWS COMMA BWS commonExpr BWS CLOSE` and so on.
// The name and the number of arguments are checked here (canonical-functions.ts), the types later.
import { canonicalFunctionArity, type CanonicalFunctionName, type FunctionArity } from '../canonical-functions.js'
import type { CommonExpressionNode } from '../ast/expression-node.js'
import { MethodCallNode } from '../ast/method-call-node.js'
import { TokenKind } from '../lexer/token-kind.js'
import { commonExpr } from './common-expr.js'
import type { ParseState } from './parse-state.js'

/** At a name directly followed by '('. */
export function methodCallExpr(state: ParseState): MethodCallNode {
  const lexer = state.lexer
  const position = lexer.start
  const name = lexer.tokenText()
  const arity = canonicalFunctionArity(name)
  if (arity === undefined) return state.syntaxError(position, `unknown function '${name}'`)
  lexer.next()
  state.openParenthesisAfterName(name)
  const args: CommonExpressionNode[] = []
  if (lexer.kind !== TokenKind.CloseParen) {
    for (;;) {
      // Refuse a surplus argument where it starts, before parsing it.
      if (args.length === arity.max) state.syntaxError(lexer.start, `${name}() takes ${describeArity(arity)}`)
      args.push(commonExpr(state))
      if (lexer.kind !== TokenKind.Comma) break
      lexer.next()
    }
  }
  state.closeParenthesis(args.length === 0 ? "an argument or ')'" : "',' or ')'")
  if (args.length < arity.min) state.syntaxError(position, `${name}() takes ${describeArity(arity)}, not ${args.length}`)
  state.countNode(position)
  return MethodCallNode.create(name as CanonicalFunctionName, args, position)
}

function describeArity(arity: FunctionArity): string {
  const count = arity.min === arity.max ? String(arity.min) : `${arity.min} to ${arity.max}`
  return `${count} argument${arity.max === 1 ? '' : 's'}`
}
