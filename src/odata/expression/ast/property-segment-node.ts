// A path segment naming a property: structural, navigation or collection; the binder finds out which.
import { freeze } from './freeze.js'
import type { ExpressionNode } from './expression-node.js'

export interface PropertySegmentNode {
  readonly kind: 'PropertySegmentNode'
  readonly position: number
  readonly name: string
}

export const PropertySegmentNode = freeze({
  is(node: ExpressionNode): node is PropertySegmentNode {
    return node.kind === 'PropertySegmentNode'
  },

  create(name: string, position: number): PropertySegmentNode {
    return freeze({ kind: 'PropertySegmentNode', position, name })
  },
})
