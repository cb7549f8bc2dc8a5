// The canonical functions the service evaluates, with the argument types each accepts and the type it
// returns (URL Conventions 5.1.1.5–5.1.1.9). A function the store cannot evaluate faithfully is refused
// by name: matchesPattern (a user-supplied regular expression would run inside the database, where
// MySQL's and MariaDB's engines differ and a pathological pattern could hold a connection).
import type { CanonicalFunctionName } from '../expression/index.js'
import { isInteger, isNumeric, type BoundType } from './bound-type.js'

type ArgumentKind = 'string' | 'integer' | 'number' | 'dateTime' | 'dateOrDateTime' | 'timeOrDateTime' | 'duration'

interface Signature {
  readonly arguments: readonly ArgumentKind[]
  /** The result type, given the argument types (round keeps the type of its argument). */
  readonly result: BoundType | ((argumentTypes: readonly BoundType[]) => BoundType)
}

const ACCEPTS: Readonly<Record<ArgumentKind, (type: BoundType) => boolean>> = {
  string: (t) => t === 'Edm.String',
  integer: isInteger,
  number: isNumeric,
  dateTime: (t) => t === 'Edm.DateTimeOffset',
  dateOrDateTime: (t) => t === 'Edm.DateTimeOffset' || t === 'Edm.Date',
  timeOrDateTime: (t) => t === 'Edm.DateTimeOffset' || t === 'Edm.TimeOfDay',
  duration: (t) => t === 'Edm.Duration',
}

const DESCRIBE: Readonly<Record<ArgumentKind, string>> = {
  string: 'a string',
  integer: 'an integer',
  number: 'a number',
  dateTime: 'a date-time',
  dateOrDateTime: 'a date or date-time',
  timeOrDateTime: 'a time of day or date-time',
  duration: 'a duration',
}

const SIGNATURES: Readonly<Partial<Record<CanonicalFunctionName, Signature>>> = {
  contains: { arguments: ['string', 'string'], result: 'Edm.Boolean' },
  startswith: { arguments: ['string', 'string'], result: 'Edm.Boolean' },
  endswith: { arguments: ['string', 'string'], result: 'Edm.Boolean' },
  indexof: { arguments: ['string', 'string'], result: 'Edm.Int32' },
  length: { arguments: ['string'], result: 'Edm.Int32' },
  substring: { arguments: ['string', 'integer', 'integer'], result: 'Edm.String' },
  tolower: { arguments: ['string'], result: 'Edm.String' },
  toupper: { arguments: ['string'], result: 'Edm.String' },
  trim: { arguments: ['string'], result: 'Edm.String' },
  concat: { arguments: ['string', 'string'], result: 'Edm.String' },
  year: { arguments: ['dateOrDateTime'], result: 'Edm.Int32' },
  month: { arguments: ['dateOrDateTime'], result: 'Edm.Int32' },
  day: { arguments: ['dateOrDateTime'], result: 'Edm.Int32' },
  hour: { arguments: ['timeOrDateTime'], result: 'Edm.Int32' },
  minute: { arguments: ['timeOrDateTime'], result: 'Edm.Int32' },
  second: { arguments: ['timeOrDateTime'], result: 'Edm.Int32' },
  fractionalseconds: { arguments: ['timeOrDateTime'], result: 'Edm.Decimal' },
  totaloffsetminutes: { arguments: ['dateTime'], result: 'Edm.Int32' },
  totalseconds: { arguments: ['duration'], result: 'Edm.Decimal' },
  date: { arguments: ['dateTime'], result: 'Edm.Date' },
  time: { arguments: ['dateTime'], result: 'Edm.TimeOfDay' },
  now: { arguments: [], result: 'Edm.DateTimeOffset' },
  mindatetime: { arguments: [], result: 'Edm.DateTimeOffset' },
  maxdatetime: { arguments: [], result: 'Edm.DateTimeOffset' },
  round: { arguments: ['number'], result: ([t]) => t ?? 'Edm.Decimal' },
  floor: { arguments: ['number'], result: ([t]) => t ?? 'Edm.Decimal' },
  ceiling: { arguments: ['number'], result: ([t]) => t ?? 'Edm.Decimal' },
}

export type SignatureCheck =
  | { readonly ok: true; readonly type: BoundType }
  | { readonly ok: false; readonly argument: number | undefined; readonly message: string }

/** Checks argument types against the function's signature (the parser has checked the count). */
export function checkFunctionCall(name: CanonicalFunctionName, argumentTypes: readonly BoundType[]): SignatureCheck {
  const signature = SIGNATURES[name]
  if (!signature) return { ok: false, argument: undefined, message: `the function ${name} is not supported by this service` }
  for (let i = 0; i < argumentTypes.length; i++) {
    const kind = signature.arguments[i]!
    const type = argumentTypes[i]!
    if (type !== 'Null' && !ACCEPTS[kind](type)) {
      return { ok: false, argument: i, message: `argument ${i + 1} of ${name} must be ${DESCRIBE[kind]}, not ${type}` }
    }
  }
  return { ok: true, type: typeof signature.result === 'function' ? signature.result(argumentTypes) : signature.result }
}
