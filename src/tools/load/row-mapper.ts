// A row as read → the entity body the service takes: columns renamed by the mapping, constants added,
// text turned into the property's JSON type (CSV has only text), references by Code or key turned into
// `X_Key`, and table part rows mapped the same way. A row that cannot be mapped is refused here, before
// anything is sent.
import type { ReferenceResolver } from './reference-resolver.js'
import { RowError } from './row-error.js'
import type { EntityShape } from './service-metadata.js'

export interface RowMapping {
  /** Input column → property (`name` → `Description`; `Goods/qty` → `Quantity` in the Goods rows). */
  readonly columns: Readonly<Record<string, string>>
  /** Values added to every row (`{"PriceType": "Retail"}`). */
  readonly constants: Readonly<Record<string, unknown>>
}

const GUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i

export class RowMapper {
  constructor(
    private readonly shape: EntityShape,
    private readonly mapping: RowMapping,
    private readonly resolver: ReferenceResolver,
  ) {}

  async map(record: Readonly<Record<string, unknown>>): Promise<Record<string, unknown>> {
    const renamed = rename(record, this.mapping.columns, '')
    return this.entity(this.shape, { ...this.mapping.constants, ...renamed }, '')
  }

  private async entity(shape: EntityShape, values: Record<string, unknown>, path: string): Promise<Record<string, unknown>> {
    const body: Record<string, unknown> = {}
    for (const [name, raw] of Object.entries(values)) {
      if (raw === '' || raw === undefined) continue
      const part = shape.tableParts.get(name)
      if (part) {
        const rows = typeof raw === 'string' ? parseJsonArray(raw, `${path}${name}`) : raw
        if (!Array.isArray(rows)) throw new RowError('InvalidValue', `${path}${name} must be an array of rows`)
        body[name] = await Promise.all(
          rows.map((row, i) =>
            this.entity(part, rename(row as Record<string, unknown>, this.mapping.columns, `${name}/`), `${path}${name}[${i + 1}]/`).catch(
              (error: unknown) => {
                // Which table part row failed, so that a lines file can name its line.
                if (error instanceof RowError) error.tablePartRow ??= i
                throw error
              },
            ),
          ),
        )
        continue
      }
      const reference = shape.references.get(name) ?? (name.endsWith('_Code') ? shape.references.get(name.slice(0, -5)) : undefined)
      if (reference && !shape.properties.has(name)) {
        const text = String(raw)
        if (GUID.test(text) && !name.endsWith('_Code')) body[reference.keyProperty] = text.toLowerCase()
        else {
          const key = await this.resolver.keyOf(reference.targetSet, text)
          if (key === undefined)
            throw new RowError('UnknownReference', `${path}${name}: ${reference.targetSet} has no item with Code '${text}'`)
          body[reference.keyProperty] = key
        }
        continue
      }
      const type = shape.properties.get(name)
      if (type === undefined) throw new RowError('UnknownProperty', `${path}${name} is not a property of ${shape.name}`)
      body[name] = typed(raw, type, `${path}${name}`)
    }
    return body
  }
}

function rename(
  record: Readonly<Record<string, unknown>>,
  columns: Readonly<Record<string, string>>,
  prefix: string,
): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [column, value] of Object.entries(record)) out[columns[`${prefix}${column}`] ?? column] = value
  return out
}

function parseJsonArray(text: string, path: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    throw new RowError('InvalidValue', `${path} is not a JSON array`)
  }
}

/** Text from a CSV as the JSON value of an Edm type; JSON values pass as they are (the service checks them). */
function typed(raw: unknown, type: string, path: string): unknown {
  if (typeof raw !== 'string') return raw
  switch (type) {
    case 'Edm.Decimal':
    case 'Edm.Double':
    case 'Edm.Single':
    case 'Edm.Int16':
    case 'Edm.Int32':
    case 'Edm.Int64':
    case 'Edm.Byte': {
      const number = Number(raw)
      if (!Number.isFinite(number) || raw.trim() === '') throw new RowError('InvalidValue', `${path}: '${raw}' is not a number`)
      return number
    }
    case 'Edm.Boolean': {
      const lower = raw.toLowerCase()
      if (['true', '1', 'yes'].includes(lower)) return true
      if (['false', '0', 'no'].includes(lower)) return false
      throw new RowError('InvalidValue', `${path}: '${raw}' is not a boolean`)
    }
    default:
      return raw
  }
}
