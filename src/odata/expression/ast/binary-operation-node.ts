// Infix operators of commonExpr: logical (andExpr, orExpr), comparison (eqExpr … geExpr), hasExpr and
// arithmetic (addExpr … modExpr). `in` has its own node because its right side may be a list.
import { freeze } from './freeze.js'
import type { CommonExpressionNode, ExpressionNode } from './expression-node.js'

export type LogicalOperator = 'and' | 'or'
export type ComparisonOperator = 'eq' | 'ne' | 'gt' | 'ge' | 'lt' | 'le'
export type ArithmeticOperator = 'add' | 'sub' | 'mul' | 'div' | 'divby' | 'mod'
/** `has`: the right operand is an enumeration literal (a LiteralNode of type 'Enum'). */
export type HasOperator = 'has'
export type BinaryOperator = LogicalOperator | ComparisonOperator | ArithmeticOperator | HasOperator

export interface BinaryOperationNode {
  readonly kind: 'BinaryOperationNode'
  /** Position of the operator keyword. */
  readonly position: number
  readonly operator: BinaryOperator
  readonly left: CommonExpressionNode
  readonly right: CommonExpressionNode
}

export const BinaryOperationNode = freeze({
  is(node: ExpressionNode): node is BinaryOperationNode {
    return node.kind === 'BinaryOperationNode'
  },

  create(operator: BinaryOperator, left: CommonExpressionNode, right: CommonExpressionNode, position: number): BinaryOperationNode {
    return freeze({ kind: 'BinaryOperationNode', position, operator, left, right })
  },
})
