// A constant already converted to the form the store compares with: GUIDs lowercase, date-times as
// 'YYYY-MM-DD HH:MM:SS[.ffffff]' in UTC, decimals and Int64 as exact text. It always becomes a `?`
// parameter; the compiler may wrap the placeholder in a CAST so MySQL compares exactly (decimals).
import type { BoundType } from '../bound-type.js'

export type BoundLiteralValue = string | number | boolean | null

export interface BoundLiteral {
  readonly kind: 'BoundLiteral'
  readonly type: BoundType
  readonly value: BoundLiteralValue
}

export const BoundLiteral = Object.freeze({
  create(type: BoundType, value: BoundLiteralValue): BoundLiteral {
    return Object.freeze({ kind: 'BoundLiteral', type, value })
  },
  NULL: Object.freeze({ kind: 'BoundLiteral', type: 'Null', value: null }) as BoundLiteral,
  TRUE: Object.freeze({ kind: 'BoundLiteral', type: 'Edm.Boolean', value: true }) as BoundLiteral,
  FALSE: Object.freeze({ kind: 'BoundLiteral', type: 'Edm.Boolean', value: false }) as BoundLiteral,
})
