// ABNF orderby / orderbyItem: `$orderby=Period desc,Product/Description`.
import { freeze } from './freeze.js'
import type { CommonExpressionNode, ExpressionNode } from './expression-node.js'

export type SortDirection = 'asc' | 'desc'

export interface OrderByItemNode {
  readonly kind: 'OrderByItemNode'
  readonly position: number
  readonly expression: CommonExpressionNode
  /** 'asc' when the item does not say. */
  readonly direction: SortDirection
}

export interface OrderByNode {
  readonly kind: 'OrderByNode'
  readonly position: number
  readonly items: readonly OrderByItemNode[]
}

export const OrderByItemNode = freeze({
  is(node: ExpressionNode): node is OrderByItemNode {
    return node.kind === 'OrderByItemNode'
  },

  create(expression: CommonExpressionNode, direction: SortDirection, position: number): OrderByItemNode {
    return freeze({ kind: 'OrderByItemNode', position, expression, direction })
  },
})

export const OrderByNode = freeze({
  is(node: ExpressionNode): node is OrderByNode {
    return node.kind === 'OrderByNode'
  },

  create(items: readonly OrderByItemNode[], position: number): OrderByNode {
    return freeze({ kind: 'OrderByNode', position, items: freeze(items) })
  },
})
