// ABNF applyExpr = applyTrafo *( "/" applyTrafo ) (Data Aggregation extension), with the transformations
// this service supports: aggregate, groupby (aggregate-trafo.ts, groupby-trafo.ts), filter, compute,
// orderby, top and skip. The others of the ABNF (concat, nest, join, identity, search, topcount and the
// hierarchy transformations, custom functions) are refused by name with a clear error.
import { ApplyNode } from '../ast/apply-node.js'
import { ComputeItemNode, ComputeTransformationNode } from '../ast/compute-transformation-node.js'
import type { ApplyTransformationNode } from '../ast/expression-node.js'
import { FilterTransformationNode } from '../ast/filter-transformation-node.js'
import { OrderByTransformationNode } from '../ast/order-by-transformation-node.js'
import { SkipTransformationNode } from '../ast/skip-transformation-node.js'
import { TopTransformationNode } from '../ast/top-transformation-node.js'
import { Keyword } from '../lexer/keyword.js'
import { TokenKind } from '../lexer/token-kind.js'
import { aggregateTrafo } from './aggregate-trafo.js'
import { boolCommonExpr, commonExpr } from './common-expr.js'
import { describeCount } from './count-remaining-items.js'
import { nonNegativeInteger } from './expand.js'
import { groupbyTrafo } from './groupby-trafo.js'
import { orderbyItems } from './orderby.js'
import type { ParseState } from './parse-state.js'

const UNSUPPORTED_TRANSFORMATIONS: ReadonlySet<string> = new Set([
  'concat',
  'nest',
  'addnested',
  'join',
  'outerjoin',
  'identity',
  'search',
  'topcount',
  'toppercent',
  'topsum',
  'bottomcount',
  'bottompercent',
  'bottomsum',
  'ancestors',
  'descendants',
  'traverse',
])

export function applyExpr(state: ParseState): ApplyNode {
  const position = state.lexer.start
  const transformations: ApplyTransformationNode[] = []
  for (;;) {
    transformations.push(applyTrafo(state))
    if (!state.atPathSlash()) break
    state.passPathSlash()
  }
  state.countNode(position)
  return ApplyNode.create(transformations, position)
}

function applyTrafo(state: ParseState): ApplyTransformationNode {
  const lexer = state.lexer
  const position = lexer.start
  const limit = state.limits.maxApplySteps
  if (++state.applySteps > limit) {
    state.overLimit(
      'maxApplySteps',
      position,
      (actual) => `$apply ${describeCount(actual, limit, 'transformations')}; at most ${limit} are allowed`,
    )
  }
  if (lexer.kind !== TokenKind.Name) return state.expected('a transformation such as filter(…), groupby(…) or aggregate(…)')
  const name = lexer.tokenText()
  if (lexer.qualified) return state.syntaxError(position, `custom transformations such as '${name}' are not supported`)
  switch (name) {
    case 'aggregate':
      return aggregateTrafo(state)
    case 'groupby':
      return groupbyTrafo(state)
    case 'filter':
      return filterTrafo(state)
    case 'compute':
      return computeTrafo(state)
    case 'orderby':
      return orderbyTrafo(state)
    case 'top':
    case 'skip':
      return topOrSkipTrafo(state, name)
  }
  if (UNSUPPORTED_TRANSFORMATIONS.has(name)) return state.syntaxError(position, `the transformation '${name}' is not supported`)
  return state.syntaxError(position, `unknown transformation '${name}'`)
}

/** ABNF filterTrafo = %s"filter" OPEN BWS boolCommonExpr BWS CLOSE */
function filterTrafo(state: ParseState): FilterTransformationNode {
  const position = state.lexer.start
  state.lexer.next()
  state.openParenthesisAfterName('filter')
  const predicate = boolCommonExpr(state)
  state.closeParenthesis()
  state.countNode(position)
  return FilterTransformationNode.create(predicate, position)
}

/** ABNF computeTrafo = %s"compute" OPEN BWS computeExpr *( BWS COMMA BWS computeExpr ) BWS CLOSE */
function computeTrafo(state: ParseState): ComputeTransformationNode {
  const lexer = state.lexer
  const position = lexer.start
  lexer.next()
  state.openParenthesisAfterName('compute')
  const items: ComputeItemNode[] = []
  for (;;) {
    // ABNF computeExpr = commonExpr asAlias
    const itemPosition = lexer.start
    const expression = commonExpr(state)
    const alias = asAlias(state)
    state.countNode(itemPosition)
    items.push(ComputeItemNode.create(expression, alias, itemPosition))
    if (lexer.kind !== TokenKind.Comma) break
    lexer.next()
  }
  state.closeParenthesis("',' or ')'")
  state.countNode(position)
  return ComputeTransformationNode.create(items, position)
}

/** ABNF orderbyTrafo = %s"orderby" OPEN orderbyItem *( BWS COMMA BWS orderbyItem ) CLOSE */
function orderbyTrafo(state: ParseState): OrderByTransformationNode {
  const position = state.lexer.start
  state.lexer.next()
  state.openParenthesisAfterName('orderby')
  const items = orderbyItems(state)
  state.closeParenthesis("',' or ')'")
  state.countNode(position)
  return OrderByTransformationNode.create(items, position)
}

/** ABNF topTrafo = %s"top" OPEN BWS 1*DIGIT BWS CLOSE, and skipTrafo. */
function topOrSkipTrafo(state: ParseState, name: 'top' | 'skip'): TopTransformationNode | SkipTransformationNode {
  const position = state.lexer.start
  state.lexer.next()
  state.openParenthesisAfterName(name)
  const count = nonNegativeInteger(state, `${name}()`)
  state.closeParenthesis()
  state.countNode(position)
  return name === 'top' ? TopTransformationNode.create(count, position) : SkipTransformationNode.create(count, position)
}

/** ABNF asAlias = RWS %s"as" RWS expressionAlias; expressionAlias = odataIdentifier */
export function asAlias(state: ParseState): string {
  const lexer = state.lexer
  if (!lexer.spaceBefore || !state.at(Keyword.As)) state.expected("' as ' and an alias")
  lexer.next()
  state.requireSpaceBefore('as')
  return state.identifier('an alias (a name)')
}
