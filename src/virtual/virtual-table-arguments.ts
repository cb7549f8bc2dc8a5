// The parameters of a virtual-table call (service.md §4.2, decisions.md §2 and §6), read from the
// parentheses or the query string, checked against the function's signature and converted:
//   Period, StartPeriod, EndPeriod   datetime'…' or a bare date-time → stored form (UTC)
//   Condition (and the accounting conditions)  a string literal holding a $filter expression; nested
//                                    quotes doubled (guid''…'') or, as clients of the reference system
//                                    send them, left single (guid'…') — both give the same condition
//   Dimensions                       'Warehouse,Product': dimension names of the register
//   Periodicity                      one of the thirteen values of §4.3, case-sensitive
//   Order, Top                       RecordsWithExtDimensions only
// A parameter that is unknown, given twice, unnamed or malformed is `400 InvalidParameter` naming it.
import { ODataError } from '../errors.js'
import type { EntitySetModel } from '../model/model.js'
import { PERIODICITIES, type Periodicity, type VirtualTableSignature } from '../model/virtual-tables.js'
import { parseDateTime, unquoteString } from '../odata/literal.js'
import { addSeconds } from './period-start.js'

export interface VirtualTableArguments {
  readonly period?: string
  readonly startPeriod?: string
  readonly endPeriod?: string
  /** Condition texts by parameter name (`Condition`, `AccountCondition`, `BalancedAccountCondition`), unquoted. */
  readonly conditions: ReadonlyMap<string, string>
  /** Dimension property names (`Warehouse_Key`), in the order given. */
  readonly dimensions?: readonly string[]
  readonly periodicity?: Periodicity
  readonly extraDimensions?: readonly string[]
  readonly balancedExtraDimensions?: readonly string[]
  readonly order?: string
  readonly top?: number
}

/** Query-string names that are never function parameters. */
const NOT_PARAMETERS = new Set(['token'])

function invalid(name: string, message: string): ODataError {
  return new ODataError('InvalidParameter', message, { target: name })
}

/** A string literal as the reference system's clients write it: quotes inside doubled, or left single. */
export function unquoteLenient(name: string, text: string): string {
  const trimmed = text.trim()
  const strict = unquoteString(trimmed)
  if (strict !== undefined) return strict
  if (trimmed.length >= 2 && trimmed.startsWith("'") && trimmed.endsWith("'")) return trimmed.slice(1, -1)
  throw invalid(name, `${name} must be a string in single quotes`)
}

/**
 * How a bound with a fraction of a second becomes a stored date-time. Periods are stored to the second
 * (DATETIME), so the contract's comparisons (decisions.md §6) select, for a whole-second `Period`, exactly
 * what they select against the bound rounded: `Period < X` (Balance) and `Period ≥ X` (SliceFirst,
 * StartPeriod) against X rounded up, `Period ≤ X` (SliceLast, EndPeriod) against X rounded down.
 * Balance(Period=…T14:00:00.5) thus counts the movements of 14:00:00, which are before it.
 */
type Rounding = 'up' | 'down'

interface Bound {
  /** The stored form, the fraction of a second dropped. */
  readonly floor: string
  readonly fractional: boolean
}

function dateTime(name: string, text: string): Bound {
  let inner = text.trim()
  const prefixed = /^(datetime|datetimeoffset)'(.*)'$/i.exec(inner)
  if (prefixed) inner = prefixed[2]!
  else if (inner.startsWith("'") && inner.endsWith("'")) inner = inner.slice(1, -1)
  const value = parseDateTime(inner)
  if (value === undefined) throw invalid(name, `${name} must be a date-time such as datetime'2024-01-31T00:00:00'`)
  return { floor: value, fractional: /\.\d*[1-9]/.test(inner) }
}

function rounded(bound: Bound, rounding: Rounding): string {
  if (!bound.fractional || rounding === 'down') return bound.floor
  const up = addSeconds(bound.floor, 1)
  // 9999-12-31T23:59:59.5 has no next second to be stored: every stored period is before it.
  return up.length === bound.floor.length ? up : bound.floor
}

/** `Period` is an upper bound (`≤`) for SliceLast only. */
const PERIOD_ROUNDING: Readonly<Record<string, Rounding>> = { SliceLast: 'down' }

/** The register's dimensions by every name a client may use for them: `Warehouse` and `Warehouse_Key`. */
function dimensionNames(set: EntitySetModel, signature: VirtualTableSignature): Map<string, string> {
  const names = new Map<string, string>()
  const source = set.source
  // An accounting result groups by its account and extra dimensions as well (ExtDimension1, BalancedAccount…).
  const dimensions =
    source.type === 'accountingRegister'
      ? signature.resultProperties.filter((p) => p.role === 'dimension').map((p) => p.name)
      : source.type === 'accumulationRegister' || source.type === 'informationRegister'
        ? source.dimensions
        : []
  for (const dimension of dimensions) {
    // The result columns carry the dimensions with their references (`Warehouse_Key` → navigation `Warehouse`).
    const property = signature.resultProperties.find((p) => p.name === dimension)
    names.set(dimension, dimension)
    if (property?.reference) names.set(property.reference.navigation, dimension)
  }
  return names
}

function nameList(name: string, text: string): string[] {
  const list = unquoteLenient(name, text)
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '')
  return list
}

/**
 * Merges the parameters of the parentheses and of the query string, and converts each. `register` is the
 * register's record-set (or information register) entity set.
 */
export function parseVirtualTableArguments(
  register: EntitySetModel,
  signature: VirtualTableSignature,
  inParentheses: ReadonlyMap<string, string>,
  inQuery: ReadonlyMap<string, string>,
): VirtualTableArguments {
  const raw = new Map(inParentheses)
  for (const [name, value] of inQuery) {
    // Parameter aliases (`@p`) belong to the expressions, not to the function.
    if (NOT_PARAMETERS.has(name) || name.startsWith('@')) continue
    if (raw.has(name)) throw invalid(name, `The parameter ${name} is given twice (in the parentheses and in the query string)`)
    raw.set(name, value)
  }
  const allowed = new Set(signature.parameters.map((p) => p.name))
  for (const name of raw.keys()) {
    if (!allowed.has(name)) throw invalid(name, `${signature.name} has no parameter ${name}; its parameters are ${[...allowed].join(', ')}`)
  }

  const conditions = new Map<string, string>()
  let start: Bound | undefined
  let end: Bound | undefined
  let result: { -readonly [K in keyof VirtualTableArguments]: VirtualTableArguments[K] } = { conditions }
  const dimensionsByName = dimensionNames(register, signature)
  for (const [name, text] of raw) {
    switch (name) {
      case 'Period':
        result = { ...result, period: rounded(dateTime(name, text), PERIOD_ROUNDING[signature.name] ?? 'up') }
        break
      case 'StartPeriod':
        start = dateTime(name, text)
        result = { ...result, startPeriod: rounded(start, 'up') }
        break
      case 'EndPeriod':
        end = dateTime(name, text)
        result = { ...result, endPeriod: rounded(end, 'down') }
        break
      case 'Condition':
      case 'AccountCondition':
      case 'BalancedAccountCondition': {
        const condition = unquoteLenient(name, text).trim()
        if (condition !== '') conditions.set(name, condition)
        break
      }
      case 'Dimensions': {
        const dimensions = nameList(name, text).map((dimension) => {
          const property = dimensionsByName.get(dimension)
          if (!property) throw invalid(name, `${dimension} is not a dimension of ${register.name}`)
          return property
        })
        result = { ...result, dimensions: [...new Set(dimensions)] }
        break
      }
      case 'Periodicity': {
        const value = unquoteLenient(name, text)
        if (!(PERIODICITIES as readonly string[]).includes(value))
          throw invalid(name, `Periodicity must be one of ${PERIODICITIES.join(', ')} (case-sensitive); got ${JSON.stringify(value)}`)
        result = { ...result, periodicity: value as Periodicity }
        break
      }
      case 'ExtraDimensions':
        result = { ...result, extraDimensions: nameList(name, text) }
        break
      case 'BalancedExtraDimensions':
        result = { ...result, balancedExtraDimensions: nameList(name, text) }
        break
      case 'Order':
        result = { ...result, order: unquoteLenient(name, text) }
        break
      case 'Top': {
        const trimmed = text.trim()
        if (!/^\d{1,7}$/.test(trimmed) || Number(trimmed) > 1_000_000)
          throw invalid(name, 'Top must be an integer from 0 to 1000000 (0: no limit)')
        result = { ...result, top: Number(trimmed) }
        break
      }
    }
  }
  // Compared as given: StartPeriod=…:00.2 and EndPeriod=…:00.7 is a range, though it holds no whole second.
  if (
    start !== undefined &&
    end !== undefined &&
    (start.floor > end.floor || (start.floor === end.floor && start.fractional && !end.fractional))
  ) {
    throw invalid('StartPeriod', 'StartPeriod is after EndPeriod')
  }
  return result
}
