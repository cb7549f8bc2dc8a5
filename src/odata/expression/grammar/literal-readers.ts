// Readers that turn the text of one literal, text[from, to), into its value, checking shape and ranges.
// The lexer has already found where a bare literal ends; prefixed ones (`datetime'…'`) are checked here
// in full. `fail` raises InvalidLiteral at the literal's position with the given description.
import { digitsAt, isDigit } from '../lexer/character-class.js'
import { scanOffset, scanTimeOfDayShape } from '../lexer/lexer.js'
import type { DateTimeOffsetValue, DateValue, DurationValue, TimeOfDayValue } from '../ast/literal-value.js'

export type Fail = (description: string) => never

const MINUS = 0x2d
const INT32_MIN = -2147483648n
const INT32_MAX = 2147483647n
const INT64_MIN = -9223372036854775808n
const INT64_MAX = 9223372036854775807n

/** ABNF fractionalSeconds = 1*12DIGIT */
const MAX_FRACTION_DIGITS = 12

export type IntegerValue =
  | { type: 'Edm.Int32'; value: number }
  | { type: 'Edm.Int64'; value: bigint }
  | { type: 'Edm.Decimal'; value: string }

/**
 * ABNF int32Literal / int64Literal / decimalLiteral for digits without point or exponent: the smallest
 * type that holds the value; beyond Int64 it is an Edm.Decimal (decimalLiteral has no digit limit).
 */
export function readInteger(text: string, from: number, to: number): IntegerValue {
  const digits = text.charCodeAt(from) === 0x2b ? text.slice(from + 1, to) : text.slice(from, to)
  // Up to nine digits always fit Int32 and convert exactly through Number.
  if (to - from <= 9) return { type: 'Edm.Int32', value: Number(digits) }
  const value = BigInt(digits)
  if (value >= INT32_MIN && value <= INT32_MAX) return { type: 'Edm.Int32', value: Number(value) }
  if (value >= INT64_MIN && value <= INT64_MAX) return { type: 'Edm.Int64', value }
  return { type: 'Edm.Decimal', value: digits }
}

/** ABNF decimalLiteral with a fractional part: kept as exact text, without a leading plus. */
export function readDecimal(text: string, from: number, to: number): string {
  return text.charCodeAt(from) === 0x2b ? text.slice(from + 1, to) : text.slice(from, to)
}

/** ABNF doubleLiteral with an exponent, or -INF. */
export function readDouble(text: string, from: number, to: number, fail: Fail): number {
  if (text.startsWith('-INF', from) && to - from === 4) return -Infinity
  const value = Number(text.slice(from, to))
  if (!Number.isFinite(value)) fail(`${text.slice(from, to)} is out of the range of Edm.Double`)
  return value
}

/** ABNF stringLiteral: the text between the quotes, `''` read as one quote. */
export function readString(text: string, from: number, to: number): string {
  const inner = text.slice(from + 1, to - 1)
  return inner.includes("''") ? inner.replaceAll("''", "'") : inner
}

/** ABNF stringInUrl (a JSON string): the lexer has checked the escapes. */
export function readJsonString(text: string, from: number, to: number, fail: Fail): string {
  try {
    return JSON.parse(text.slice(from, to)) as string
  } catch {
    // Control characters are the one thing the lexer lets through and JSON forbids.
    return fail('a JSON string may not contain control characters')
  }
}

/** ABNF guid, lowercased. */
export function readGuid(text: string, from: number, to: number, fail: Fail): string {
  if (to - from !== 36) fail('a GUID is written xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx')
  for (let k = 0; k < 36; k++) {
    const c = text.charCodeAt(from + k)
    const isDash = k === 8 || k === 13 || k === 18 || k === 23
    if (isDash ? c !== MINUS : !isHex(c)) fail('a GUID is written xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx')
  }
  return text.slice(from, to).toLowerCase()
}

/** ABNF date = year "-" month "-" day, with years 0000-9999 and the day checked against the month. */
export function readDate(text: string, from: number, to: number, fail: Fail): DateValue {
  if (to - from !== 10 || !isDateShape(text, from)) fail('a date is written YYYY-MM-DD')
  return checkedDate(text, from, fail)
}

/** ABNF timeOfDayLiteral. */
export function readTimeOfDay(text: string, from: number, to: number, fail: Fail): TimeOfDayValue {
  if (scanTimeOfDayShape(text, from) !== to) fail('a time is written HH:MM[:SS[.fffffff]]')
  return checkedTime(text, from, to, fail)
}

/**
 * ABNF dateTimeOffsetLiteral, with the offset optional (decisions.md §2: a bare date-time without an
 * offset is read as UTC). With `dateOnly` allowed (`datetime'2024-01-31'`) the time is midnight.
 */
export function readDateTimeOffset(text: string, from: number, to: number, fail: Fail, dateOnly = false): DateTimeOffsetValue {
  const shape = 'a date-time is written YYYY-MM-DDTHH:MM[:SS[.fffffff]][Z|±HH:MM]'
  if (to - from < 10 || !isDateShape(text, from)) fail(shape)
  const date = checkedDate(text, from, fail)
  if (to - from === 10) {
    if (!dateOnly) fail(shape)
    return { year: date.year, month: date.month, day: date.day, hour: 0, minute: 0, second: 0, fraction: '', offsetMinutes: null }
  }
  const t = text.charCodeAt(from + 10)
  if (t !== 0x54 && t !== 0x74) fail(shape)
  const timeEnd = scanTimeOfDayShape(text, from + 11)
  if (timeEnd < 0) fail(shape)
  const time = checkedTime(text, from + 11, timeEnd, fail)
  const offsetEnd = scanOffset(text, timeEnd)
  if (offsetEnd !== to) fail(shape)
  // Spelled out rather than spread: object spreads are an order of magnitude slower on this path.
  return {
    year: date.year,
    month: date.month,
    day: date.day,
    hour: time.hour,
    minute: time.minute,
    second: time.second,
    fraction: time.fraction,
    offsetMinutes: checkedOffset(text, timeEnd, offsetEnd, fail),
  }
}

/** ABNF durationValue = [ "-" ] "P" [ 1*DIGIT "D" ] [ "T" [ 1*DIGIT "H" ] [ 1*DIGIT "M" ] [ 1*DIGIT [ "." 1*DIGIT ] "S" ] ] */
export function readDuration(text: string, from: number, to: number, fail: Fail): DurationValue {
  const shape = 'a duration is written [-]P[nD][T[nH][nM][n[.n]S]], for example P1DT2H'
  let i = from
  const negative = text.charCodeAt(i) === MINUS
  if (negative) i++
  if (text.charCodeAt(i) !== 0x50 /* P */) fail(shape)
  i++
  const value = { negative, days: 0, hours: 0, minutes: 0, seconds: 0, fraction: '' }
  let components = 0
  // Each component is digits followed by its designator, in the order D, then after T: H, M, S.
  const component = (designators: string): string | undefined => {
    let k = i
    while (k < to && isDigit(text.charCodeAt(k))) k++
    if (k === i) return undefined
    let fractionEnd = k
    if (designators === 'S' && text.charCodeAt(k) === 0x2e) {
      fractionEnd = k + 1
      while (fractionEnd < to && isDigit(text.charCodeAt(fractionEnd))) fractionEnd++
      if (fractionEnd === k + 1) fail(shape)
    }
    if (text[fractionEnd] !== designators) return undefined
    const digits = text.slice(i, k)
    if (digits.length > 15) fail('a duration component has too many digits')
    if (fractionEnd > k) value.fraction = text.slice(k + 1, fractionEnd)
    if (value.fraction.length > MAX_FRACTION_DIGITS) fail(`fractional seconds have at most ${MAX_FRACTION_DIGITS} digits`)
    i = fractionEnd + 1
    components++
    return digits
  }
  const days = component('D')
  if (days !== undefined) value.days = Number(days)
  if (i < to) {
    if (text.charCodeAt(i) !== 0x54 /* T */) fail(shape)
    i++
    const before = components
    const hours = component('H')
    if (hours !== undefined) value.hours = Number(hours)
    const minutes = component('M')
    if (minutes !== undefined) value.minutes = Number(minutes)
    const seconds = component('S')
    if (seconds !== undefined) value.seconds = Number(seconds)
    if (components === before) fail(shape)
  }
  if (i !== to || components === 0) fail(shape)
  return value
}

/** ABNF binaryValue: base64url, padding optional. */
export function readBinary(text: string, from: number, to: number, fail: Fail): string {
  const shape = 'binary data is written in base64url (A-Z a-z 0-9 - _, optional = padding)'
  let end = to
  if (end > from && text.charCodeAt(end - 1) === 0x3d) end--
  if (end > from && text.charCodeAt(end - 1) === 0x3d) end--
  for (let i = from; i < end; i++) if (!isBase64Url(text.charCodeAt(i))) fail(shape)
  const dataLength = end - from
  // A final group of one character cannot encode a byte; padding only completes a group.
  if (dataLength % 4 === 1 || (end !== to && (dataLength + (to - end)) % 4 !== 0)) fail(shape)
  return text.slice(from, to)
}

function isDateShape(text: string, i: number): boolean {
  return (
    digitsAt(text, i, 4) &&
    text.charCodeAt(i + 4) === MINUS &&
    digitsAt(text, i + 5, 2) &&
    text.charCodeAt(i + 7) === MINUS &&
    digitsAt(text, i + 8, 2)
  )
}

function checkedDate(text: string, i: number, fail: Fail): DateValue {
  const year = digitsValue(text, i, 4)
  const month = digitsValue(text, i + 5, 2)
  const day = digitsValue(text, i + 8, 2)
  if (month < 1 || month > 12) fail(`month ${text.slice(i + 5, i + 7)} is out of range (01-12)`)
  const lastDay = daysInMonth(year, month)
  if (day < 1 || day > lastDay) fail(`day ${text.slice(i + 8, i + 10)} is out of range (01-${lastDay}) for ${text.slice(i, i + 7)}`)
  return { year, month, day }
}

function checkedTime(text: string, i: number, end: number, fail: Fail): TimeOfDayValue {
  const hour = digitsValue(text, i, 2)
  const minute = digitsValue(text, i + 3, 2)
  // ABNF hour = 00-23 (24:00 is not a time of day), minute = 00-59.
  if (hour > 23) fail(`hour ${text.slice(i, i + 2)} is out of range (00-23)`)
  if (minute > 59) fail(`minute ${text.slice(i + 3, i + 5)} is out of range (00-59)`)
  let second = 0
  let fraction = ''
  if (end > i + 5) {
    second = digitsValue(text, i + 6, 2)
    // The ABNF allows 60 for a leap second; MySQL DATETIME and JavaScript dates cannot hold it.
    if (second > 59) fail(`second ${text.slice(i + 6, i + 8)} is out of range (00-59)`)
    if (end > i + 8) {
      fraction = text.slice(i + 9, end)
      if (fraction.length > MAX_FRACTION_DIGITS) fail(`fractional seconds have at most ${MAX_FRACTION_DIGITS} digits`)
    }
  }
  return { hour, minute, second, fraction }
}

function checkedOffset(text: string, from: number, to: number, fail: Fail): number | null {
  if (to === from) return null
  if (to - from === 1) return 0 // Z
  const hours = digitsValue(text, from + 1, 2)
  const minutes = digitsValue(text, from + 4, 2)
  if (hours > 23 || minutes > 59) fail(`time zone offset ${text.slice(from, to)} is out of range`)
  const sign = text.charCodeAt(from) === MINUS ? -1 : 1
  return sign * (hours * 60 + minutes)
}

function digitsValue(text: string, i: number, count: number): number {
  let value = 0
  for (let k = i; k < i + count; k++) value = value * 10 + (text.charCodeAt(k) - 0x30)
  return value
}

/** Proleptic Gregorian calendar, as xsd:date and MySQL use. */
function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
}

function isBase64Url(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x2d || c === 0x5f
}
