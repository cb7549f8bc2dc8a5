// A canonical function whose argument types the binder has checked (function-signatures.ts).
import type { CanonicalFunctionName } from '../../expression/index.js'
import type { BoundType } from '../bound-type.js'
import type { BoundExpression } from './bound-expression.js'

export interface BoundFunctionCall {
  readonly kind: 'BoundFunctionCall'
  readonly type: BoundType
  readonly name: CanonicalFunctionName
  readonly arguments: readonly BoundExpression[]
}

export const BoundFunctionCall = Object.freeze({
  create(name: CanonicalFunctionName, args: readonly BoundExpression[], type: BoundType): BoundFunctionCall {
    return Object.freeze({ kind: 'BoundFunctionCall', type, name, arguments: Object.freeze([...args]) })
  },
})
