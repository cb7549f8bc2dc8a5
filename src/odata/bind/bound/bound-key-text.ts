// A row's key as one text, for matching many keys at once (src/service/read/change-tracking.ts): the key
// columns' texts joined by `|`, each string column preceded by its length in characters, so that no two
// keys share a text whatever their strings hold; the compiler makes it bytes. Not an OData expression:
// the service builds it, a client cannot write it.
import type { BoundProperty } from './bound-property.js'

export interface BoundKeyText {
  readonly kind: 'BoundKeyText'
  readonly type: 'Edm.String'
  /** GUID, string and integer columns: their SQL text is the value's text. */
  readonly parts: readonly BoundProperty[]
}

export const BoundKeyText = Object.freeze({
  create(parts: readonly BoundProperty[]): BoundKeyText {
    return Object.freeze({ kind: 'BoundKeyText', type: 'Edm.String', parts: Object.freeze([...parts]) })
  },
  /** The same text of one key's values (in the parts' order), as a note holds them. */
  of(parts: readonly BoundProperty[], values: readonly string[]): string {
    return values.map((value, i) => (parts[i]!.type === 'Edm.String' ? `${[...value].length}|${value}` : value)).join('|')
  },
})
