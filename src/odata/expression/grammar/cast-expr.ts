// ABNF castExpr = "cast" OPEN BWS [ commonExpr BWS COMMA BWS ] optionallyQualifiedTypeName BWS CLOSE
// and isofExpr, the same with "isof". The optional first argument makes the two forms look alike at the
// start: `cast(Edm.String)` against `cast(Amount, Edm.String)`. A bounded look-ahead decides: a type name
// directly followed by ')' is the one-argument form.
import { CastNode } from '../ast/cast-node.js'
import type { CommonExpressionNode } from '../ast/expression-node.js'
import { IsOfNode } from '../ast/is-of-node.js'
import type { TypeReference } from '../ast/type-reference.js'
import { TokenKind } from '../lexer/token-kind.js'
import { commonExpr } from './common-expr.js'
import type { ParseState } from './parse-state.js'

/** At `cast` or `isof` directly followed by '('. */
export function castExpr(state: ParseState, name: 'cast' | 'isof'): CastNode | IsOfNode {
  const lexer = state.lexer
  const position = lexer.start
  lexer.next()
  state.openParenthesisAfterName(name)
  let operand: CommonExpressionNode | null = null
  const mark = lexer.mark()
  const nodesBefore = state.nodes
  let type = typeNameIfAny(state)
  if (type === undefined || lexer.kind !== TokenKind.CloseParen) {
    lexer.reset(mark)
    state.nodes = nodesBefore
    operand = commonExpr(state)
    state.expect(TokenKind.Comma, `',' and a type name in ${name}()`)
    type = typeNameIfAny(state)
    if (type === undefined) return state.expected('a type name')
  }
  state.closeParenthesis()
  state.countNode(position)
  return name === 'cast' ? CastNode.create(operand, type, position) : IsOfNode.create(operand, type, position)
}

/**
 * ABNF optionallyQualifiedTypeName = singleQualifiedTypeName / "Collection" OPEN singleQualifiedTypeName CLOSE
 * / singleTypeName / …; undefined (with the lexer somewhere inside) when the tokens are not a type name.
 */
function typeNameIfAny(state: ParseState): TypeReference | undefined {
  const lexer = state.lexer
  if (lexer.kind !== TokenKind.Name) return undefined
  const position = lexer.start
  if (!lexer.qualified && state.followedByParenthesis() && state.text.startsWith('Collection', position) && lexer.end - position === 10) {
    lexer.next()
    lexer.next()
    if (lexer.kind !== TokenKind.Name) return undefined
    const name = lexer.tokenText()
    lexer.next()
    if (lexer.kind !== TokenKind.CloseParen) return undefined
    lexer.next()
    return { name, collection: true, position }
  }
  const name = lexer.tokenText()
  lexer.next()
  return { name, collection: false, position }
}
