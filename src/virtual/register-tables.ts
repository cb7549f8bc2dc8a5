// What the virtual tables of one register read: its record table (movements or information register
// records), its totals table if it keeps one, for an accounting register its chart of accounts, and the
// names of its dimensions and resources, all from the model. Made once per register set.
import { accountRefKey } from '../model/account-key.js'
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

/** An account of the chart, as the configuration declares it (accounts are predefined). */
export interface ChartAccount {
  readonly key: string
  readonly code: string
  readonly description: string
  readonly type: 'Active' | 'Passive' | 'ActivePassive'
  /** The kinds of its extra dimensions, in order (position 1 first). */
  readonly extDimensions: readonly string[]
}

/** A kind of extra dimension of the chart (demo-configuration.md: Products, Warehouses, Counterparties). */
export interface ExtDimensionKind {
  readonly name: string
  /** The type name its values carry in `ExtDimension<N>_Type` (`StandardODATA.Catalog_Products`). */
  readonly valueType: string
}

export interface AccountingTables {
  readonly kind: 'accounting'
  /** The movements' set (`AccountingRegister_Main_RecordType`): its table and columns. */
  readonly records: EntitySetModel
  readonly dimensions: readonly string[]
  readonly resources: readonly string[]
  /** The resources with one value per entry (`Amount`); the others have `<R>Dr` and `<R>Cr` per entry. */
  readonly balanced: ReadonlySet<string>
  readonly totalsTable: string
  /** The chart's set (`ChartOfAccounts_Main`), its accounts and kinds of extra dimensions. */
  readonly chart: EntitySetModel
  readonly accounts: readonly ChartAccount[]
  readonly kinds: readonly ExtDimensionKind[]
  /** How many extra dimensions an account may have (the ExtDimension<N> columns). */
  readonly maxExtDimensions: number
}

export type RegisterTables = AccumulationTables | InformationTables | AccountingTables

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
  } else if (source.type === 'accountingRegister') {
    const chart = (model.configuration.chartsOfAccounts ?? []).find((c) => c.name === source.config.chartOfAccounts)!
    tables = Object.freeze({
      kind: 'accounting' as const,
      records: model.entitySetByName.get(source.recordTypeSet)!,
      dimensions: source.dimensions,
      resources: source.resources,
      balanced: new Set(source.config.resources.filter((r) => r.balanced !== false).map((r) => r.name)),
      totalsTable: source.totalsTable,
      chart: model.entitySetByName.get(source.chartSet)!,
      accounts: chart.accounts.map((a) =>
        Object.freeze({
          key: accountRefKey(chart.name, a.code),
          code: a.code,
          description: a.description,
          type: a.type,
          extDimensions: a.extDimensions ?? [],
        }),
      ),
      kinds: chart.extDimensionKinds.map((k) => Object.freeze({ name: k.name, valueType: `${model.namespace}.Catalog_${k.catalog}` })),
      maxExtDimensions: source.maxExtDimensions,
    })
  } else if (source.type === 'informationRegister') {
    tables = Object.freeze({ kind: 'information' as const, records: register, dimensions: source.dimensions, resources: source.resources })
  }
  cache.set(register, tables ?? null)
  return tables
}
