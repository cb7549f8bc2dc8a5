// ABNF parameterAlias: `@name`, whose value is another query option of the request; the resolver
// substitutes it before binding.
import { freeze } from './freeze.js'
import type { ExpressionNode } from './expression-node.js'

export interface ParameterAliasNode {
  readonly kind: 'ParameterAliasNode'
  readonly position: number
  /** The name without the '@'. */
  readonly name: string
}

export const ParameterAliasNode = freeze({
  is(node: ExpressionNode): node is ParameterAliasNode {
    return node.kind === 'ParameterAliasNode'
  },

  create(name: string, position: number): ParameterAliasNode {
    return freeze({ kind: 'ParameterAliasNode', position, name })
  },
})
