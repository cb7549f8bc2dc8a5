// ABNF inExpr: `Warehouse_Key in (guid'…', guid'…')`. The right side is a literal list, or any operand
// that yields a collection (`'x' in Tags`).
import { freeze } from './freeze.js'
import type { CommonExpressionNode, ExpressionNode } from './expression-node.js'
import type { ListNode } from './list-node.js'

export interface InNode {
  readonly kind: 'InNode'
  /** Position of the `in` keyword. */
  readonly position: number
  readonly left: CommonExpressionNode
  readonly right: ListNode | CommonExpressionNode
}

export const InNode = freeze({
  is(node: ExpressionNode): node is InNode {
    return node.kind === 'InNode'
  },

  create(left: CommonExpressionNode, right: ListNode | CommonExpressionNode, position: number): InNode {
    return freeze({ kind: 'InNode', position, left, right })
  },
})
