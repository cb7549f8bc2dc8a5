// The one error the expression layer throws: an ODataError (decisions.md §4) whose target is the query
// option (`$filter`, `Condition`, …) and whose message gives the 0-based character position in that
// option's text. The position is also a field, so that callers (and tests) need not read the message.
import { ODataError, type ErrorCode } from '../../errors.js'

export class ExpressionError extends ODataError {
  /** 0-based character offset into the option text; undefined when the whole text is at fault. */
  readonly position: number | undefined

  constructor(code: ErrorCode, message: string, option: string, position: number | undefined) {
    super(code, message, { target: option })
    this.position = position
  }
}

/** A syntax error: `code` is the option's own code (InvalidFilter, InvalidExpand, …). */
export function syntaxError(code: ErrorCode, option: string, position: number, description: string): ExpressionError {
  return new ExpressionError(code, `Syntax error in ${option} at position ${position}: ${description}.`, option, position)
}

/** A malformed or out-of-range literal (InvalidLiteral). */
export function literalError(option: string, position: number, description: string): ExpressionError {
  return new ExpressionError('InvalidLiteral', `Invalid literal in ${option} at position ${position}: ${description}.`, option, position)
}

/** An expression limit of decisions.md §8 is exceeded (ExpressionTooComplex); the text states the figures. */
export function tooComplexError(option: string, position: number | undefined, description: string): ExpressionError {
  const where = position === undefined ? '' : ` at position ${position}`
  return new ExpressionError('ExpressionTooComplex', `${option} is too complex${where}: ${description}.`, option, position)
}

/** The running figures a parse stops at as soon as they pass their limit; the whole text's figure is counted afterwards. */
export type RunningLimit = 'maxApplySteps' | 'maxExpansions' | 'maxNodes' | 'maxDepth'

/**
 * A running figure passed its limit where the parse stopped. The parse that reports it counts the whole
 * text's figure with that limit lifted (parse-query-option.ts), since decisions.md §8 asks for the actual
 * figure, and `describe` words it (undefined: not counted, "more than").
 */
export class RunningLimitError extends ExpressionError {
  constructor(
    readonly limit: RunningLimit,
    readonly describe: (actual: number | undefined) => string,
    option: string,
    position: number,
  ) {
    super('ExpressionTooComplex', tooComplexError(option, position, describe(undefined)).message, option, position)
  }

  /** The same error, its message stating the actual figure. */
  withFigure(actual: number): ExpressionError {
    return tooComplexError(this.target!, this.position, this.describe(actual))
  }
}
