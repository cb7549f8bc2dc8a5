// Expression limits (decisions.md §8). They are checked while parsing, as each figure grows, so that an
// over-limit option is refused before a large tree exists and before the parser can recurse deeply
// enough to overflow the stack. Profiles may lower them; raising them is possible but nothing in the
// service does it.

export interface ExpressionLimits {
  /** Characters in one option text (after percent-decoding). */
  readonly maxLength: number
  /**
   * Nesting depth: every opening parenthesis or bracket (groups, calls, lambdas, lists, `$expand`
   * options, transformations) and every prefix operator (`not`, `-`) adds one level.
   */
  readonly maxDepth: number
  /** AST nodes built for one option text. */
  readonly maxNodes: number
  /** Items in one `in` list. */
  readonly maxInItems: number
  /** Items in one `$orderby` (or `orderby()` transformation). */
  readonly maxOrderByItems: number
  /** Levels of `$expand`, counting `$levels=n` as n levels. */
  readonly maxExpandDepth: number
  /** Expanded navigation paths in one `$expand`, nested ones included. */
  readonly maxExpansions: number
  /** Transformations in one `$apply`, nested ones (inside `groupby`) included. */
  readonly maxApplySteps: number
}

export const DEFAULT_EXPRESSION_LIMITS: ExpressionLimits = Object.freeze({
  maxLength: 8000,
  maxDepth: 32,
  maxNodes: 1000,
  maxInItems: 500,
  maxOrderByItems: 32,
  maxExpandDepth: 3,
  maxExpansions: 200,
  maxApplySteps: 10,
})

/** The defaults with the given fields replaced; a profile passes only what it lowers. */
export function resolveExpressionLimits(limits: Partial<ExpressionLimits> | undefined): ExpressionLimits {
  if (limits === undefined || limits === DEFAULT_EXPRESSION_LIMITS) return DEFAULT_EXPRESSION_LIMITS
  return { ...DEFAULT_EXPRESSION_LIMITS, ...limits }
}
