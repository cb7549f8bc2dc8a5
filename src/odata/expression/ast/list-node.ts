// ABNF listExpr, the right side of `in`: `('a','b')`, or the JSON array form `["a","b"]`. Items are
// literals only (the ABNF allows nothing else in a listExpr).
import { freeze } from './freeze.js'
import type { ExpressionNode } from './expression-node.js'
import type { LiteralNode } from './literal-node.js'

export interface ListNode {
  readonly kind: 'ListNode'
  readonly position: number
  readonly items: readonly LiteralNode[]
}

export const ListNode = freeze({
  is(node: ExpressionNode): node is ListNode {
    return node.kind === 'ListNode'
  },

  create(items: readonly LiteralNode[], position: number): ListNode {
    return freeze({ kind: 'ListNode', position, items: freeze(items) })
  },
})
