// DataVersion (the ETag of catalog items and documents) changes on every write. It is 8 random bytes in
// base64 — the shape of the reference system's versions (`AAAAAgAAAAA=`) — rather than a counter: it
// needs no read of the old value, and a document deleted and created again with the same Ref_Key can
// never bring back a version an old ETag still names. (The seed data starts every entity at '1'.)
// The bytes come from a pool filled by one randomFillSync per 512 versions (as randomUUID keeps its own):
// a call into the system's random source for every 8 bytes cost more than the rest of the version.
import { randomFillSync } from 'node:crypto'

const POOL_BYTES = 8 * 512
const pool = Buffer.allocUnsafe(POOL_BYTES)
let offset = POOL_BYTES

export function newDataVersion(): string {
  if (offset === POOL_BYTES) {
    randomFillSync(pool)
    offset = 0
  }
  const version = pool.toString('base64', offset, offset + 8)
  offset += 8
  return version
}
