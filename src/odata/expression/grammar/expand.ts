// ABNF expand = expandItem *( COMMA expandItem ), with
//   expandPath   = STAR [ ref / OPEN levels CLOSE ]
//                / path [ ref [ OPEN expandRefOption *( SEMI … ) CLOSE ]
//                       / count [ OPEN expandCountOption *( SEMI … ) CLOSE ]
//                       / OPEN expandOption *( SEMI expandOption ) CLOSE ]
// Nested options are parsed in place, so their positions are offsets into the whole $expand text.
// Option names may be written without '$' and in any case, as OData 4.01 allows for system query options.
// Not supported (clear error): `$value`, annotations, `*` after a path, nested $search/$compute and
// parameter aliases.
import { NO_EXPAND_OPTIONS, ExpandItemNode, ExpandNode, type ExpandForm, type ExpandOptions } from '../ast/expand-node.js'
import { MemberPathNode } from '../ast/member-path-node.js'
import { OrderByNode } from '../ast/order-by-node.js'
import type { PropertySegmentNode } from '../ast/property-segment-node.js'
import { StarNode } from '../ast/select-node.js'
import type { TypeCastSegmentNode } from '../ast/type-cast-segment-node.js'
import { Keyword } from '../lexer/keyword.js'
import { TokenKind } from '../lexer/token-kind.js'
import { applyExpr } from './apply-expr.js'
import { boolCommonExpr } from './common-expr.js'
import { describeCount } from './count-remaining-items.js'
import { nameSegments } from './member-expr.js'
import { orderbyItems } from './orderby.js'
import type { ParseState } from './parse-state.js'
import { select } from './select.js'

type ExpandOptionName = 'filter' | 'orderby' | 'select' | 'expand' | 'apply' | 'top' | 'skip' | 'count' | 'levels'

const ALL_OPTIONS: ReadonlySet<string> = new Set<ExpandOptionName>([
  'filter',
  'orderby',
  'select',
  'expand',
  'apply',
  'top',
  'skip',
  'count',
  'levels',
])
/** ABNF expandRefOption: no $select, $expand or $levels on references. */
const REF_OPTIONS: ReadonlySet<string> = new Set<ExpandOptionName>(['filter', 'orderby', 'skip', 'top', 'count'])
/** ABNF expandCountOption. */
const COUNT_OPTIONS: ReadonlySet<string> = new Set<ExpandOptionName>(['filter'])
/** ABNF expandPath: STAR [ OPEN levels CLOSE ]. */
const STAR_OPTIONS: ReadonlySet<string> = new Set<ExpandOptionName>(['levels'])
const UNSUPPORTED_OPTIONS: ReadonlySet<string> = new Set(['search', 'compute'])

export function expand(state: ParseState): ExpandNode {
  const lexer = state.lexer
  const position = lexer.start
  const limit = state.limits.maxExpandDepth
  if (++state.expandDepth > limit) {
    state.tooComplex(position, `$expand nests ${state.expandDepth} levels deep; at most ${limit} are allowed`)
  }
  const items: ExpandItemNode[] = []
  for (;;) {
    items.push(expandItem(state))
    if (lexer.kind !== TokenKind.Comma) break
    lexer.next()
  }
  state.expandDepth--
  state.countNode(position)
  return ExpandNode.create(items, position)
}

function expandItem(state: ParseState): ExpandItemNode {
  const lexer = state.lexer
  const position = lexer.start
  const limit = state.limits.maxExpansions
  if (++state.expansions > limit) {
    state.overLimit(
      'maxExpansions',
      position,
      (actual) => `$expand ${describeCount(actual, limit, 'expanded paths')}; at most ${limit} are allowed`,
    )
  }
  let path: MemberPathNode | StarNode
  let form: ExpandForm = 'entities'
  if (lexer.kind === TokenKind.Star) {
    state.countNode(position)
    path = StarNode.create(position)
    lexer.next()
    if (state.atPathSlash()) {
      state.passPathSlash()
      if (!state.atDollarName('$ref')) state.expected("$ref after '*/'")
      form = 'references'
      lexer.next()
    }
  } else if (lexer.kind === TokenKind.Name) {
    const segments: (PropertySegmentNode | TypeCastSegmentNode)[] = []
    if (nameSegments(state, segments)) {
      if (state.atDollarName('$ref')) form = 'references'
      else if (state.atDollarName('$count')) form = 'count'
      else if (lexer.kind === TokenKind.Star) state.syntaxError(lexer.start, "'*' after a path is not supported in $expand")
      else state.expected('a navigation property, $ref or $count')
      lexer.next()
    }
    state.countNode(position)
    path = MemberPathNode.create('implicit', null, segments, position)
  } else if (lexer.kind === TokenKind.DollarName) {
    return state.syntaxError(position, `'${lexer.tokenText()}' is not supported in $expand`)
  } else if (lexer.kind === TokenKind.AtName) {
    return state.syntaxError(position, `annotations such as '${lexer.tokenText()}' are not supported`)
  } else {
    return state.expected("a navigation property or '*'")
  }
  let options = NO_EXPAND_OPTIONS
  if (lexer.kind === TokenKind.OpenParen) {
    if (lexer.spaceBefore) state.syntaxError(lexer.whitespaceStart, "no whitespace is allowed before the '(' of expand options")
    options = expandOptions(state, form, path.kind === 'StarNode')
  }
  state.countNode(position)
  return ExpandItemNode.create(path, form, options, position)
}

/** OPEN expandOption *( SEMI expandOption ) CLOSE */
function expandOptions(state: ParseState, form: ExpandForm, star: boolean): ExpandOptions {
  const lexer = state.lexer
  const allowed = star ? STAR_OPTIONS : form === 'references' ? REF_OPTIONS : form === 'count' ? COUNT_OPTIONS : ALL_OPTIONS
  const options: { -readonly [Key in keyof ExpandOptions]: ExpandOptions[Key] } = { ...NO_EXPAND_OPTIONS }
  const seen = new Set<string>()
  state.openParenthesis("'('")
  for (;;) {
    const optionPosition = lexer.start
    if (lexer.kind === TokenKind.AtName) state.syntaxError(optionPosition, 'parameter aliases inside $expand are not supported')
    if (lexer.kind !== TokenKind.DollarName && lexer.kind !== TokenKind.Name) state.expected('an option such as $filter or $select')
    const written = lexer.tokenText()
    const name = (written.startsWith('$') ? written.slice(1) : written).toLowerCase()
    if (UNSUPPORTED_OPTIONS.has(name)) state.syntaxError(optionPosition, `${written} is not supported inside $expand`)
    if (!ALL_OPTIONS.has(name)) state.syntaxError(optionPosition, `unknown option '${written}' inside $expand`)
    if (!allowed.has(name))
      state.syntaxError(
        optionPosition,
        `${written} is not allowed ${star ? "after '*'" : form === 'references' ? 'after /$ref' : form === 'count' ? 'after /$count' : 'here'}`,
      )
    if (seen.has(name)) state.syntaxError(optionPosition, `${written} is given twice`)
    seen.add(name)
    lexer.next()
    // ABNF EQ = "=": no whitespace around it.
    if (lexer.kind !== TokenKind.Equals || lexer.spaceBefore) state.expected(`'=' directly after ${written}`)
    lexer.next()
    if (lexer.spaceBefore) state.syntaxError(lexer.whitespaceStart, `no whitespace is allowed after '${written}='`)
    switch (name as ExpandOptionName) {
      case 'filter':
        options.filter = boolCommonExpr(state)
        break
      case 'orderby': {
        const position = lexer.start
        const items = orderbyItems(state)
        state.countNode(position)
        options.orderBy = OrderByNode.create(items, position)
        break
      }
      case 'select':
        options.select = select(state)
        break
      case 'expand':
        options.expand = expand(state)
        break
      case 'apply':
        options.apply = applyExpr(state)
        break
      case 'top':
        options.top = nonNegativeInteger(state, written)
        break
      case 'skip':
        options.skip = nonNegativeInteger(state, written)
        break
      case 'count':
        // ABNF inlinecount = "$count" EQ boolean
        if (!state.at(Keyword.True) && !state.at(Keyword.False)) state.expected(`true or false after ${written}=`)
        options.count = lexer.keyword === Keyword.True
        lexer.next()
        break
      case 'levels':
        options.levels = levels(state, written)
        break
    }
    if (lexer.kind !== TokenKind.Semicolon) break
    lexer.next()
  }
  state.closeParenthesis("';' or ')'")
  return options
}

/** ABNF levels = ( "$levels" / "levels" ) EQ ( oneToNine *DIGIT / "max" ); n levels count as n toward the depth limit. */
function levels(state: ParseState, written: string): number | 'max' {
  const lexer = state.lexer
  if (state.at(Keyword.Max)) {
    // Unbounded in the protocol; whoever expands caps it at the depth limit.
    lexer.next()
    return 'max'
  }
  const position = lexer.start
  const value = nonNegativeInteger(state, written)
  if (state.text.charCodeAt(position) === 0x30) state.syntaxError(position, `${written} is a positive number without leading zeros, or max`)
  const reached = state.expandDepth + value - 1
  const limit = state.limits.maxExpandDepth
  if (reached > limit) state.tooComplex(position, `${written}=${value} expands ${reached} levels deep; at most ${limit} are allowed`)
  return value
}

/** ABNF 1*DIGIT, as a safe integer. */
export function nonNegativeInteger(state: ParseState, what: string): number {
  const lexer = state.lexer
  if (lexer.kind !== TokenKind.Integer || state.text.charCodeAt(lexer.start) > 0x39 || state.text.charCodeAt(lexer.start) < 0x30) {
    state.expected(`a non-negative integer for ${what}`)
  }
  const value = Number(lexer.tokenText())
  if (!Number.isSafeInteger(value)) state.syntaxError(lexer.start, `${lexer.tokenText()} is too large for ${what}`)
  lexer.next()
  return value
}
