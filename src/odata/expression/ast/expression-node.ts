// All node kinds of the expression language in one union, and the sub-unions that say where a kind may
// stand. A new kind goes into exactly one sub-union and into ExpressionNode; the visitor type
// (expression-visitor.ts) then refuses to compile until every visitor handles it.
import type { LiteralNode } from './literal-node.js'
import type { ParameterAliasNode } from './parameter-alias-node.js'
import type { MemberPathNode } from './member-path-node.js'
import type { PropertySegmentNode } from './property-segment-node.js'
import type { TypeCastSegmentNode } from './type-cast-segment-node.js'
import type { CountSegmentNode } from './count-segment-node.js'
import type { LambdaNode } from './lambda-node.js'
import type { MethodCallNode } from './method-call-node.js'
import type { CastNode } from './cast-node.js'
import type { IsOfNode } from './is-of-node.js'
import type { BinaryOperationNode } from './binary-operation-node.js'
import type { UnaryOperationNode } from './unary-operation-node.js'
import type { InNode } from './in-node.js'
import type { ListNode } from './list-node.js'
import type { OrderByItemNode, OrderByNode } from './order-by-node.js'
import type { SelectNode, StarNode } from './select-node.js'
import type { ExpandItemNode, ExpandNode } from './expand-node.js'
import type { ApplyNode } from './apply-node.js'
import type { AggregateCountNode, AggregateExpressionNode, AggregateTransformationNode } from './aggregate-transformation-node.js'
import type { GroupByTransformationNode } from './group-by-transformation-node.js'
import type { FilterTransformationNode } from './filter-transformation-node.js'
import type { ComputeItemNode, ComputeTransformationNode } from './compute-transformation-node.js'
import type { OrderByTransformationNode } from './order-by-transformation-node.js'
import type { TopTransformationNode } from './top-transformation-node.js'
import type { SkipTransformationNode } from './skip-transformation-node.js'

/** What ABNF commonExpr yields: anything that has a value and may be an operand. */
export type CommonExpressionNode =
  | LiteralNode
  | ParameterAliasNode
  | MemberPathNode
  | MethodCallNode
  | CastNode
  | IsOfNode
  | BinaryOperationNode
  | UnaryOperationNode
  | InNode

/** The segments of a MemberPathNode. */
export type PathSegmentNode = PropertySegmentNode | TypeCastSegmentNode | CountSegmentNode | LambdaNode

/** The steps of an ApplyNode. */
export type ApplyTransformationNode =
  | AggregateTransformationNode
  | GroupByTransformationNode
  | FilterTransformationNode
  | ComputeTransformationNode
  | OrderByTransformationNode
  | TopTransformationNode
  | SkipTransformationNode

/** The parts of query options that are not expressions themselves. */
export type QueryOptionPartNode =
  | ListNode
  | OrderByNode
  | OrderByItemNode
  | SelectNode
  | StarNode
  | ExpandNode
  | ExpandItemNode
  | ApplyNode
  | AggregateExpressionNode
  | AggregateCountNode
  | ComputeItemNode

/** Every node kind. */
export type ExpressionNode = CommonExpressionNode | PathSegmentNode | ApplyTransformationNode | QueryOptionPartNode

export type ExpressionNodeKind = ExpressionNode['kind']

/** The node type of one kind: NodeOfKind<'InNode'> is InNode. */
export type NodeOfKind<Kind extends ExpressionNodeKind> = Extract<ExpressionNode, { kind: Kind }>
