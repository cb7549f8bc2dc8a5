// The `$deltatoken` of change tracking (docs/change-tracking.md): what a delta link names — its set, the
// options that define its rows, the subject it was issued to, and its position in the change record —
// signed with the database's secret (`_service_state`, made by migrate), so every process of the service
// accepts it and nobody can alter it: not move it to another set or other options, not hand it to
// another subject, not set its position.
//
// Two phases share the format:
// - `read`: carried by the next links of the first read, so that its last page can hand out the delta
//   link of the position taken before its first page;
// - `delta`: the delta link itself (`from`), and the next links of a delta being paged, which also carry
//   the end of the stretch being paged (`upTo`), the last key already shown (`after`, `seq.index`), and,
//   when the delta is longer than that stretch, the low-water mark it stops at (`mark`).
//
// Format: base64url(JSON).base64url(HMAC-SHA256). The JSON is readable but means nothing to a client.
import { createHmac, timingSafeEqual } from 'node:crypto'
import { ODataError } from '../../errors.js'
import type { EntitySetModel } from '../../model/model.js'
import { linkSecret } from '../../store/change-feed.js'
import type { Pool } from '../../store/pool.js'
import type { ServiceRequest } from '../service-request.js'

export interface DeltaPosition {
  readonly phase: 'read' | 'delta'
  /** Changes after this position are the delta's. */
  readonly from: string
  /** While a delta is paged: the position it stops at. */
  readonly upTo?: string
  /** While a delta is paged: the last key already shown (`seq.index`, a note and a key's place in it). */
  readonly after?: string
  /** A delta longer than one stretch: the mark it stops at, above `upTo` (the end of the current stretch). */
  readonly mark?: string
}

interface SignedPayload extends DeltaPosition {
  readonly set: string
  readonly subject: string
  readonly options: string
}

/** The options that define a tracked read's rows, as the token binds them. */
export const DEFINING_OPTIONS = ['$filter', '$select'] as const

const secrets = new WeakMap<Pool, Promise<Buffer>>()
const POSITION = /^\d{1,20}$/
/** `after` may name a key inside a note: `seq.index`. */
const KEY_POSITION = /^\d{1,20}(?:\.\d{1,9})?$/
const MAX_TOKEN_LENGTH = 4096

function secretOf(pool: Pool): Promise<Buffer> {
  let secret = secrets.get(pool)
  if (!secret) {
    secret = linkSecret(pool)
    secret.catch(() => secrets.delete(pool))
    secrets.set(pool, secret)
  }
  return secret
}

function definingOptions(request: ServiceRequest): string {
  return JSON.stringify(DEFINING_OPTIONS.map((name) => request.query.system.get(name) ?? null))
}

function mac(secret: Buffer, text: string): Buffer {
  return createHmac('sha256', secret).update(text).digest()
}

export async function encodeDeltaToken(pool: Pool, request: ServiceRequest, set: EntitySetModel, position: DeltaPosition): Promise<string> {
  const payload: SignedPayload = { ...position, set: set.name, subject: request.subject.name, options: definingOptions(request) }
  const text = Buffer.from(JSON.stringify(payload), 'utf8').toString('base64url')
  return `${text}.${mac(await secretOf(pool), text).toString('base64url')}`
}

const gone = (why: string) =>
  new ODataError(
    'DeltaLinkGone',
    `The delta link is not one this service can follow: ${why}; read the set again with Prefer: odata.track-changes`,
    {
      target: '$deltatoken',
    },
  )

const mismatch = (why: string) =>
  new ODataError('InvalidDeltaLink', `The delta link does not belong here: ${why}`, { target: '$deltatoken' })

/**
 * The position a token names, after checking that this database signed it and that it is used as
 * issued: 410 for a token it did not sign (or that was altered), 400 for one moved elsewhere.
 */
export async function decodeDeltaToken(pool: Pool, request: ServiceRequest, set: EntitySetModel, token: string): Promise<DeltaPosition> {
  const dot = token.indexOf('.')
  if (token.length > MAX_TOKEN_LENGTH || dot < 0 || !/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/.test(token)) throw gone('it is malformed')
  const text = token.slice(0, dot)
  const given = Buffer.from(token.slice(dot + 1), 'base64url')
  const expected = mac(await secretOf(pool), text)
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    throw gone('its signature does not verify (altered, or from another database)')
  let payload: SignedPayload
  try {
    payload = JSON.parse(Buffer.from(text, 'base64url').toString('utf8')) as SignedPayload
  } catch {
    throw gone('it does not decode')
  }
  if (payload.set !== set.name) throw mismatch(`it was issued for ${payload.set}, not ${set.name}`)
  if (payload.subject !== request.subject.name) throw mismatch('it was issued to another subject')
  if (payload.options !== definingOptions(request)) throw mismatch('$filter or $select differ from those it was issued with')
  const positions = [payload.from, payload.upTo, payload.mark].filter((p) => p !== undefined)
  if (
    (payload.phase !== 'read' && payload.phase !== 'delta') ||
    !positions.every((p) => typeof p === 'string' && POSITION.test(p)) ||
    (payload.after !== undefined && (typeof payload.after !== 'string' || !KEY_POSITION.test(payload.after)))
  )
    throw gone('it has the wrong shape')
  return {
    phase: payload.phase,
    from: payload.from,
    ...(payload.upTo === undefined ? {} : { upTo: payload.upTo }),
    ...(payload.after === undefined ? {} : { after: payload.after }),
    ...(payload.mark === undefined ? {} : { mark: payload.mark }),
  }
}
