// Every kind of bound expression in one union, and a visitor typed over all of them: a compiler that
// misses a kind does not compile (the kysely OperationNodeVisitor idea, as in the parser's AST).
import type { BoundAggregate } from './bound-aggregate.js'
import type { BoundArithmetic } from './bound-arithmetic.js'
import type { BoundCast } from './bound-cast.js'
import type { BoundCollectionCount } from './bound-collection-count.js'
import type { BoundComparison } from './bound-comparison.js'
import type { BoundFunctionCall } from './bound-function-call.js'
import type { BoundIn } from './bound-in.js'
import type { BoundKeyText } from './bound-key-text.js'
import type { BoundLambda } from './bound-lambda.js'
import type { BoundLiteral } from './bound-literal.js'
import type { BoundLogical } from './bound-logical.js'
import type { BoundNegate } from './bound-negate.js'
import type { BoundNot } from './bound-not.js'
import type { BoundProperty } from './bound-property.js'

export type BoundExpression =
  | BoundLiteral
  | BoundProperty
  | BoundComparison
  | BoundLogical
  | BoundNot
  | BoundArithmetic
  | BoundNegate
  | BoundIn
  | BoundFunctionCall
  | BoundCast
  | BoundLambda
  | BoundCollectionCount
  | BoundAggregate
  | BoundKeyText

export type BoundExpressionKind = BoundExpression['kind']

export type BoundOfKind<Kind extends BoundExpressionKind> = Extract<BoundExpression, { kind: Kind }>

export type BoundExpressionVisitor<Result, Context = void> = {
  readonly [Kind in BoundExpressionKind]: (node: BoundOfKind<Kind>, context: Context) => Result
}

export function visitBound<Result, Context>(
  node: BoundExpression,
  visitor: BoundExpressionVisitor<Result, Context>,
  context: Context,
): Result {
  // Indexed by the node's own kind; TypeScript cannot correlate the two through the union, hence the cast.
  const visit = visitor[node.kind] as (node: BoundExpression, context: Context) => Result
  return visit(node, context)
}
