// ABNF groupbyTrafo = %s"groupby" OPEN BWS groupbyList [ BWS COMMA BWS applyExpr ] BWS CLOSE
//      groupbyList  = OPEN BWS groupbyElement *( BWS COMMA BWS groupbyElement ) BWS CLOSE
// The grouping elements are single-valued property paths (groupingProperty); rollup and rolluprecursive
// are refused.
import type { ApplyNode } from '../ast/apply-node.js'
import { GroupByTransformationNode } from '../ast/group-by-transformation-node.js'
import { MemberPathNode } from '../ast/member-path-node.js'
import type { PropertySegmentNode } from '../ast/property-segment-node.js'
import type { TypeCastSegmentNode } from '../ast/type-cast-segment-node.js'
import { TokenKind } from '../lexer/token-kind.js'
import { applyExpr } from './apply-expr.js'
import { nameSegments } from './member-expr.js'
import type { ParseState } from './parse-state.js'

export function groupbyTrafo(state: ParseState): GroupByTransformationNode {
  const lexer = state.lexer
  const position = lexer.start
  lexer.next()
  state.openParenthesisAfterName('groupby')
  state.openParenthesis("'(' and the grouping properties, as in groupby((Warehouse))")
  const properties: MemberPathNode[] = []
  for (;;) {
    properties.push(groupingProperty(state))
    if (lexer.kind !== TokenKind.Comma) break
    lexer.next()
  }
  state.closeParenthesis("',' or ')'")
  let apply: ApplyNode | null = null
  if (lexer.kind === TokenKind.Comma) {
    lexer.next()
    apply = applyExpr(state)
  }
  state.closeParenthesis()
  state.countNode(position)
  return GroupByTransformationNode.create(properties, apply, position)
}

/** ABNF groupingProperty = [ aggrCastPath "/" ] ( snglPrimPath / snglPropPath ): names, not ending in a cast. */
function groupingProperty(state: ParseState): MemberPathNode {
  const lexer = state.lexer
  const position = lexer.start
  if (lexer.kind === TokenKind.Name && state.followedByParenthesis()) {
    const name = lexer.tokenText()
    if (name === 'rollup' || name === 'rolluprecursive') return state.syntaxError(position, `${name}() is not supported`)
    return state.syntaxError(position, `expected a grouping property but found '${name}('`)
  }
  if (lexer.kind === TokenKind.AtName) return state.syntaxError(position, `annotations such as '${lexer.tokenText()}' are not supported`)
  if (lexer.kind !== TokenKind.Name) return state.expected('a grouping property')
  const segments: (PropertySegmentNode | TypeCastSegmentNode)[] = []
  if (nameSegments(state, segments)) state.expected('a property name')
  const last = segments[segments.length - 1]
  if (last.kind === 'TypeCastSegmentNode') state.syntaxError(last.position, 'a grouping property cannot end in a type cast')
  state.countNode(position)
  return MemberPathNode.create('implicit', null, segments, position)
}
