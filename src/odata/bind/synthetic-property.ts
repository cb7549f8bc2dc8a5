// Columns a transformation makes (compute aliases, aggregates) have no property in the model; these
// stand-ins carry what the JSON writer needs (storage decides how a value is written).
import type { PropertyModel, StorageType } from '../../model/model.js'
import type { BoundType } from './bound-type.js'
import type { SourceColumn } from './queryable-source.js'

const STORAGE: Readonly<Record<BoundType, StorageType>> = {
  'Edm.String': { kind: 'string' },
  'Edm.Guid': { kind: 'guid' },
  'Edm.Boolean': { kind: 'boolean' },
  'Edm.Int32': { kind: 'int' },
  'Edm.Int64': { kind: 'bigint' },
  'Edm.Decimal': { kind: 'decimal', precision: 38, scale: 10 },
  'Edm.Double': { kind: 'decimal', precision: 38, scale: 10 },
  'Edm.DateTimeOffset': { kind: 'datetime' },
  // The driver delivers DATE and TIME as text, which is their JSON form too.
  'Edm.Date': { kind: 'string' },
  'Edm.TimeOfDay': { kind: 'string' },
  'Edm.Duration': { kind: 'decimal', precision: 38, scale: 0 },
  Null: { kind: 'string' },
}

export function syntheticColumn(name: string, sqlName: string, type: BoundType): SourceColumn {
  const storage = STORAGE[type]
  const edmType: PropertyModel['edmType'] =
    type === 'Edm.Date' || type === 'Edm.TimeOfDay' || type === 'Null'
      ? 'Edm.String'
      : type === 'Edm.Double' || type === 'Edm.Duration'
        ? 'Edm.Decimal'
        : type
  const property: PropertyModel = Object.freeze({ name, column: sqlName, edmType, storage, role: 'resource', nullable: true })
  return Object.freeze({ name, property, type, sqlName, surrogate: false })
}

/** The same value under another name and SQL column (a column passed through a transformation). */
export function renamedColumn(column: SourceColumn, name: string, sqlName: string): SourceColumn {
  return Object.freeze({ name, property: column.property, type: column.type, sqlName, surrogate: column.surrogate })
}
