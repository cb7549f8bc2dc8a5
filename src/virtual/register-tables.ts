// What the virtual tables of one register read: its record table (movements or information register
// records), its totals table if it keeps one, and the names of its dimensions and resources, all from the
// model. Made once per register set.
import type { EntitySetModel, ServiceModel } from '../model/model.js'

export interface AccumulationTables {
  readonly kind: 'accumulation'
  /** `Balance` or `Turnovers` (demo-configuration.md): which columns a result has and how movements sign. */
  readonly registerKind: 'Balance' | 'Turnovers'
  /** The movements' set (`AccumulationRegister_Stock_RecordType`): its table and columns. */
  readonly records: EntitySetModel
  /** Dimension property names, in the register's order (`Warehouse_Key`, `Product_Key`). */
  readonly dimensions: readonly string[]
  readonly resources: readonly string[]
  /** The totals table (balance kind; see src/store/totals.ts), undefined for the Turnovers kind. */
  readonly totalsTable: string | undefined
}

export interface InformationTables {
  readonly kind: 'information'
  /** The register's own set: its table holds the records. */
  readonly records: EntitySetModel
  readonly dimensions: readonly string[]
  readonly resources: readonly string[]
}

export type RegisterTables = AccumulationTables | InformationTables

const cache = new WeakMap<EntitySetModel, RegisterTables | null>()

/** The tables behind a register set, or undefined for a set whose virtual tables are not built here. */
export function registerTables(model: ServiceModel, register: EntitySetModel): RegisterTables | undefined {
  const cached = cache.get(register)
  if (cached !== undefined) return cached ?? undefined
  const source = register.source
  let tables: RegisterTables | undefined
  if (source.type === 'accumulationRegister') {
    tables = Object.freeze({
      kind: 'accumulation' as const,
      registerKind: source.registerKind,
      records: model.entitySetByName.get(source.recordTypeSet)!,
      dimensions: source.dimensions,
      resources: source.resources,
      totalsTable: source.totalsTable,
    })
  } else if (source.type === 'informationRegister') {
    tables = Object.freeze({ kind: 'information' as const, records: register, dimensions: source.dimensions, resources: source.resources })
  }
  cache.set(register, tables ?? null)
  return tables
}
