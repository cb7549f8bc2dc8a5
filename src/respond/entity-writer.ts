// One entity row → JSON object text, for a fixed list of properties chosen once per request. Rows come
// from the driver as arrays in the order of `properties` (mysql2 `rowsAsArray`), so writing a row is a
// single pass with no per-row object or closure.
import type { EntitySetModel, PropertyModel } from '../model/model.js'
import { jsonValueWriter, type JsonFormatOptions, type JsonValueWriter } from './json-value.js'

export interface EntityWriter {
  readonly properties: readonly PropertyModel[]
  /** `prefix` is inserted right after `{` (annotations such as `"@odata.etag":"…",`). */
  write(row: readonly unknown[], prefix?: string): string
}

export function createEntityWriter(properties: readonly PropertyModel[], options: JsonFormatOptions): EntityWriter {
  const names = properties.map((p, i) => `${i === 0 ? '' : ','}${JSON.stringify(p.name)}:`)
  const writers: JsonValueWriter[] = properties.map((p) => jsonValueWriter(p, options))
  return {
    properties,
    write(row, prefix = '') {
      let text = `{${prefix}`
      for (let i = 0; i < writers.length; i++) text += names[i] + writers[i]!(row[i])
      return `${text}}`
    },
  }
}

/** Writers made once per property list and format, for answers written entity by entity (a batch's creates). */
const writers = new WeakMap<readonly PropertyModel[], [EntityWriter | undefined, EntityWriter | undefined]>()

/** The same writer as `createEntityWriter`, made once per property list and `IEEE754Compatible` and kept. */
export function entityWriterFor(properties: readonly PropertyModel[], options: JsonFormatOptions): EntityWriter {
  let pair = writers.get(properties)
  if (!pair) writers.set(properties, (pair = [undefined, undefined]))
  const index = options.ieee754Compatible ? 1 : 0
  return (pair[index] ??= createEntityWriter(properties, { ieee754Compatible: options.ieee754Compatible }))
}

/** The canonical key predicate of an entity (`(4f…)`, `(Ref_Key=…,LineNumber=1)`), for Location and @odata.id. */
export function canonicalKey(set: EntitySetModel, keyValue: (property: PropertyModel) => unknown): string {
  const literal = (property: PropertyModel) => {
    const value = keyValue(property)
    switch (property.storage.kind) {
      case 'guid':
      case 'int':
      case 'bigint':
      case 'decimal':
        return String(value)
      case 'datetime':
        return `${String(value).slice(0, 10)}T${String(value).slice(11, 19)}Z`
      case 'boolean':
        return value === 1 || value === true ? 'true' : 'false'
      default:
        return `'${String(value).replaceAll("'", "''")}'`
    }
  }
  if (set.key.length === 1) return `(${encodeKeyText(literal(set.key[0]!))})`
  return `(${set.key.map((k) => `${k.name}=${encodeKeyText(literal(k))}`).join(',')})`
}

/** Percent-encodes what may not stand in a path segment, keeping the predicate readable. */
function encodeKeyText(text: string): string {
  return text.replace(/[^A-Za-z0-9\-._~'!$&*+,;=:@]/g, (c) => encodeURIComponent(c))
}
