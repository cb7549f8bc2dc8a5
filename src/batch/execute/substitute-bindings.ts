// `$<id>` in the `…@odata.bind` values of an operation's body (service.md §4.4 rule 5): replaced by the
// path of the entity that operation created, as a JSON string, so nothing can be injected into an address.
import { ODataError } from '../../errors.js'
import type { JsonValue } from '../intake/index.js'

/** Replaces `$<id>` values of `…@odata.bind` members by the created entity's path (`locations`: id → path). */
export function substituteBindings(value: JsonValue, locations: ReadonlyMap<string, string>): JsonValue {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => substituteBindings(item, locations))
  const result: Record<string, JsonValue> = {}
  for (const [name, member] of Object.entries(value as Record<string, JsonValue>)) {
    const substitute = (v: JsonValue): JsonValue => {
      if (typeof v !== 'string' || !v.startsWith('$')) return v
      const slash = v.indexOf('/')
      const id = slash < 0 ? v.slice(1) : v.slice(1, slash)
      const location = locations.get(id)
      if (location === undefined)
        throw new ODataError('ReferenceOutOfScope', `$${id} names an operation that created nothing`, { target: `$${id}` })
      return location + (slash < 0 ? '' : v.slice(slash))
    }
    Object.defineProperty(result, name, {
      value: name.endsWith('@odata.bind')
        ? Array.isArray(member)
          ? member.map(substitute)
          : substitute(member)
        : substituteBindings(member, locations),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return result
}
