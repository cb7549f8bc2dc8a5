// The key a created object gets, made by the loader from where its row comes from (the input's name and
// the row's number), so that a load run again, or resumed after a crash, sends the same key for the same
// row and the service refuses a second copy (service.md §4.4 rule 9). A name-based UUID (version 5
// layout over SHA-1), so two loaders agree without sharing state.
import { createHash } from 'node:crypto'

export function rowKey(source: string, row: number): string {
  const hash = createHash('sha1').update(`odata-registers load\u0000${source}\u0000${row}`).digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString('hex')
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20, 32)}`
}
