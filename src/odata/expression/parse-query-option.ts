// The entry points: one per kind of option text. Each parses the whole text or throws an ODataError
// (an ExpressionError) whose target is `options.option` and whose message gives the position.
//
//   parseFilter(text, { option: '$filter' })     $filter, and the Condition parameters of virtual tables
//   parseOrderBy(text, { option: '$orderby' })
//   parseSelect(text, { option: '$select' })
//   parseExpand(text, { option: '$expand' })
//   parseApply(text, { option: '$apply' })
//   parseCommonExpression(text, { option })      any other expression-valued text (parameter alias values)
import type { ErrorCode } from '../../errors.js'
import type { ApplyNode } from './ast/apply-node.js'
import type { CommonExpressionNode } from './ast/expression-node.js'
import type { ExpandNode } from './ast/expand-node.js'
import { OrderByNode } from './ast/order-by-node.js'
import type { SelectNode } from './ast/select-node.js'
import { RunningLimitError, syntaxError, type RunningLimit } from './expression-error.js'
import { resolveExpressionLimits, type ExpressionLimits } from './expression-limits.js'
import { applyExpr } from './grammar/apply-expr.js'
import { boolCommonExpr, commonExpr } from './grammar/common-expr.js'
import { expand } from './grammar/expand.js'
import { orderbyItems } from './grammar/orderby.js'
import { ParseState } from './grammar/parse-state.js'
import { select } from './grammar/select.js'

export interface ParseOptions {
  /** The query option or parameter the text comes from (`$filter`, `Condition`): the target of every error. */
  readonly option: string
  /** Limits to apply instead of the defaults (decisions.md §8); fields left out keep their default. */
  readonly limits?: Partial<ExpressionLimits>
  /** The code of syntax errors, when the option's own is not right (e.g. 'InvalidParameter' for Condition). */
  readonly errorCode?: ErrorCode
  /** Filled in with the work done, whether the parse succeeds or not: for tests and diagnostics. */
  readonly statistics?: ParseStatistics
}

export interface ParseStatistics {
  /** Tokens scanned, re-scans after look-ahead included. */
  tokens: number
  /** AST nodes built. */
  nodes: number
}

/** `$filter` (ABNF filter = "$filter" EQ boolCommonExpr); also `Condition`, `AccountCondition`. */
export function parseFilter(text: string, options: ParseOptions): CommonExpressionNode {
  return parseWhole(text, options, 'InvalidFilter', boolCommonExpr, 'an operator or the end of the expression')
}

/** ABNF commonExpr on its own, for other expression-valued texts. */
export function parseCommonExpression(text: string, options: ParseOptions): CommonExpressionNode {
  return parseWhole(text, options, 'InvalidQueryOption', commonExpr, 'an operator or the end of the expression')
}

/** ABNF orderby = orderbyItem *( COMMA orderbyItem ) */
export function parseOrderBy(text: string, options: ParseOptions): OrderByNode {
  return parseWhole(
    text,
    options,
    'InvalidOrderBy',
    (state) => {
      const items = orderbyItems(state)
      state.countNode(0)
      return OrderByNode.create(items, 0)
    },
    "',', asc, desc, an operator or the end of $orderby",
  )
}

/** ABNF select = selectItem *( COMMA selectItem ) */
export function parseSelect(text: string, options: ParseOptions): SelectNode {
  return parseWhole(text, options, 'InvalidSelect', select, "',' or the end of $select")
}

/** ABNF expand = expandItem *( COMMA expandItem ) */
export function parseExpand(text: string, options: ParseOptions): ExpandNode {
  return parseWhole(text, options, 'InvalidExpand', expand, "',', '(' or the end of $expand")
}

/** ABNF apply = applyExpr (Data Aggregation extension) */
export function parseApply(text: string, options: ParseOptions): ApplyNode {
  return parseWhole(text, options, 'InvalidApply', applyExpr, "'/' and another transformation, or the end of $apply")
}

function parseWhole<Result>(
  text: string,
  options: ParseOptions,
  defaultCode: ErrorCode,
  grammar: (state: ParseState) => Result,
  atEnd: string,
): Result {
  const code = options.errorCode ?? defaultCode
  // Callers pass strings; a value from untyped JSON might not be one.
  if (typeof text !== 'string') throw syntaxError(code, options.option, 0, 'the value is not a string')
  const statistics = options.statistics
  if (statistics !== undefined) {
    statistics.tokens = 0
    statistics.nodes = 0
  }
  const limits = resolveExpressionLimits(options.limits)
  const state = new ParseState(text, options.option, code, limits)
  try {
    const result = grammar(state)
    state.expectEnd(atEnd)
    return result
  } catch (error) {
    if (error instanceof RunningLimitError) throw stateTheFigure(error, text, options.option, code, limits, grammar, atEnd)
    throw error
  } finally {
    if (statistics !== undefined) {
      statistics.tokens = state.lexer.scanned
      statistics.nodes = state.nodes
    }
  }
}

/** Texts longer than this are not parsed a second time for a figure ("more than" instead): the recount's work stays bounded. */
const MAX_RECOUNTED_LENGTH = 100_000
/** Nesting is recounted only this deep, so that the recount cannot overflow the stack the depth limit protects. */
const MAX_RECOUNTED_DEPTH = 200

/**
 * decisions.md §8: the message states the actual figure. The parse stopped where a running figure
 * passed its limit; the text is parsed again with that limit lifted (the others still hold), and the
 * figure it reaches over the whole text is stated. A recount that fails for another reason (a syntax
 * error further on, another limit) leaves "more than".
 */
function stateTheFigure<Result>(
  error: RunningLimitError,
  text: string,
  option: string,
  code: ErrorCode,
  limits: ExpressionLimits,
  grammar: (state: ParseState) => Result,
  atEnd: string,
): Error {
  if (text.length > MAX_RECOUNTED_LENGTH) return error
  const lifted = error.limit === 'maxDepth' ? MAX_RECOUNTED_DEPTH : Number.MAX_SAFE_INTEGER
  if (lifted <= limits[error.limit]) return error
  const recount = new ParseState(text, option, code, { ...limits, [error.limit]: lifted })
  try {
    grammar(recount)
    recount.expectEnd(atEnd)
  } catch {
    return error
  }
  return error.withFigure(figureOf(recount, error.limit))
}

function figureOf(state: ParseState, limit: RunningLimit): number {
  switch (limit) {
    case 'maxApplySteps':
      return state.applySteps
    case 'maxExpansions':
      return state.expansions
    case 'maxNodes':
      return state.nodes
    case 'maxDepth':
      return state.deepest
  }
}
