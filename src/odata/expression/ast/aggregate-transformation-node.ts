// ABNF aggregateTrafo: `aggregate(Amount with sum as Total, $count as Rows, Product with countdistinct as Products)`.
// Two kinds of item: an expression aggregated with a method (aggregatableExpW asAlias), and a count
// (aggregateCount asAlias). Custom aggregates and `from` are not supported (the parser refuses them).
import { freeze } from './freeze.js'
import type { CommonExpressionNode, ExpressionNode } from './expression-node.js'
import type { MemberPathNode } from './member-path-node.js'

/** ABNF aggregateMethod, without custom (namespace-qualified) methods. */
export type AggregateMethod = 'sum' | 'min' | 'max' | 'average' | 'countdistinct'

export interface AggregateExpressionNode {
  readonly kind: 'AggregateExpressionNode'
  readonly position: number
  readonly expression: CommonExpressionNode
  readonly method: AggregateMethod
  readonly alias: string
}

/** `$count as Alias` (path null: the input set) or `Goods/$count as Alias` (path: the counted collection). */
export interface AggregateCountNode {
  readonly kind: 'AggregateCountNode'
  readonly position: number
  readonly path: MemberPathNode | null
  readonly alias: string
}

export type AggregateItemNode = AggregateExpressionNode | AggregateCountNode

export interface AggregateTransformationNode {
  readonly kind: 'AggregateTransformationNode'
  readonly position: number
  readonly items: readonly AggregateItemNode[]
}

export const AggregateExpressionNode = freeze({
  is(node: ExpressionNode): node is AggregateExpressionNode {
    return node.kind === 'AggregateExpressionNode'
  },

  create(expression: CommonExpressionNode, method: AggregateMethod, alias: string, position: number): AggregateExpressionNode {
    return freeze({ kind: 'AggregateExpressionNode', position, expression, method, alias })
  },
})

export const AggregateCountNode = freeze({
  is(node: ExpressionNode): node is AggregateCountNode {
    return node.kind === 'AggregateCountNode'
  },

  create(path: MemberPathNode | null, alias: string, position: number): AggregateCountNode {
    return freeze({ kind: 'AggregateCountNode', position, path, alias })
  },
})

export const AggregateTransformationNode = freeze({
  is(node: ExpressionNode): node is AggregateTransformationNode {
    return node.kind === 'AggregateTransformationNode'
  },

  create(items: readonly AggregateItemNode[], position: number): AggregateTransformationNode {
    return freeze({ kind: 'AggregateTransformationNode', position, items: freeze(items) })
  },
})
