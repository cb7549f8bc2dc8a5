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
