// ABNF applyExpr (Data Aggregation extension): transformations chained with '/', applied in order.
// `$apply=filter(Quantity gt 0)/groupby((Warehouse),aggregate(Quantity with sum as Total))`.
import { freeze } from './freeze.js'
import type { ApplyTransformationNode, ExpressionNode } from './expression-node.js'

export interface ApplyNode {
  readonly kind: 'ApplyNode'
  readonly position: number
  readonly transformations: readonly ApplyTransformationNode[]
}

export const ApplyNode = freeze({
  is(node: ExpressionNode): node is ApplyNode {
    return node.kind === 'ApplyNode'
  },

  create(transformations: readonly ApplyTransformationNode[], position: number): ApplyNode {
    return freeze({ kind: 'ApplyNode', position, transformations: freeze(transformations) })
  },
})
