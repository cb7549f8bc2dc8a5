// Where names in an expression resolve: the implicit instance (`Quantity`), `$it` (the instance the
// option applies to, also from inside a lambda), and the lambda variables in scope (`g/Quantity`).
import type { BindContext } from './bind-context.js'
import type { Range } from './range.js'

export interface BindEnvironment {
  readonly context: BindContext
  /** What an unqualified name refers to: `$it`, or the members inside `$count($filter=…)`. */
  readonly implicit: Range
  readonly it: Range
  readonly variables: ReadonlyMap<string, Range>
  /** Parameter aliases being expanded, to refuse `@a=@b&@b=@a`. */
  readonly aliases: readonly string[]
}

export function rootEnvironment(context: BindContext, range: Range): BindEnvironment {
  return { context, implicit: range, it: range, variables: new Map(), aliases: [] }
}
