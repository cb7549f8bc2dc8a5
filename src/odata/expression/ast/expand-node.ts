// ABNF expand / expandItem / expandOption:
// `$expand=Product($select=Description;$expand=Unit),Warehouse/$ref,Goods/$count($filter=…)`.
import { freeze } from './freeze.js'
import type { CommonExpressionNode, ExpressionNode } from './expression-node.js'
import type { MemberPathNode } from './member-path-node.js'
import type { OrderByNode } from './order-by-node.js'
import type { SelectNode, StarNode } from './select-node.js'
import type { ApplyNode } from './apply-node.js'

/** What the item yields: the related entities, references to them (`/$ref`), or their count (`/$count`). */
export type ExpandForm = 'entities' | 'references' | 'count'

/** The options in parentheses after an expanded path; null where not given. */
export interface ExpandOptions {
  readonly filter: CommonExpressionNode | null
  readonly orderBy: OrderByNode | null
  readonly select: SelectNode | null
  readonly expand: ExpandNode | null
  readonly apply: ApplyNode | null
  readonly top: number | null
  readonly skip: number | null
  /** `$count=true|false` (inline count of the expanded collection). */
  readonly count: boolean | null
  /** `$levels=n` or `$levels=max`. */
  readonly levels: number | 'max' | null
}

export interface ExpandItemNode {
  readonly kind: 'ExpandItemNode'
  readonly position: number
  /** The navigation path, or a StarNode for `*` (all navigation properties). */
  readonly path: MemberPathNode | StarNode
  readonly form: ExpandForm
  readonly options: ExpandOptions
}

export interface ExpandNode {
  readonly kind: 'ExpandNode'
  readonly position: number
  readonly items: readonly ExpandItemNode[]
}

export const NO_EXPAND_OPTIONS: ExpandOptions = freeze({
  filter: null,
  orderBy: null,
  select: null,
  expand: null,
  apply: null,
  top: null,
  skip: null,
  count: null,
  levels: null,
})

export const ExpandItemNode = freeze({
  is(node: ExpressionNode): node is ExpandItemNode {
    return node.kind === 'ExpandItemNode'
  },

  create(path: MemberPathNode | StarNode, form: ExpandForm, options: ExpandOptions, position: number): ExpandItemNode {
    return freeze({ kind: 'ExpandItemNode', position, path, form, options: freeze(options) })
  },
})

export const ExpandNode = freeze({
  is(node: ExpressionNode): node is ExpandNode {
    return node.kind === 'ExpandNode'
  },

  create(items: readonly ExpandItemNode[], position: number): ExpandNode {
    return freeze({ kind: 'ExpandNode', position, items: freeze(items) })
  },
})
