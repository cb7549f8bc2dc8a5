// The binder: names and types of the expression language checked against the model (or any other
// queryable source), producing bound trees the SQL compiler (src/sql) turns into text with placeholders.
//
//   const scope = QueryScope.over(source)
//   const predicate = bindFilter(parseFilter(text, { option: '$filter' }), scope.root, context)
export type { BindContext } from './bind-context.js'
export { rootEnvironment, type BindEnvironment } from './bind-environment.js'
export { bindError, surrogateKeyError } from './bind-error.js'
export { bindLiteral, storedDateTime } from './bind-literal.js'
export { bindFilter } from './bind-filter.js'
export { bindOrderBy } from './bind-order-by.js'
export { bindSelect, selectAll, type BoundSelect } from './bound-select.js'
export { bindExpand, bindExpandWithParts, type BoundExpandItem } from './bind-expand.js'
export { bindApply, restrictedSource, type BoundApply } from './bind-apply.js'
export { bindExpression, bindPredicate, bindMemberPath } from './expression-binder.js'
export { comparable, isNumeric, isInteger, promoteNumeric, type BoundType } from './bound-type.js'
export { QueryScope } from './query-scope.js'
export type { Range, RangeOrigin } from './range.js'
export {
  columnMap,
  type QueryableSource,
  type SourceColumn,
  type SourceRelation,
  type SourceNavigation,
  type ReferenceNavigation,
  type CollectionNavigation,
  type SortKey,
  type SourceResolver,
} from './queryable-source.js'
export { syntheticColumn, renamedColumn } from './synthetic-property.js'
export {
  visitBound,
  type BoundExpression,
  type BoundExpressionKind,
  type BoundExpressionVisitor,
  type BoundOfKind,
} from './bound/bound-expression.js'
export { BoundLiteral, type BoundLiteralValue } from './bound/bound-literal.js'
export { BoundProperty } from './bound/bound-property.js'
export { BoundComparison } from './bound/bound-comparison.js'
export { BoundLogical } from './bound/bound-logical.js'
export { BoundNot } from './bound/bound-not.js'
export { BoundArithmetic } from './bound/bound-arithmetic.js'
export { BoundNegate } from './bound/bound-negate.js'
export { BoundIn } from './bound/bound-in.js'
export { BoundKeyText } from './bound/bound-key-text.js'
export { BoundFunctionCall } from './bound/bound-function-call.js'
export { BoundCast } from './bound/bound-cast.js'
export { BoundLambda } from './bound/bound-lambda.js'
export { BoundCollectionCount } from './bound/bound-collection-count.js'
export { BoundAggregate, type BoundAggregateMethod } from './bound/bound-aggregate.js'
export type { BoundOrderItem } from './bound/bound-order-item.js'
export type {
  BoundTransformation,
  BoundOutputColumn,
  BoundFilterTransformation,
  BoundComputeTransformation,
  BoundAggregateTransformation,
  BoundSliceTransformation,
} from './bound/bound-transformation.js'
