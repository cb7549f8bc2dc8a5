// The query string: system query options (`$filter`, …) apart from custom parameters (`token`, function
// parameters given in the query string). System options are recognised in any case (`$FILTER`, as OData
// 4.01 allows) and normalised to `$filter`; the `$` is required, because function parameters such as
// `Top` of RecordsWithExtDimensions would otherwise collide with `$top`. Names may arrive percent-encoded
// (`%24filter`), as some clients send them.
import { ODataError } from '../errors.js'
import { decodeUrlComponent } from './resource-path.js'

export const SYSTEM_QUERY_OPTIONS = [
  '$filter',
  '$select',
  '$expand',
  '$orderby',
  '$top',
  '$skip',
  '$count',
  '$apply',
  '$format',
  '$search',
  '$skiptoken',
  '$levels',
  '$compute',
  '$index',
  '$schemaversion',
  '$deltatoken',
  '$id',
] as const
export type SystemQueryOption = (typeof SYSTEM_QUERY_OPTIONS)[number]

const SYSTEM_BY_LOWER_NAME: ReadonlyMap<string, SystemQueryOption> = new Map(SYSTEM_QUERY_OPTIONS.map((o) => [o, o] as const))

export interface QueryOptions {
  readonly system: ReadonlyMap<SystemQueryOption, string>
  /** Everything else, by name as written (decoded). */
  readonly custom: ReadonlyMap<string, string>
}

export const NO_QUERY_OPTIONS: QueryOptions = { system: new Map(), custom: new Map() }

/** Parses a raw (still percent-encoded) query string without the leading `?`. */
export function parseQueryOptions(rawQuery: string | undefined): QueryOptions {
  if (!rawQuery) return NO_QUERY_OPTIONS
  const system = new Map<SystemQueryOption, string>()
  const custom = new Map<string, string>()
  for (const pair of rawQuery.split('&')) {
    if (pair === '') continue
    const equals = pair.indexOf('=')
    const rawName = equals < 0 ? pair : pair.slice(0, equals)
    const rawValue = equals < 0 ? '' : pair.slice(equals + 1)
    const name = decodeUrlComponent(rawName, 'A query option name')
    const value = decodeUrlComponent(rawValue, `The query option ${name}`)
    const lower = name.toLowerCase()
    const option = SYSTEM_BY_LOWER_NAME.get(lower)
    if (option) {
      if (system.has(option)) throw new ODataError('InvalidQueryOption', `The query option ${option} is given twice`, { target: option })
      system.set(option, value)
    } else if (lower.startsWith('$')) {
      throw new ODataError('InvalidQueryOption', `Unknown system query option ${name}`, { target: name })
    } else {
      if (custom.has(name)) throw new ODataError('InvalidQueryOption', `The parameter ${name} is given twice`, { target: name })
      custom.set(name, value)
    }
  }
  return { system, custom }
}
