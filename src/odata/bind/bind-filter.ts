// `$filter` (and a function's `Condition`) bound against a range: a predicate.
import type { CommonExpressionNode } from '../expression/index.js'
import type { BindContext } from './bind-context.js'
import { rootEnvironment } from './bind-environment.js'
import type { BoundExpression } from './bound/bound-expression.js'
import { bindPredicate } from './expression-binder.js'
import type { Range } from './range.js'

export function bindFilter(node: CommonExpressionNode, range: Range, context: BindContext): BoundExpression {
  return bindPredicate(node, rootEnvironment(context, range))
}
