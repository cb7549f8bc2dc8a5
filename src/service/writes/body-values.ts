// JSON values of a request body → the stored form of a property (decisions.md §3), checked against the
// model before any SQL runs: a wrong type, a string longer than its length, a number with more digits
// than the column's precision or scale, a malformed GUID or date-time is `400 InvalidValue` with
// `target` naming the property. Stored forms are those the pool delivers on read, so a response built
// from converted values looks exactly like a later GET: GUIDs lowercase, decimals as fixed-scale
// strings, date-times as 'YYYY-MM-DD HH:MM:SS' in UTC, booleans as 1/0.
import { ODataError } from '../../errors.js'
import type { PropertyModel } from '../../model/model.js'
import { EMPTY_GUID } from '../../model/model.js'
import { isGuid, parseDateTime } from '../../odata/literal.js'

export function invalidValue(target: string, message: string): ODataError {
  return new ODataError('InvalidValue', `${target}: ${message}`, { target })
}

const describe = (value: unknown) =>
  value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'object' ? 'an object' : JSON.stringify(value).slice(0, 60)

/** Characters as MySQL counts them (code points), without walking strings that are short enough in UTF-16 units. */
function codePointLength(text: string, limit: number): number {
  if (text.length <= limit) return text.length
  let count = 0
  for (let i = 0; i < text.length; i++) {
    const unit = text.charCodeAt(i)
    if (unit >= 0xd800 && unit <= 0xdbff && i + 1 < text.length) i++
    count++
  }
  return count
}

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/

const DECIMAL_TEXT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d{1,4}))?$/

/**
 * A decimal number (JSON number or string, as IEEE754Compatible clients send it) → its fixed-scale text,
 * refused when it needs more integer digits than precision − scale or more fraction digits than scale
 * (trailing zeros do not count). JSON numbers arrive through a double; with up to 15 significant digits
 * (every demo column) their shortest text is exactly what the client wrote; wider columns take strings.
 */
export function decimalText(value: unknown, precision: number, scale: number, target: string): string {
  let text: string
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw invalidValue(target, `${describe(value)} is not a decimal number`)
    text = String(value)
  } else if (typeof value === 'string') {
    text = value.trim()
  } else {
    throw invalidValue(target, `expected a decimal number, got ${describe(value)}`)
  }
  const match = DECIMAL_TEXT.exec(text)
  if (!match || (match[2] === '' && (match[3] ?? '') === '') || text.length > 80)
    throw invalidValue(target, `${describe(value)} is not a decimal number`)
  const [, sign, integerDigits, fractionDigits = '', exponentText] = match
  // Shift the decimal point by the exponent over the digit string.
  let digits = integerDigits! + fractionDigits
  let point = integerDigits!.length + Number(exponentText ?? 0)
  if (point < 0) {
    digits = '0'.repeat(-point) + digits
    point = 0
  }
  if (point > digits.length) digits += '0'.repeat(point - digits.length)
  const integerPart = digits.slice(0, point).replace(/^0+/, '')
  const fractionPart = digits.slice(point).replace(/0+$/, '')
  if (integerPart.length > precision - scale)
    throw invalidValue(
      target,
      `${describe(value)} has more than ${precision - scale} digits before the decimal point (Edm.Decimal(${precision},${scale}))`,
    )
  if (fractionPart.length > scale)
    throw invalidValue(
      target,
      `${describe(value)} has more than ${scale} digits after the decimal point (Edm.Decimal(${precision},${scale}))`,
    )
  const zero = integerPart === '' && fractionPart === ''
  const fixed = (integerPart || '0') + (scale > 0 ? `.${fractionPart.padEnd(scale, '0')}` : '')
  return (sign === '-' && !zero ? '-' : '') + fixed
}

/**
 * Converts one JSON value to the stored value of `property`. `target` is the name reported in an error
 * (`Quantity`, `Goods/2/Quantity`). Null is accepted only for references, where it is the empty reference.
 */
export function storedValue(property: PropertyModel, value: unknown, target: string): unknown {
  const storage = property.storage
  if (value === null) {
    if (property.reference && storage.kind === 'guid') return EMPTY_GUID
    throw invalidValue(target, 'is not nullable')
  }
  switch (storage.kind) {
    case 'guid':
      if (typeof value !== 'string' || !isGuid(value)) throw invalidValue(target, `expected a GUID, got ${describe(value)}`)
      return value.toLowerCase()
    case 'string': {
      if (typeof value !== 'string') throw invalidValue(target, `expected a string, got ${describe(value)}`)
      // A lone surrogate (from a "\ud800" escape) cannot be stored in utf8mb4.
      if (LONE_SURROGATE.test(value)) throw invalidValue(target, 'is not well-formed Unicode (lone surrogate)')
      if (storage.length !== undefined && codePointLength(value, storage.length) > storage.length)
        throw invalidValue(target, `is longer than ${storage.length} characters`)
      return value
    }
    case 'enum':
      if (typeof value !== 'string' || !storage.values.includes(value))
        throw invalidValue(target, `expected one of ${storage.values.map((v) => JSON.stringify(v)).join(', ')}, got ${describe(value)}`)
      return value
    case 'decimal':
      return decimalText(value, storage.precision, storage.scale, target)
    case 'boolean':
      if (typeof value !== 'boolean') throw invalidValue(target, `expected true or false, got ${describe(value)}`)
      return value ? 1 : 0
    case 'datetime': {
      const stored = typeof value === 'string' ? parseDateTime(value.trim()) : undefined
      if (stored === undefined)
        throw invalidValue(target, `expected a date-time (ISO 8601, e.g. "2024-01-31T10:00:00Z"), got ${describe(value)}`)
      return stored
    }
    case 'int':
      if (typeof value !== 'number' || !Number.isInteger(value) || value < -2147483648 || value > 2147483647)
        throw invalidValue(target, `expected a 32-bit integer, got ${describe(value)}`)
      return value
    case 'bigint': {
      const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : typeof value === 'string' ? value.trim() : ''
      if (!/^[+-]?\d{1,19}$/.test(text) || BigInt(text) > 9223372036854775807n || BigInt(text) < -9223372036854775808n)
        throw invalidValue(target, `expected a 64-bit integer, got ${describe(value)}`)
      return String(BigInt(text))
    }
  }
}
