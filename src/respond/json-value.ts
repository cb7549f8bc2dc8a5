// Stored values → JSON text, per property type (decisions.md §3). Formatters are chosen once per
// property, not per row, and write text directly: DECIMAL and BIGINT arrive from the driver as strings
// and go out verbatim as JSON numbers (no float rounding), DATETIME as 'YYYY-MM-DD HH:MM:SS' becomes
// '"YYYY-MM-DDTHH:MM:SSZ"' without a Date object.
import type { PropertyModel } from '../model/model.js'

export type JsonValueWriter = (value: unknown) => string

const writeString: JsonValueWriter = (value) => JSON.stringify(String(value ?? ''))
const writeRawNumber: JsonValueWriter = (value) => (value === null || value === undefined ? 'null' : String(value))
const writeQuotedNumber: JsonValueWriter = (value) => (value === null || value === undefined ? 'null' : `"${String(value)}"`)
const writeBoolean: JsonValueWriter = (value) => (value === 1 || value === true || value === '1' ? 'true' : 'false')
const writeGuid: JsonValueWriter = (value) => `"${String(value)}"`

/** 'YYYY-MM-DD HH:MM:SS' (UTC, as the pool delivers it) → ISO 8601 with Z. */
export function storedDateTimeToIso(value: string): string {
  return `${value.slice(0, 10)}T${value.slice(11, 19)}Z`
}
const writeDateTime: JsonValueWriter = (value) =>
  value === null || value === undefined ? 'null' : `"${storedDateTimeToIso(String(value))}"`

/** An enumeration's values are few and known: their JSON text is made once, not per row. */
function enumWriter(values: readonly string[]): JsonValueWriter {
  const texts = new Map(values.map((v) => [v, JSON.stringify(v)] as const))
  return (value) => texts.get(value as string) ?? writeString(value)
}

export interface JsonFormatOptions {
  /** `IEEE754Compatible=true`: Decimal and Int64 as strings. */
  readonly ieee754Compatible: boolean
}

export function jsonValueWriter(property: PropertyModel, options: JsonFormatOptions): JsonValueWriter {
  switch (property.storage.kind) {
    case 'guid':
      return writeGuid
    case 'string':
      return writeString
    case 'enum':
      return enumWriter(property.storage.values)
    case 'decimal':
    case 'bigint':
      return options.ieee754Compatible ? writeQuotedNumber : writeRawNumber
    case 'int':
      return writeRawNumber
    case 'boolean':
      return writeBoolean
    case 'datetime':
      return writeDateTime
  }
}
