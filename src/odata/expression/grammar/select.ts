// ABNF select = selectItem *( COMMA selectItem ), for the items this service supports: `*` and property
// paths with optional namespace-qualified type casts (`Product/Code`, `Model.Vip/Discount`). Nested select
// options (`Address($select=…)`), `Namespace.*` and annotations are refused with a clear error.
import { MemberPathNode } from '../ast/member-path-node.js'
import type { PropertySegmentNode } from '../ast/property-segment-node.js'
import { SelectNode, StarNode, type SelectItemNode } from '../ast/select-node.js'
import type { TypeCastSegmentNode } from '../ast/type-cast-segment-node.js'
import { TokenKind } from '../lexer/token-kind.js'
import { nameSegments } from './member-expr.js'
import type { ParseState } from './parse-state.js'

export function select(state: ParseState): SelectNode {
  const lexer = state.lexer
  const position = lexer.start
  const items: SelectItemNode[] = []
  for (;;) {
    items.push(selectItem(state))
    if (lexer.kind !== TokenKind.Comma) break
    lexer.next()
  }
  state.countNode(position)
  return SelectNode.create(items, position)
}

function selectItem(state: ParseState): SelectItemNode {
  const lexer = state.lexer
  const position = lexer.start
  if (lexer.kind === TokenKind.Star) {
    state.countNode(position)
    lexer.next()
    return StarNode.create(position)
  }
  if (lexer.kind === TokenKind.AtName) return state.syntaxError(position, `annotations such as '${lexer.tokenText()}' are not supported`)
  if (lexer.kind !== TokenKind.Name) return state.expected("a property name or '*'")
  const segments: (PropertySegmentNode | TypeCastSegmentNode)[] = []
  if (nameSegments(state, segments)) {
    return state.syntaxError(
      lexer.start,
      lexer.kind === TokenKind.Star
        ? "'*' on a path is not supported in $select"
        : `expected a property name but found ${state.describeToken()}`,
    )
  }
  if (lexer.kind === TokenKind.OpenParen && !lexer.spaceBefore) {
    return state.syntaxError(lexer.start, 'options or parameters on a selected item are not supported')
  }
  state.countNode(position)
  return MemberPathNode.create('implicit', null, segments, position)
}
