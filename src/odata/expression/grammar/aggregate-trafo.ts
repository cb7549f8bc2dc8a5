// ABNF aggregateTrafo = %s"aggregate" OPEN BWS aggregateExpr *( BWS COMMA BWS aggregateExpr ) BWS CLOSE,
// for two of the aggregateExpr forms:
//   aggregatableExpW asAlias   `Amount with sum as Total`, `Product with countdistinct as Products`
//   aggregateCount asAlias     `$count as Rows`, `Goods/$count as Lines`
// Custom aggregates (a name without `with`), custom aggregation methods and `from` are refused: the
// model declares none, and without that knowledge `Amount as Total` could not even be parsed.
import {
  AggregateCountNode,
  AggregateExpressionNode,
  AggregateTransformationNode,
  type AggregateItemNode,
  type AggregateMethod,
} from '../ast/aggregate-transformation-node.js'
import { MemberPathNode } from '../ast/member-path-node.js'
import { Keyword } from '../lexer/keyword.js'
import { TokenKind } from '../lexer/token-kind.js'
import { asAlias } from './apply-expr.js'
import { commonExpr } from './common-expr.js'
import type { ParseState } from './parse-state.js'

const AGGREGATE_METHODS: ReadonlySet<string> = new Set<AggregateMethod>(['sum', 'min', 'max', 'average', 'countdistinct'])

export function aggregateTrafo(state: ParseState): AggregateTransformationNode {
  const lexer = state.lexer
  const position = lexer.start
  lexer.next()
  state.openParenthesisAfterName('aggregate')
  const items: AggregateItemNode[] = []
  for (;;) {
    items.push(aggregateExpr(state))
    if (lexer.kind !== TokenKind.Comma) break
    lexer.next()
  }
  state.closeParenthesis("',' or ')'")
  state.countNode(position)
  return AggregateTransformationNode.create(items, position)
}

function aggregateExpr(state: ParseState): AggregateItemNode {
  const lexer = state.lexer
  const position = lexer.start
  // ABNF aggregateCount = %s"$count" / … path count
  if (state.atDollarName('$count')) {
    lexer.next()
    const alias = asAlias(state)
    state.countNode(position)
    return AggregateCountNode.create(null, alias, position)
  }
  if (lexer.kind === TokenKind.CloseParen) state.expected('an aggregate expression such as Amount with sum as Total')
  const expression = commonExpr(state)
  if (lexer.spaceBefore && state.at(Keyword.With)) {
    // ABNF aggregateWith = RWS %s"with" RWS aggregateMethod
    lexer.next()
    state.requireSpaceBefore('with')
    const method = aggregateMethod(state)
    if (lexer.spaceBefore && state.at(Keyword.From)) state.syntaxError(lexer.start, "'from' in aggregate() is not supported")
    const alias = asAlias(state)
    state.countNode(position)
    return AggregateExpressionNode.create(expression, method, alias, position)
  }
  // `Goods/$count as Lines`: the path with its final $count segment is a count of that collection.
  if (expression.kind === 'MemberPathNode') {
    const last = expression.segments[expression.segments.length - 1]
    if (last !== undefined && last.kind === 'CountSegmentNode' && last.filter === null) {
      const alias = asAlias(state)
      const counted = MemberPathNode.create(expression.scope, expression.variable, expression.segments.slice(0, -1), expression.position)
      state.countNode(position)
      return AggregateCountNode.create(counted, alias, position)
    }
  }
  return state.expected("' with ' and an aggregation method (sum, min, max, average, countdistinct)")
}

/** ABNF aggregateMethod = %s"sum" / %s"min" / %s"max" / %s"average" / nonprimAggMethod (countdistinct only). */
function aggregateMethod(state: ParseState): AggregateMethod {
  const lexer = state.lexer
  if (lexer.kind !== TokenKind.Name) return state.expected('an aggregation method (sum, min, max, average, countdistinct)')
  const name = lexer.tokenText()
  if (lexer.qualified) return state.syntaxError(lexer.start, `custom aggregation methods such as '${name}' are not supported`)
  if (!AGGREGATE_METHODS.has(name)) return state.expected('an aggregation method (sum, min, max, average, countdistinct)')
  lexer.next()
  return name as AggregateMethod
}
