// ABNF anyExpr / allExpr: the last segment of a collection path, `Goods/any(g: g/Quantity gt 5)`.
// `any()` without a variable asks whether the collection is not empty.
import { freeze } from './freeze.js'
import type { CommonExpressionNode, ExpressionNode } from './expression-node.js'

export type LambdaOperator = 'any' | 'all'

export interface LambdaNode {
  readonly kind: 'LambdaNode'
  readonly position: number
  readonly operator: LambdaOperator
  /** Null only for `any()`. */
  readonly variable: string | null
  /** Null only for `any()`. */
  readonly predicate: CommonExpressionNode | null
}

export const LambdaNode = freeze({
  is(node: ExpressionNode): node is LambdaNode {
    return node.kind === 'LambdaNode'
  },

  create(operator: LambdaOperator, variable: string | null, predicate: CommonExpressionNode | null, position: number): LambdaNode {
    return freeze({ kind: 'LambdaNode', position, operator, variable, predicate })
  },
})
