// A visitor is a table with one function per node kind. The table type is mapped over every kind, so a
// visitor that misses a kind (for instance after a new kind is added) does not compile — the kysely
// OperationNodeVisitor idea, without the class.
import type { ExpressionNode, ExpressionNodeKind, NodeOfKind } from './expression-node.js'

export type ExpressionVisitor<Result, Context = void> = {
  readonly [Kind in ExpressionNodeKind]: (node: NodeOfKind<Kind>, context: Context) => Result
}

/** Calls the visitor's function for the node's kind. */
export function visitExpression<Result, Context>(
  node: ExpressionNode,
  visitor: ExpressionVisitor<Result, Context>,
  context: Context,
): Result {
  // The table is indexed by the node's own kind, so the function takes exactly this node's type;
  // TypeScript cannot correlate the two through the union, hence the one cast.
  const visit = visitor[node.kind] as (node: ExpressionNode, context: Context) => Result
  return visit(node, context)
}
