// The key a created object gets when its row names none: made from what the object *is*, never from where
// its row comes from (docs/loading.md, "Identity"). Two rows get the same key only when they describe the
// same object — the same natural key (a catalog item's `Code`, with its owner and parent when the row names
// them; a document's `Number` and `Date`; the properties of `--key`), or, for a row without one, the same
// values throughout — so the service refuses a second copy (service.md §4.4 rule 9) and the loader reports
// it `present`, however many files or runs bring it. A name-based UUID (version 5 layout over SHA-1), so two
// loaders agree without sharing state.
import { createHash } from 'node:crypto'
import { RowError } from './row-error.js'

/** The properties that name an object of `set` when the mapping gives no `key`. */
function naturalKeyProperties(set: string, body: Readonly<Record<string, unknown>>): string[] | undefined {
  if (set.startsWith('Catalog_') && body.Code !== undefined) return ['Code', 'Owner_Key', 'Parent_Key'].filter((p) => p in body)
  if (set.startsWith('Document_') && body.Number !== undefined && body.Date !== undefined) return ['Number', 'Date']
  return undefined
}

/** The object's key, from the mapped body (`Ref_Key` given by the row wins before this is asked). */
export function rowKey(set: string, body: Readonly<Record<string, unknown>>, keyProperties?: readonly string[]): string {
  if (keyProperties && keyProperties.length > 0) {
    const missing = keyProperties.filter((p) => body[p] === undefined || body[p] === '')
    if (missing.length > 0)
      throw new RowError('MissingKey', `the row has no ${missing.join(', ')}, which --key names as what identifies an object of ${set}`)
    return nameBasedUuid(
      set,
      'key',
      keyProperties,
      keyProperties.map((p) => body[p]),
    )
  }
  const natural = naturalKeyProperties(set, body)
  if (natural)
    return nameBasedUuid(
      set,
      'natural',
      natural,
      natural.map((p) => body[p]),
    )
  // No natural key: the object is its values, so the same row loaded twice is one object.
  return nameBasedUuid(set, 'values', [], [canonical(body)])
}

function nameBasedUuid(set: string, rule: string, properties: readonly string[], values: readonly unknown[]): string {
  const hash = createHash('sha1')
    .update(`odata-registers load\u0000${set}\u0000${rule}\u0000${JSON.stringify(properties)}\u0000${JSON.stringify(values)}`)
    .digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}

/** JSON with the members of every object in name order: the same values give the same text. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`
  if (value !== null && typeof value === 'object')
    return `{${Object.keys(value)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`)
      .join(',')}}`
  return JSON.stringify(value) ?? 'null'
}
