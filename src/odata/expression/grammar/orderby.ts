// ABNF orderby = orderbyItem *( COMMA orderbyItem ); orderbyItem = commonExpr [ RWS ( "asc" / "desc" ) ].
// Shared by $orderby, the $orderby of $expand and the orderby() transformation of $apply.
import { OrderByItemNode, type SortDirection } from '../ast/order-by-node.js'
import { Keyword } from '../lexer/keyword.js'
import { TokenKind } from '../lexer/token-kind.js'
import { commonExpr } from './common-expr.js'
import { countRemainingItems, describeCount } from './count-remaining-items.js'
import type { ParseState } from './parse-state.js'

export function orderbyItems(state: ParseState): OrderByItemNode[] {
  const lexer = state.lexer
  const limit = state.limits.maxOrderByItems
  const position = lexer.start
  const items: OrderByItemNode[] = []
  for (;;) {
    if (items.length === limit) {
      const actual = countRemainingItems(state, limit + 1)
      return state.tooComplex(position, `the ordering ${describeCount(actual, limit, 'items')}; at most ${limit} are allowed`)
    }
    items.push(orderbyItem(state))
    if (lexer.kind !== TokenKind.Comma) return items
    lexer.next()
  }
}

function orderbyItem(state: ParseState): OrderByItemNode {
  const lexer = state.lexer
  const position = lexer.start
  const expression = commonExpr(state)
  let direction: SortDirection = 'asc'
  if (lexer.spaceBefore && (state.at(Keyword.Asc) || state.at(Keyword.Desc))) {
    direction = lexer.keyword === Keyword.Asc ? 'asc' : 'desc'
    lexer.next()
  }
  state.countNode(position)
  return OrderByItemNode.create(expression, direction, position)
}
