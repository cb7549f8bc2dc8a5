// The expression language of the service (syntax layer): $filter, $orderby, $select, $expand, $apply and
// the Condition parameters of virtual tables share this lexer, parser and AST. Pure: no model, no
// database; the binder checks names and types against the model afterwards.
export {
  parseFilter,
  parseCommonExpression,
  parseOrderBy,
  parseSelect,
  parseExpand,
  parseApply,
  type ParseOptions,
  type ParseStatistics,
} from './parse-query-option.js'
export { DEFAULT_EXPRESSION_LIMITS, resolveExpressionLimits, type ExpressionLimits } from './expression-limits.js'
export { ExpressionError } from './expression-error.js'
export { CANONICAL_FUNCTIONS, canonicalFunctionArity, type CanonicalFunctionName, type FunctionArity } from './canonical-functions.js'
export { toDebugString } from './debug-string.js'

export type {
  ExpressionNode,
  ExpressionNodeKind,
  NodeOfKind,
  CommonExpressionNode,
  PathSegmentNode,
  ApplyTransformationNode,
  QueryOptionPartNode,
} from './ast/expression-node.js'
export { visitExpression, type ExpressionVisitor } from './ast/expression-visitor.js'
export { LiteralNode, type LiteralType, type LiteralOf } from './ast/literal-node.js'
export type { DateValue, TimeOfDayValue, DateTimeOffsetValue, DurationValue, EnumValue } from './ast/literal-value.js'
export { ParameterAliasNode } from './ast/parameter-alias-node.js'
export { MemberPathNode, type PathScope } from './ast/member-path-node.js'
export { PropertySegmentNode } from './ast/property-segment-node.js'
export { TypeCastSegmentNode } from './ast/type-cast-segment-node.js'
export { CountSegmentNode } from './ast/count-segment-node.js'
export { LambdaNode, type LambdaOperator } from './ast/lambda-node.js'
export { MethodCallNode } from './ast/method-call-node.js'
export type { TypeReference } from './ast/type-reference.js'
export { CastNode } from './ast/cast-node.js'
export { IsOfNode } from './ast/is-of-node.js'
export {
  BinaryOperationNode,
  type BinaryOperator,
  type LogicalOperator,
  type ComparisonOperator,
  type ArithmeticOperator,
  type HasOperator,
} from './ast/binary-operation-node.js'
export { UnaryOperationNode, type UnaryOperator } from './ast/unary-operation-node.js'
export { InNode } from './ast/in-node.js'
export { ListNode } from './ast/list-node.js'
export { OrderByNode, OrderByItemNode, type SortDirection } from './ast/order-by-node.js'
export { SelectNode, StarNode, type SelectItemNode } from './ast/select-node.js'
export { ExpandNode, ExpandItemNode, NO_EXPAND_OPTIONS, type ExpandForm, type ExpandOptions } from './ast/expand-node.js'
export { ApplyNode } from './ast/apply-node.js'
export {
  AggregateTransformationNode,
  AggregateExpressionNode,
  AggregateCountNode,
  type AggregateItemNode,
  type AggregateMethod,
} from './ast/aggregate-transformation-node.js'
export { GroupByTransformationNode } from './ast/group-by-transformation-node.js'
export { FilterTransformationNode } from './ast/filter-transformation-node.js'
export { ComputeTransformationNode, ComputeItemNode } from './ast/compute-transformation-node.js'
export { OrderByTransformationNode } from './ast/order-by-transformation-node.js'
export { TopTransformationNode } from './ast/top-transformation-node.js'
export { SkipTransformationNode } from './ast/skip-transformation-node.js'
