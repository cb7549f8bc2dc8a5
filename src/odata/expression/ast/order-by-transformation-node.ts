// ABNF orderbyTrafo: `orderby(Total desc)`, the items as in $orderby.
import { freeze } from './freeze.js'
import type { ExpressionNode } from './expression-node.js'
import type { OrderByItemNode } from './order-by-node.js'

export interface OrderByTransformationNode {
  readonly kind: 'OrderByTransformationNode'
  readonly position: number
  readonly items: readonly OrderByItemNode[]
}

export const OrderByTransformationNode = freeze({
  is(node: ExpressionNode): node is OrderByTransformationNode {
    return node.kind === 'OrderByTransformationNode'
  },

  create(items: readonly OrderByItemNode[], position: number): OrderByTransformationNode {
    return freeze({ kind: 'OrderByTransformationNode', position, items: freeze(items) })
  },
})
