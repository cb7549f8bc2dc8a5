// The `$skiptoken` of server-driven paging: the order values and key of the last row of a page, so the
// next page starts right after it with an index seek (keyset paging) instead of skipping rows — page
// 1,000 of an export costs what page 1 costs.
//
// Format: base64url of the JSON array [fingerprint, value…]. The fingerprint is a hash of what the
// values mean (set, $apply, $orderby): a token taken to another query is refused. Values are the stored
// forms (GUID text, 'YYYY-MM-DD HH:MM:SS', decimal text, numbers, null). On the way back each value is
// checked against the type of its order item; whatever passes becomes a `?` parameter like any
// literal, so a forged token can only be refused (400 InvalidSkipToken) or read a page, never reach
// the SQL text.
import { ODataError } from '../../errors.js'
import { BoundLiteral, type BoundOrderItem, type BoundType } from '../../odata/bind/index.js'

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const STORED_DATE_TIME = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}(?:\.\d{1,6})?$/
const STORED_DATE = /^\d{4}-\d{2}-\d{2}$/
const STORED_TIME = /^-?\d{2,3}:\d{2}:\d{2}(?:\.\d{1,6})?$/
const DECIMAL = /^-?\d{1,35}(?:\.\d{1,30})?$/
const INT64 = /^-?\d{1,19}$/
/** Longer than any string column of the model (MEDIUMTEXT aside), short enough to bound the work. */
const MAX_TOKEN_LENGTH = 16_384

/** FNV-1a, 32 bits, as 8 hex digits: not a secret, only a guard against tokens of another query. */
export function fingerprint(text: string): string {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0).toString(16).padStart(8, '0')
}

export function encodeSkipToken(signature: string, values: readonly unknown[]): string {
  return Buffer.from(JSON.stringify([fingerprint(signature), ...values]), 'utf8').toString('base64url')
}

function invalid(why: string): ODataError {
  return new ODataError('InvalidSkipToken', `$skiptoken is not one this service issued for this query: ${why}`, { target: '$skiptoken' })
}

/** The literals of the last row of the previous page, one per order item; 400 when the token does not fit. */
export function decodeSkipToken(token: string, signature: string, order: readonly BoundOrderItem[]): BoundLiteral[] {
  if (token.length > MAX_TOKEN_LENGTH || !/^[A-Za-z0-9_-]+$/.test(token)) throw invalid('it is not base64url text of a sensible length')
  let decoded: unknown
  try {
    decoded = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'))
  } catch {
    throw invalid('it does not decode')
  }
  if (!Array.isArray(decoded) || decoded.length !== order.length + 1) throw invalid('it has the wrong shape')
  if (decoded[0] !== fingerprint(signature)) throw invalid('it belongs to another query (set, $apply or $orderby differ)')
  return order.map((item, i) => literalOf(decoded[i + 1], item.expression.type))
}

function literalOf(value: unknown, type: BoundType): BoundLiteral {
  if (value === null) return BoundLiteral.NULL
  const text = typeof value === 'string' ? value : undefined
  const number = typeof value === 'number' && Number.isFinite(value) ? value : undefined
  switch (type) {
    case 'Edm.Boolean':
      if (value === 0 || value === 1 || value === '0' || value === '1' || typeof value === 'boolean')
        return BoundLiteral.create(type, value === true || value === 1 || value === '1')
      break
    case 'Edm.Int32':
      if (number !== undefined && Number.isInteger(number) && Math.abs(number) <= 2147483648) return BoundLiteral.create(type, number)
      break
    case 'Edm.Int64':
      if (number !== undefined && Number.isSafeInteger(number)) return BoundLiteral.create(type, String(number))
      if (text !== undefined && INT64.test(text)) return BoundLiteral.create(type, text)
      break
    case 'Edm.Decimal':
    case 'Edm.Duration':
      if (number !== undefined) return BoundLiteral.create('Edm.Decimal', String(number))
      if (text !== undefined && DECIMAL.test(text)) return BoundLiteral.create('Edm.Decimal', text)
      break
    case 'Edm.Double':
      if (number !== undefined) return BoundLiteral.create(type, number)
      break
    case 'Edm.String':
      if (text !== undefined) return BoundLiteral.create(type, text)
      break
    case 'Edm.Guid':
      if (text !== undefined && GUID.test(text)) return BoundLiteral.create(type, text)
      break
    case 'Edm.DateTimeOffset':
      if (text !== undefined && STORED_DATE_TIME.test(text)) return BoundLiteral.create(type, text)
      break
    case 'Edm.Date':
      if (text !== undefined && STORED_DATE.test(text)) return BoundLiteral.create(type, text)
      break
    case 'Edm.TimeOfDay':
      if (text !== undefined && STORED_TIME.test(text)) return BoundLiteral.create(type, text)
      break
    case 'Null':
      break
  }
  throw invalid(`a value does not fit its ${type} order item`)
}
