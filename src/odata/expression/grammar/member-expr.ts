// ABNF firstMemberExpr = memberExpr / inscopeVariableExpr [ "/" memberExpr ], with the segments this
// service can use:
//   - property names (propertyPathExpr; which kind of property is the binder's question),
//   - namespace-qualified type casts (`Model.VipCustomer/Name`),
//   - `$count`, optionally `$count($filter=…)` (collectionPathExpr: count [ OPEN expandCountOption CLOSE ]),
//   - `any(…)` / `all(…)` (anyExpr, allExpr), which end the path.
// Not supported, with a clear error: key predicates and function calls in paths, `$root`, `/$filter(…)`
// segments, annotations.
import type { CommonExpressionNode, PathSegmentNode } from '../ast/expression-node.js'
import { CountSegmentNode } from '../ast/count-segment-node.js'
import { LambdaNode, type LambdaOperator } from '../ast/lambda-node.js'
import { MemberPathNode, type PathScope } from '../ast/member-path-node.js'
import { PropertySegmentNode } from '../ast/property-segment-node.js'
import { TypeCastSegmentNode } from '../ast/type-cast-segment-node.js'
import { Keyword } from '../lexer/keyword.js'
import { TokenKind } from '../lexer/token-kind.js'
import { boolCommonExpr } from './common-expr.js'
import type { ParseState } from './parse-state.js'

/** At a Name or a DollarName that starts a path. */
export function firstMemberExpr(state: ParseState): MemberPathNode {
  const lexer = state.lexer
  const position = lexer.start
  let scope: PathScope = 'implicit'
  let variable: string | null = null
  const segments: PathSegmentNode[] = []
  if (lexer.kind === TokenKind.DollarName) {
    // ABNF implicitVariableExpr = %s"$it" / %s"$this"
    const name = lexer.tokenText()
    if (name === '$it' || name === '$this') scope = name
    else if (name === '$root' || name === '$these') return state.syntaxError(position, `${name} is not supported in expressions`)
    else if (name === '$count') return state.syntaxError(position, '$count must follow a collection, as in Goods/$count')
    else return state.expected('an expression')
    lexer.next()
  } else if (!lexer.qualified && state.isLambdaVariableAt(lexer.start, lexer.end)) {
    // ABNF lambdaVariableExpr: a name declared by an enclosing any/all shadows a property of that name.
    scope = 'lambda'
    variable = lexer.tokenText()
    lexer.next()
  }
  if (scope === 'implicit') {
    memberSegments(state, segments, true)
  } else if (state.atPathSlash()) {
    state.passPathSlash()
    memberSegments(state, segments, true)
  }
  state.countNode(position)
  return MemberPathNode.create(scope, variable, segments, position)
}

/** segment *( "/" segment ); `first` is true for the segment that starts a member expression. */
function memberSegments(state: ParseState, segments: PathSegmentNode[], first: boolean): void {
  for (;;) {
    const segment = memberSegment(state, first)
    segments.push(segment)
    if (!state.atPathSlash()) {
      // ABNF memberExpr: a qualified type name at the start must be followed by "/" directMemberExpr.
      if (first && segment.kind === 'TypeCastSegmentNode') state.expected(`'/' and a property after the type cast '${segment.typeName}'`)
      return
    }
    if (segment.kind === 'CountSegmentNode' || segment.kind === 'LambdaNode') {
      return state.syntaxError(
        state.lexer.start,
        `nothing may follow ${segment.kind === 'CountSegmentNode' ? '$count' : `${segment.operator}()`} in a path`,
      )
    }
    state.passPathSlash()
    first = false
  }
}

function memberSegment(state: ParseState, first: boolean): PathSegmentNode {
  const lexer = state.lexer
  const position = lexer.start
  switch (lexer.kind) {
    case TokenKind.Name: {
      if (state.followedByParenthesis()) {
        if (!first && (lexer.keyword === Keyword.Any || lexer.keyword === Keyword.All)) return lambdaExpr(state)
        return state.syntaxError(position, `key predicates and function calls in paths are not supported ('${lexer.tokenText()}(')`)
      }
      return nameSegment(state)
    }
    case TokenKind.DollarName:
      if (!first && state.atDollarName('$count')) return countSegment(state)
      return state.syntaxError(position, `'${lexer.tokenText()}' is not supported here`)
    case TokenKind.AtName:
      return state.syntaxError(position, `annotations such as '${lexer.tokenText()}' are not supported`)
    default:
      return state.expected('a property name')
  }
}

/** A plain path segment: a property, or a type cast when namespace-qualified. */
export function nameSegment(state: ParseState): PropertySegmentNode | TypeCastSegmentNode {
  const lexer = state.lexer
  const position = lexer.start
  if (lexer.kind !== TokenKind.Name) return state.expected('a property name')
  const name = lexer.tokenText()
  const qualified = lexer.qualified
  state.countNode(position)
  lexer.next()
  return qualified ? TypeCastSegmentNode.create(name, position) : PropertySegmentNode.create(name, position)
}

/**
 * Name *( "/" Name ) for $select, $expand and groupby paths. Returns true when it stopped after a '/'
 * that is followed by something other than a name (`$ref`, `$count`, `*`), which is then the current
 * token, for the caller to handle.
 */
export function nameSegments(state: ParseState, segments: (PropertySegmentNode | TypeCastSegmentNode)[]): boolean {
  for (;;) {
    segments.push(nameSegment(state))
    if (!state.atPathSlash()) return false
    state.passPathSlash()
    if (state.lexer.kind !== TokenKind.Name) return true
  }
}

/** ABNF anyExpr = "any" OPEN BWS [ lambdaVariableExpr BWS COLON BWS lambdaPredicateExpr ] BWS CLOSE, and allExpr. */
function lambdaExpr(state: ParseState): LambdaNode {
  const lexer = state.lexer
  const position = lexer.start
  const operator: LambdaOperator = lexer.keyword === Keyword.Any ? 'any' : 'all'
  lexer.next()
  state.openParenthesisAfterName(operator)
  if (lexer.kind === TokenKind.CloseParen) {
    // allExpr has no empty form: all() would be true for every collection.
    if (operator === 'all') state.expected('a lambda variable in all(), as in all(g: g/Quantity gt 0)')
    state.closeParenthesis()
    state.countNode(position)
    return LambdaNode.create('any', null, null, position)
  }
  const variable = state.identifier('a lambda variable name')
  state.expect(TokenKind.Colon, "':' after the lambda variable")
  state.pushLambdaVariable(variable)
  const predicate = boolCommonExpr(state)
  state.popLambdaVariable()
  state.closeParenthesis()
  state.countNode(position)
  return LambdaNode.create(operator, variable, predicate, position)
}

/** `$count`, or `$count($filter=…)` (ABNF expandCountOption; $search is not supported). */
function countSegment(state: ParseState): CountSegmentNode {
  const lexer = state.lexer
  const position = lexer.start
  lexer.next()
  let filter: CommonExpressionNode | null = null
  if (lexer.kind === TokenKind.OpenParen && !lexer.spaceBefore) {
    state.openParenthesis("'('")
    const optionName = lexer.kind === TokenKind.DollarName || lexer.kind === TokenKind.Name ? lexer.tokenText().toLowerCase() : ''
    if (optionName !== '$filter' && optionName !== 'filter') state.expected('$filter inside $count(…)')
    lexer.next()
    state.expect(TokenKind.Equals, "'=' after $filter")
    filter = boolCommonExpr(state)
    state.closeParenthesis()
  }
  state.countNode(position)
  return CountSegmentNode.create(filter, position)
}
