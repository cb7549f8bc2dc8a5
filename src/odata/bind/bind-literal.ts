// Parser literals → bound literals in the store's form (decisions.md §3): a date-time becomes UTC text
// 'YYYY-MM-DD HH:MM:SS[.ffffff]' (no offset means UTC), Int64 and decimals stay exact text, a duration
// becomes its length in seconds. Literals the store cannot compare with (binary, INF, NaN, multi-member
// enumerations) are refused here, with their position.
import type { LiteralNode, DateTimeOffsetValue } from '../expression/index.js'
import type { BindContext } from './bind-context.js'
import { bindError } from './bind-error.js'
import { BoundLiteral } from './bound/bound-literal.js'

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** MySQL DATETIME keeps at most microseconds. */
const MAX_FRACTION_DIGITS = 6

/** Decimal literals must fit DECIMAL(65,30), the widest exact type both MySQL and MariaDB compare with. */
const DECIMAL_LITERAL = /^-?(\d{1,35})(?:\.(\d{1,30}))?$/

export function bindLiteral(node: LiteralNode, context: BindContext): BoundLiteral {
  switch (node.type) {
    case 'Null':
      return BoundLiteral.NULL
    case 'Edm.Boolean':
      return BoundLiteral.create('Edm.Boolean', node.value)
    case 'Edm.Int32':
      return BoundLiteral.create('Edm.Int32', node.value)
    case 'Edm.Int64':
      return BoundLiteral.create('Edm.Int64', node.value.toString())
    case 'Edm.Decimal': {
      const normalized = normalizeDecimal(node.value)
      if (normalized === undefined)
        throw bindError(
          context,
          node.position,
          `the number ${node.value.slice(0, 40)} is out of the range this service compares (35 digits before the point, 30 after)`,
          'InvalidLiteral',
        )
      return BoundLiteral.create('Edm.Decimal', normalized)
    }
    case 'Edm.Double':
      if (!Number.isFinite(node.value))
        throw bindError(context, node.position, 'INF and NaN cannot be compared with stored values', 'InvalidLiteral')
      return BoundLiteral.create('Edm.Double', node.value)
    case 'Edm.String':
      return BoundLiteral.create('Edm.String', node.value)
    case 'Edm.Guid':
      return BoundLiteral.create('Edm.Guid', node.value)
    case 'Edm.Date':
      return BoundLiteral.create('Edm.Date', `${pad(node.value.year, 4)}-${pad(node.value.month)}-${pad(node.value.day)}`)
    case 'Edm.DateTimeOffset': {
      const stored = storedDateTime(node.value)
      if (stored === undefined)
        throw bindError(context, node.position, 'the date-time is outside the years 0001 to 9999 once converted to UTC', 'InvalidLiteral')
      return BoundLiteral.create('Edm.DateTimeOffset', stored)
    }
    case 'Edm.TimeOfDay': {
      const fraction = node.value.fraction.slice(0, MAX_FRACTION_DIGITS)
      return BoundLiteral.create(
        'Edm.TimeOfDay',
        `${pad(node.value.hour)}:${pad(node.value.minute)}:${pad(node.value.second)}${fraction === '' ? '' : `.${fraction}`}`,
      )
    }
    case 'Edm.Duration': {
      const v = node.value
      if (v.fraction !== '')
        throw bindError(context, node.position, 'durations with fractions of a second are not supported', 'InvalidLiteral')
      const seconds = ((v.days * 24 + v.hours) * 60 + v.minutes) * 60 + v.seconds
      if (!Number.isSafeInteger(seconds)) throw bindError(context, node.position, 'the duration is too long', 'InvalidLiteral')
      return BoundLiteral.create('Edm.Duration', v.negative ? -seconds : seconds)
    }
    case 'Edm.Binary':
      throw bindError(context, node.position, 'binary literals cannot be compared with any property of this service', 'InvalidLiteral')
    case 'Enum': {
      // The model has no enumeration types; enumeration-stored properties are strings, so a single member
      // (`StandardODATA.RecordType'Receipt'`) is read as its name.
      const members = node.value.members
      if (members.includes(',') || /^[+-]?\d+$/.test(members))
        throw bindError(
          context,
          node.position,
          'enumeration literals name one member here (the model has no flag enumerations)',
          'InvalidLiteral',
        )
      return BoundLiteral.create('Edm.String', members)
    }
  }
}

/** The UTC stored form of a date-time literal, or undefined outside 0001–9999. */
export function storedDateTime(value: DateTimeOffsetValue): string | undefined {
  let millis = Date.UTC(2000, value.month - 1, value.day, value.hour, value.minute, value.second)
  // Date.UTC maps years below 100 to 19xx: set the year separately.
  const date = new Date(millis)
  date.setUTCFullYear(value.year)
  millis = date.getTime() - (value.offsetMinutes ?? 0) * 60_000
  const utc = new Date(millis)
  const year = utc.getUTCFullYear()
  if (year < 1 || year > 9999) return undefined
  const fraction = value.fraction.slice(0, MAX_FRACTION_DIGITS).replace(/0+$/, '')
  return `${pad(year, 4)}-${pad(utc.getUTCMonth() + 1)}-${pad(utc.getUTCDate())} ${pad(utc.getUTCHours())}:${pad(utc.getUTCMinutes())}:${pad(utc.getUTCSeconds())}${fraction === '' ? '' : `.${fraction}`}`
}

/** '-007.50' → '-7.50'; undefined when it does not fit DECIMAL(65,30). */
function normalizeDecimal(text: string): string | undefined {
  let t = text.startsWith('+') ? text.slice(1) : text
  const negative = t.startsWith('-')
  if (negative) t = t.slice(1)
  const [integer = '', fraction] = t.split('.')
  const trimmed = integer.replace(/^0+(?=\d)/, '')
  const normalized = `${negative ? '-' : ''}${trimmed === '' ? '0' : trimmed}${fraction === undefined ? '' : `.${fraction}`}`
  return DECIMAL_LITERAL.test(normalized) ? normalized : undefined
}
