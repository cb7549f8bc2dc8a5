// A path segment casting to a derived type (ABNF optionallyQualifiedEntityTypeName in memberExpr):
// `Model.VipCustomer/Address`. Only namespace-qualified names are recognised as casts; an unqualified
// type name cannot be told from a property without the model and stays a PropertySegmentNode.
import { freeze } from './freeze.js'
import type { ExpressionNode } from './expression-node.js'

export interface TypeCastSegmentNode {
  readonly kind: 'TypeCastSegmentNode'
  readonly position: number
  /** Qualified type name, e.g. 'StandardODATA.Catalog_Products'. */
  readonly typeName: string
}

export const TypeCastSegmentNode = freeze({
  is(node: ExpressionNode): node is TypeCastSegmentNode {
    return node.kind === 'TypeCastSegmentNode'
  },

  create(typeName: string, position: number): TypeCastSegmentNode {
    return freeze({ kind: 'TypeCastSegmentNode', position, typeName })
  },
})
