// DataVersion (the ETag of catalog items and documents) changes on every write. It is 8 random bytes in
// base64 — the shape of the reference system's versions (`AAAAAgAAAAA=`) — rather than a counter: it
// needs no read of the old value, and a document deleted and created again with the same Ref_Key can
// never bring back a version an old ETag still names. (The seed data starts every entity at '1'.)
import { randomBytes } from 'node:crypto'

export function newDataVersion(): string {
  return randomBytes(8).toString('base64')
}
