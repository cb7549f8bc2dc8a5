// ABNF methodCallExpr: a call of a canonical function, `contains(Description,'bolt')`. The parser has
// checked the name and the number of arguments; types are the binder's.
import { freeze } from './freeze.js'
import type { CanonicalFunctionName } from '../canonical-functions.js'
import type { CommonExpressionNode, ExpressionNode } from './expression-node.js'

export interface MethodCallNode {
  readonly kind: 'MethodCallNode'
  readonly position: number
  readonly name: CanonicalFunctionName
  readonly arguments: readonly CommonExpressionNode[]
}

export const MethodCallNode = freeze({
  is(node: ExpressionNode): node is MethodCallNode {
    return node.kind === 'MethodCallNode'
  },

  create(name: CanonicalFunctionName, args: readonly CommonExpressionNode[], position: number): MethodCallNode {
    return freeze({ kind: 'MethodCallNode', position, name, arguments: freeze(args) })
  },
})
