// ABNF firstMemberExpr: a path of segments, relative to the current instance or to a variable.
// `Product/Description`, `$it/Completed`, `g/Quantity` inside `any(g: …)`, `Goods/$count`.
// The parser cannot tell properties from navigation properties (that needs the model): every plain
// name is a PropertySegmentNode and the binder decides what it is.
import { freeze } from './freeze.js'
import type { ExpressionNode, PathSegmentNode } from './expression-node.js'

/**
 * What the first segment is relative to (ABNF inscopeVariableExpr):
 * - 'implicit': the instance the option applies to (`Name eq 'x'`);
 * - '$it', '$this': the implicit variables, written out;
 * - 'lambda': the variable of an enclosing `any`/`all`, named in `variable`.
 */
export type PathScope = 'implicit' | '$it' | '$this' | 'lambda'

export interface MemberPathNode {
  readonly kind: 'MemberPathNode'
  readonly position: number
  readonly scope: PathScope
  /** The lambda variable when scope is 'lambda', else null. */
  readonly variable: string | null
  /** May be empty for a bare variable (`$it`, `g`). */
  readonly segments: readonly PathSegmentNode[]
}

export const MemberPathNode = freeze({
  is(node: ExpressionNode): node is MemberPathNode {
    return node.kind === 'MemberPathNode'
  },

  create(scope: PathScope, variable: string | null, segments: readonly PathSegmentNode[], position: number): MemberPathNode {
    return freeze({ kind: 'MemberPathNode', position, scope, variable, segments: freeze(segments) })
  },
})
