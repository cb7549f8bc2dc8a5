// Idempotent retries (decisions.md §5; OASIS Repeatable Requests 1.0): a write carrying
// `Repeatability-Request-ID` (and `Repeatability-First-Sent`) has its first response kept in MySQL
// (`_repeatability`) for 24 hours, per subject and id. A repeat gets that response again, with
// `Repeatability-Result: accepted`, and the operation does not run a second time.
// - The response of a successful write is stored in the write's own transaction: either both the
//   effects and the stored response commit, or neither does.
// - Two copies of one request at once: the second one's INSERT waits on the first one's row lock and
//   then finds the key taken; its transaction rolls back and it answers with the stored response.
// - A refused write (4xx) is stored too (after its rollback), so a repeat gets the same answer; a 5xx is
//   not, so a retry after a server failure runs again.
// - A repeat whose method, target or body differs from the stored request: 400, `Repeatability-Result:
//   rejected`; so are a malformed id or First-Sent; a First-Sent older than the 24 hours a response is
//   kept: 412 rejected, since the service can no longer tell whether the request ran.
import { createHash } from 'node:crypto'
import { ODataError } from '../../errors.js'
import type { ResourcePath } from '../../odata/resource-path.js'
import { sql, type Statement } from '../../sql/sql-template.js'
import type { Pool } from '../../store/pool.js'
import { type Database, databaseOf } from '../../store/database.js'
import { isDuplicateKey, type Transaction } from '../../store/transaction.js'
import type { ServiceRequest } from '../service-request.js'
import type { WriteResult } from './write-result.js'

export const RETENTION_HOURS = 24
const REJECTED = { 'Repeatability-Result': 'rejected' }
const ACCEPTED = { 'Repeatability-Result': 'accepted' }

export interface RepeatabilityKey {
  readonly subject: string
  readonly requestId: string
  /** What the request was (method, target, body), so a different request under the same id is refused. */
  readonly fingerprint: string
}

/** Raised inside a transaction when a concurrent copy of the request stored its response first. */
export class RepeatedConcurrently extends Error {
  constructor() {
    super('a concurrent copy of this repeatable request stored its response first')
  }
}

function describeTarget(path: ResourcePath): string {
  switch (path.kind) {
    case 'collection':
      return path.set.name
    case 'entity':
    case 'navigation':
      return `${path.set.name}${JSON.stringify([...path.key])}`
    case 'action':
      return `${path.set.name}${JSON.stringify([...path.key])}/${path.action.name}`
    case 'function':
      return `${path.set.name}/${path.function.name}`
    default:
      return path.kind
  }
}

function rejected(code: 'BadRequest' | 'PreconditionFailed', message: string, target: string): ODataError {
  return new ODataError(code, message, { target, headers: REJECTED })
}

/** The repeatability key of a request, undefined without `Repeatability-Request-ID`; malformed headers are refused. */
export function repeatabilityKey(request: ServiceRequest, now = Date.now()): RepeatabilityKey | undefined {
  const requestId = request.headers.get('repeatability-request-id')
  if (requestId === undefined) return undefined
  if (!/^[\x21-\x7e]{1,200}$/.test(requestId))
    throw rejected('BadRequest', 'Repeatability-Request-ID must be 1 to 200 visible ASCII characters', 'Repeatability-Request-ID')
  const firstSent = request.headers.get('repeatability-first-sent')
  if (firstSent !== undefined) {
    const millis = /^[A-Z][a-z]{2}, \d{2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2} GMT$/.test(firstSent.trim()) ? Date.parse(firstSent) : NaN
    if (Number.isNaN(millis))
      throw rejected(
        'BadRequest',
        'Repeatability-First-Sent must be an HTTP date (IMF-fixdate, e.g. "Sun, 06 Nov 1994 08:49:37 GMT")',
        'Repeatability-First-Sent',
      )
    if (now - millis > RETENTION_HOURS * 3_600_000) {
      throw rejected(
        'PreconditionFailed',
        `Repeatability-First-Sent is more than ${RETENTION_HOURS} hours ago: the service keeps responses that long and cannot tell whether the request ran`,
        'Repeatability-First-Sent',
      )
    }
  }
  const hash = createHash('sha256').update(`${request.method} ${describeTarget(request.path)}\n`)
  if (request.body) hash.update(request.body)
  return { subject: request.subject.name, requestId, fingerprint: hash.digest('base64') }
}

interface StoredRow {
  readonly status: number
  readonly headers: string
  readonly body: Buffer
}

/** Kept responses are answered for this long (decisions.md: 24 hours). */
const RETAINED = sql`UTC_TIMESTAMP() - INTERVAL ${RETENTION_HOURS} HOUR`

/** The stored response of this (subject, id) if one is kept, ready to replay; `400` when it was another request. */
export async function storedResponse(source: Database, key: RepeatabilityKey): Promise<WriteResult | undefined> {
  const [row] = await source.rows<StoredRow>(
    sql`SELECT status, headers, body FROM _repeatability WHERE subject = ${key.subject} AND request_id = ${key.requestId} AND created_at >= ${RETAINED}`,
  )
  if (!row) return undefined
  const stored = JSON.parse(row.headers) as { fingerprint: string; headers: Record<string, string> }
  if (stored.fingerprint !== key.fingerprint) {
    throw rejected(
      'BadRequest',
      'This Repeatability-Request-ID was used for another request (method, address or body differ)',
      'Repeatability-Request-ID',
    )
  }
  const body = Buffer.from(row.body)
  return {
    status: Number(row.status),
    headers: { ...stored.headers, ...ACCEPTED },
    ...(body.length > 0 ? { body: body.toString('utf8') } : {}),
  }
}

function insertResponse(key: RepeatabilityKey, result: WriteResult): Statement {
  const headers = JSON.stringify({ fingerprint: key.fingerprint, headers: result.headers })
  const body = Buffer.from(result.body ?? '', 'utf8')
  return sql`INSERT INTO _repeatability (subject, request_id, created_at, status, headers, body) VALUES (${key.subject}, ${key.requestId}, UTC_TIMESTAMP(), ${result.status}, ${headers}, ${body})`
}

function deleteExpired(key: RepeatabilityKey): Statement {
  return sql`DELETE FROM _repeatability WHERE subject = ${key.subject} AND request_id = ${key.requestId} AND created_at < ${RETAINED}`
}

/**
 * Stores the response inside the write's transaction. An expired record of the same id is replaced;
 * a live one (a concurrent copy that committed first) raises RepeatedConcurrently, which rolls the
 * write back.
 */
export async function storeResponse(transaction: Transaction, key: RepeatabilityKey, result: WriteResult): Promise<void> {
  await transaction.run(deleteExpired(key))
  try {
    await transaction.run(insertResponse(key, result))
  } catch (error) {
    if (isDuplicateKey(error)) throw new RepeatedConcurrently()
    throw error
  }
}

/** Stores a refused write's answer on its own (its transaction is gone); a concurrent copy's record wins. */
export async function storeRefusal(pool: Pool, key: RepeatabilityKey, result: WriteResult): Promise<void> {
  try {
    await databaseOf(pool).run(deleteExpired(key))
    await databaseOf(pool).run(insertResponse(key, result))
  } catch (error) {
    if (!isDuplicateKey(error)) throw error
  }
}

/** Drops responses older than the retention, a bounded number at a time. */
export async function purgeExpiredResponses(pool: Pool): Promise<void> {
  await databaseOf(pool).run(sql`DELETE FROM _repeatability WHERE created_at < ${RETAINED} ORDER BY created_at LIMIT 1000`)
}

export function withAccepted(result: WriteResult): WriteResult {
  return { ...result, headers: { ...result.headers, ...ACCEPTED } }
}
