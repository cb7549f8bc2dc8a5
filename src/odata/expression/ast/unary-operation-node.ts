// ABNF notExpr (`not Posted`) and negateExpr (`-Amount`). A minus directly before a number is part of
// the number literal instead (primitiveLiteral comes first in commonExpr).
import { freeze } from './freeze.js'
import type { CommonExpressionNode, ExpressionNode } from './expression-node.js'

export type UnaryOperator = 'not' | 'negate'

export interface UnaryOperationNode {
  readonly kind: 'UnaryOperationNode'
  readonly position: number
  readonly operator: UnaryOperator
  readonly operand: CommonExpressionNode
}

export const UnaryOperationNode = freeze({
  is(node: ExpressionNode): node is UnaryOperationNode {
    return node.kind === 'UnaryOperationNode'
  },

  create(operator: UnaryOperator, operand: CommonExpressionNode, position: number): UnaryOperationNode {
    return freeze({ kind: 'UnaryOperationNode', position, operator, operand })
  },
})
