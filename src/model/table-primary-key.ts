// The primary key of the table that holds an entity set's rows, from the model alone. The store creates
// the table with it (src/store/schema.ts) and the compiler orders by it (src/sql/entity-set-sources.ts:
// the order the index delivers without sorting), so both read it here rather than one from the other.
import type { EntitySetModel, ServiceModel } from './model.js'

/** Movement tables are keyed by recorder and line number, whatever the register. */
export const MOVEMENT_PRIMARY_KEY: readonly string[] = ['Recorder', 'LineNumber']

/** The key columns of the table `set.table` when this set creates it; undefined when the set only reads another set's table. */
export function tablePrimaryKey(model: ServiceModel, set: EntitySetModel): readonly string[] | undefined {
  const source = set.source
  const keyColumns = () => set.key.map((p) => p.column)
  switch (source.type) {
    case 'catalog':
    case 'chartOfAccounts':
    case 'document':
    case 'tablePart':
    case 'chartOfAccountsExtDimensionTypes':
      return keyColumns()
    case 'informationRegister':
      // Dimensions first, then Period: SliceLast/SliceFirst seek per dimension combination.
      return source.periodicity === 'None' ? keyColumns() : [...source.dimensions.map((d) => set.propertyByName.get(d)!.column), 'Period']
    case 'accumulationRegisterRecords':
      return model.entitySetByName.get(source.recordSetSet)!.source.type === 'accumulationRegister' ? MOVEMENT_PRIMARY_KEY : undefined
    case 'accountingRegisterRecords':
      return model.entitySetByName.get(source.recordSetSet)!.source.type === 'accountingRegister' ? MOVEMENT_PRIMARY_KEY : undefined
    default:
      // Record-set sets read the movement table of their register.
      return undefined
  }
}
