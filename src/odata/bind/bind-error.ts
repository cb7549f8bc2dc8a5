// Bind errors are ExpressionErrors like the parser's: 400, target = the option, the position in the
// option's text in the message and as a field. SurrogateKey has a code of its own (service.md §2.2).
import type { ErrorCode } from '../../errors.js'
import { ExpressionError } from '../expression/index.js'
import type { BindContext } from './bind-context.js'

export function bindError(
  context: BindContext,
  position: number,
  description: string,
  code: ErrorCode = context.errorCode,
): ExpressionError {
  return new ExpressionError(code, `${description} (${context.option} at position ${position}).`, context.option, position)
}

export function surrogateKeyError(context: BindContext, position: number): ExpressionError {
  return bindError(context, position, 'SurrogateKey takes no part in $filter, $orderby or $apply', 'SurrogateKeyNotFilterable')
}
