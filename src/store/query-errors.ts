// Failures of a read's query that the request caused, not the service: MySQL refuses to compute some
// values an expression can ask for (`LineNumber mul 2147483647 mul 2147483647 mul 2147483647` overflows
// BIGINT; a date beyond 9999). Those are the client's 400, not an internal error.
import { ODataError } from '../errors.js'

/** MySQL/MariaDB error numbers that mean "this value cannot be computed". */
const VALUE_ERRORS: ReadonlySet<number> = new Set([
  1264, // ER_WARN_DATA_OUT_OF_RANGE
  1292, // ER_TRUNCATED_WRONG_VALUE
  1365, // ER_DIVISION_BY_ZERO
  1366, // ER_TRUNCATED_WRONG_VALUE_FOR_FIELD
  1441, // ER_DATETIME_FUNCTION_OVERFLOW
  1690, // ER_DATA_OUT_OF_RANGE
  3020, // ER_INVALID_ARGUMENT_FOR_LOGARITHM
])

export function translateQueryError(error: unknown): unknown {
  const errno = (error as { errno?: unknown } | null)?.errno
  // The guard the compiler puts around every divisor (QueryCompiler.divisor): its overflow names `~0`.
  if (errno === 1690 && /~\s*\(?0/.test(String((error as { message?: unknown }).message))) {
    return new ODataError('DivisionByZero', 'The request divides by zero (div, divby or mod with a divisor that is 0 for a row it reads).')
  }
  if (typeof errno === 'number' && VALUE_ERRORS.has(errno)) {
    return new ODataError(
      'ValueOutOfRange',
      'A value the request computes is out of the range the database can hold (an arithmetic overflow or a date beyond 9999).',
    )
  }
  return error
}
