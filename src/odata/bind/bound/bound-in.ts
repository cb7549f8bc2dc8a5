// `Warehouse_Key in (…)`: the left value equals one of the items.
import type { BoundExpression } from './bound-expression.js'

export interface BoundIn {
  readonly kind: 'BoundIn'
  readonly type: 'Edm.Boolean'
  readonly left: BoundExpression
  readonly items: readonly BoundExpression[]
}

export const BoundIn = Object.freeze({
  create(left: BoundExpression, items: readonly BoundExpression[]): BoundIn {
    return Object.freeze({ kind: 'BoundIn', type: 'Edm.Boolean', left, items: Object.freeze([...items]) })
  },
})
