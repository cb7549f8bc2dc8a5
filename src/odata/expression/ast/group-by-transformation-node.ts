// ABNF groupbyTrafo: `groupby((Warehouse,Product/Unit),aggregate(Quantity with sum as Total))`.
// The grouping properties are single-valued paths (ABNF groupingProperty); rollup is not supported.
import { freeze } from './freeze.js'
import type { ExpressionNode } from './expression-node.js'
import type { ApplyNode } from './apply-node.js'
import type { MemberPathNode } from './member-path-node.js'

export interface GroupByTransformationNode {
  readonly kind: 'GroupByTransformationNode'
  readonly position: number
  readonly properties: readonly MemberPathNode[]
  /** The transformations applied to each group, or null (then the result is the distinct groups). */
  readonly apply: ApplyNode | null
}

export const GroupByTransformationNode = freeze({
  is(node: ExpressionNode): node is GroupByTransformationNode {
    return node.kind === 'GroupByTransformationNode'
  },

  create(properties: readonly MemberPathNode[], apply: ApplyNode | null, position: number): GroupByTransformationNode {
    return freeze({ kind: 'GroupByTransformationNode', position, properties: freeze(properties), apply })
  },
})
