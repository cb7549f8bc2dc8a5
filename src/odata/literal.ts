// Literals in keys and function parameters, in both the OData 4.01 forms and the reference system's
// forms (decisions.md §2): `guid'…'` and bare GUIDs, `datetime'…'` and bare date-times (with or without
// offset), strings in single quotes with '' for a quote, integers, decimals, booleans.
//
// Values are converted to what the store holds: GUIDs lowercase, date-times as 'YYYY-MM-DD HH:MM:SS' in
// UTC, decimals as canonical strings. A malformed literal is `400 InvalidLiteral`.
import { ODataError } from '../errors.js'
import type { EdmPrimitiveType } from '../model/model.js'

const GUID = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:T(\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,12}))?)?)?(Z|[+-]\d{2}:\d{2})?$/
const INTEGER = /^[+-]?\d{1,10}$/
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/

export type LiteralValue = string | number | boolean | null

export function isGuid(text: string): boolean {
  return GUID.test(text)
}

/** `'it''s'` → `it's`; undefined when the text is not one quoted string. */
export function unquoteString(text: string): string | undefined {
  if (text.length < 2 || text[0] !== "'" || text[text.length - 1] !== "'") return undefined
  const inner = text.slice(1, -1)
  // Every quote inside must be doubled: a lone one would end the string early.
  for (let i = 0; i < inner.length; i++) {
    if (inner.charCodeAt(i) === 39 /* ' */) {
      if (inner.charCodeAt(i + 1) !== 39) return undefined
      i++
    }
  }
  return inner.replaceAll("''", "'")
}

/** Strips a `prefix'…'` wrapper (`guid`, `datetime`), case-insensitively, as the reference system writes it. */
function unwrap(text: string, prefix: string): string | undefined {
  if (
    text.length > prefix.length + 2 &&
    text.slice(0, prefix.length).toLowerCase() === prefix &&
    text[prefix.length] === "'" &&
    text.endsWith("'")
  ) {
    return text.slice(prefix.length + 1, -1)
  }
  return undefined
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/**
 * Parses an ISO 8601 date-time (or date) into the store's UTC form 'YYYY-MM-DD HH:MM:SS'.
 * Input without an offset is UTC (decisions.md §3); fractions of a second are dropped.
 */
export function parseDateTime(text: string): string | undefined {
  const match = DATE_TIME.exec(text)
  if (!match) return undefined
  const [, y, mo, d, h = '00', mi = '00', s = '00', , offset] = match
  const year = Number(y),
    month = Number(mo),
    day = Number(d),
    hour = Number(h),
    minute = Number(mi),
    second = Number(s)
  if (month < 1 || month > 12 || day < 1 || hour > 23 || minute > 59 || second > 59) return undefined
  const daysInMonth = new Date(Date.UTC(year, month, 0)).getUTCDate()
  if (day > daysInMonth) return undefined
  let millis = Date.UTC(year, month - 1, day, hour, minute, second)
  if (year < 100) millis = new Date(millis).setUTCFullYear(year)
  if (offset && offset !== 'Z') {
    const sign = offset[0] === '-' ? -1 : 1
    const offsetHours = Number(offset.slice(1, 3)),
      offsetMinutes = Number(offset.slice(4, 6))
    if (offsetHours > 23 || offsetMinutes > 59) return undefined
    millis -= sign * (offsetHours * 60 + offsetMinutes) * 60_000
  }
  const date = new Date(millis)
  const utcYear = date.getUTCFullYear()
  if (utcYear < 1 || utcYear > 9999) return undefined
  return `${pad(utcYear, 4)}-${pad(date.getUTCMonth() + 1)}-${pad(date.getUTCDate())} ${pad(date.getUTCHours())}:${pad(date.getUTCMinutes())}:${pad(date.getUTCSeconds())}`
}

function invalid(text: string, type: string, target?: string): ODataError {
  const shown = text.length > 60 ? `${text.slice(0, 60)}…` : text
  return new ODataError('InvalidLiteral', `${JSON.stringify(shown)} is not a valid ${type} literal`, target === undefined ? {} : { target })
}

/**
 * Converts a literal written in a URL (key predicate, function parameter) to the stored value of a
 * property of the given type. `target` names where it came from, for the error.
 */
export function parseLiteral(text: string, type: EdmPrimitiveType, target?: string): LiteralValue {
  if (text === 'null') return null
  switch (type) {
    case 'Edm.Guid': {
      const inner = unwrap(text, 'guid') ?? unquoteString(text) ?? text
      if (!GUID.test(inner)) throw invalid(text, 'Edm.Guid', target)
      return inner.toLowerCase()
    }
    case 'Edm.DateTimeOffset': {
      const inner = unwrap(text, 'datetimeoffset') ?? unwrap(text, 'datetime') ?? unquoteString(text) ?? text
      const value = parseDateTime(inner)
      if (value === undefined) throw invalid(text, 'Edm.DateTimeOffset', target)
      return value
    }
    case 'Edm.String': {
      const value = unquoteString(text)
      if (value === undefined) throw invalid(text, 'Edm.String', target)
      return value
    }
    case 'Edm.Boolean':
      if (text === 'true') return true
      if (text === 'false') return false
      throw invalid(text, 'Edm.Boolean', target)
    case 'Edm.Int32':
    case 'Edm.Int64': {
      if (!INTEGER.test(text) && !(type === 'Edm.Int64' && /^[+-]?\d{1,19}$/.test(text))) throw invalid(text, type, target)
      const value = Number(text)
      if (type === 'Edm.Int32' && (value < -2147483648 || value > 2147483647)) throw invalid(text, type, target)
      return type === 'Edm.Int64' ? String(BigInt(text)) : value
    }
    case 'Edm.Decimal': {
      const inner = text.replace(/[mMdD]$/, '')
      if (!DECIMAL.test(inner) || inner.length > 60) throw invalid(text, 'Edm.Decimal', target)
      return inner
    }
  }
}
