// ABNF select / selectItem: `$select=Description,Product/Code,*`. Paths are MemberPathNodes made of
// property and type-cast segments only.
import { freeze } from './freeze.js'
import type { ExpressionNode } from './expression-node.js'
import type { MemberPathNode } from './member-path-node.js'

/** `*`: all structural properties (in $select) or all navigation properties (in $expand). */
export interface StarNode {
  readonly kind: 'StarNode'
  readonly position: number
}

export type SelectItemNode = MemberPathNode | StarNode

export interface SelectNode {
  readonly kind: 'SelectNode'
  readonly position: number
  readonly items: readonly SelectItemNode[]
}

export const StarNode = freeze({
  is(node: ExpressionNode): node is StarNode {
    return node.kind === 'StarNode'
  },

  create(position: number): StarNode {
    return freeze({ kind: 'StarNode', position })
  },
})

export const SelectNode = freeze({
  is(node: ExpressionNode): node is SelectNode {
    return node.kind === 'SelectNode'
  },

  create(items: readonly SelectItemNode[], position: number): SelectNode {
    return freeze({ kind: 'SelectNode', position, items: freeze(items) })
  },
})
