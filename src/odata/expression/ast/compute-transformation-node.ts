// ABNF computeTrafo / computeExpr: `compute(Amount div Quantity as UnitPrice)`.
import { freeze } from './freeze.js'
import type { CommonExpressionNode, ExpressionNode } from './expression-node.js'

export interface ComputeItemNode {
  readonly kind: 'ComputeItemNode'
  readonly position: number
  readonly expression: CommonExpressionNode
  readonly alias: string
}

export interface ComputeTransformationNode {
  readonly kind: 'ComputeTransformationNode'
  readonly position: number
  readonly items: readonly ComputeItemNode[]
}

export const ComputeItemNode = freeze({
  is(node: ExpressionNode): node is ComputeItemNode {
    return node.kind === 'ComputeItemNode'
  },

  create(expression: CommonExpressionNode, alias: string, position: number): ComputeItemNode {
    return freeze({ kind: 'ComputeItemNode', position, expression, alias })
  },
})

export const ComputeTransformationNode = freeze({
  is(node: ExpressionNode): node is ComputeTransformationNode {
    return node.kind === 'ComputeTransformationNode'
  },

  create(items: readonly ComputeItemNode[], position: number): ComputeTransformationNode {
    return freeze({ kind: 'ComputeTransformationNode', position, items: freeze(items) })
  },
})
