// The generic poster's core: a document's posting rules (configuration data, decisions.md §5) compiled
// once into a plan, then applied to a document and its table parts to produce movement rows. No
// document or register name appears in code; `Post`, the seed generator and the totals all use this.
import type { PostingRuleConfig } from '../model/configuration.js'
import type { EntitySetModel, PropertyModel, ServiceModel, StorageType } from '../model/model.js'
import { EMPTY_GUID } from '../model/model.js'
import { accountRefKey } from '../model/account-key.js'

/** A document's values by property name (`Ref_Key`, `Date`, `Warehouse_Key`, …). */
export type EntityValues = Readonly<Record<string, unknown>>

export interface PostingInput {
  readonly document: EntityValues
  /** Table-part rows by table-part name, each row by property name. */
  readonly tableParts: Readonly<Record<string, readonly EntityValues[]>>
}

/** Movement rows of one register, as arrays in the order of `columns` (ready for a multi-row INSERT). */
export interface RegisterMovements {
  readonly recordTypeSet: EntitySetModel
  readonly columns: readonly PropertyModel[]
  readonly rows: unknown[][]
}

type ValueGetter = (document: EntityValues, row: EntityValues | undefined) => unknown

interface CompiledRule {
  readonly forEach: string | undefined
  /** One getter per column of the register's record type, in column order. */
  readonly getters: readonly ValueGetter[]
  readonly lineNumberIndex: number
}

interface RegisterPlan {
  readonly recordTypeSet: EntitySetModel
  readonly rules: CompiledRule[]
}

export interface PostingPlan {
  readonly registers: readonly RegisterPlan[]
  /** Every register this document may write to (Unpost clears them all, rules or not). */
  readonly recordTypeSets: readonly EntitySetModel[]
  /** The table parts the rules read (`forEach`), so a poster loads those and no others. */
  readonly tableParts: readonly string[]
}

export function defaultValue(storage: StorageType): unknown {
  switch (storage.kind) {
    case 'guid':
      return EMPTY_GUID
    case 'string':
      return ''
    case 'enum':
      return storage.values[0] ?? ''
    case 'datetime':
      return '0001-01-01 00:00:00'
    default:
      return 0
  }
}

/** `document.Warehouse` / `row.Quantity` → a getter; references resolve to their `_Key` property. */
function sourceGetter(source: string, documentSet: EntitySetModel, rowSet: EntitySetModel | undefined): ValueGetter {
  const [scope, name] = source.split('.', 2) as ['document' | 'row', string]
  const owner = scope === 'row' ? rowSet! : documentSet
  const property = owner.propertyByName.get(name) ?? owner.propertyByName.get(`${name}_Key`)!
  const key = property.name
  const fallback = defaultValue(property.storage)
  return scope === 'row' ? (_document, row) => row?.[key] ?? fallback : (document) => document[key] ?? fallback
}

function compileRule(
  model: ServiceModel,
  documentSet: EntitySetModel,
  rule: PostingRuleConfig,
  recordTypeSet: EntitySetModel,
): CompiledRule {
  const source = documentSet.source
  if (source.type !== 'document') throw new Error(`${documentSet.name} is not a document`)
  const rowSet = rule.forEach === undefined ? undefined : model.entitySetByName.get(`${documentSet.name}_${rule.forEach}`)
  const recorderType = `${model.namespace}.${documentSet.name}`
  const assigned = new Map<string, ValueGetter>()
  for (const [column, value] of Object.entries(rule.values)) {
    const property = recordTypeSet.propertyByName.get(column) ?? recordTypeSet.propertyByName.get(`${column}_Key`)!
    assigned.set(property.name, sourceGetter(value, documentSet, rowSet))
  }
  assigned.set('Recorder', (document) => document.Ref_Key)
  assigned.set('Recorder_Type', () => recorderType)
  assigned.set('Period', (document) => document.Date)
  assigned.set('Active', () => 1)
  if (rule.recordType !== undefined) {
    const recordType = rule.recordType
    assigned.set('RecordType', () => recordType)
  }
  const register = model.entitySetByName.get(recordTypeSet.name.replace(/_RecordType$/, ''))!.source
  if (register.type === 'accountingRegister') {
    const chart = (model.configuration.chartsOfAccounts ?? []).find((c) => c.name === register.config.chartOfAccounts)!
    for (const [side, entry] of [
      ['Dr', rule.debit],
      ['Cr', rule.credit],
    ] as const) {
      if (!entry) continue
      const account = chart.accounts.find((a) => a.code === entry.account)!
      const accountKey = accountRefKey(chart.name, account.code)
      assigned.set(`Account${side}_Key`, () => accountKey)
      ;(entry.extDimensions ?? []).forEach((value, i) => {
        const kind = chart.extDimensionKinds.find((k) => k.name === account.extDimensions?.[i])!
        const typeName = `${model.namespace}.Catalog_${kind.catalog}`
        assigned.set(`ExtDimension${side}${i + 1}`, sourceGetter(value, documentSet, rowSet))
        assigned.set(`ExtDimension${side}${i + 1}_Type`, () => typeName)
      })
    }
  }
  const getters = recordTypeSet.properties.map((p) => {
    const getter = assigned.get(p.name)
    if (getter) return getter
    const fallback = defaultValue(p.storage)
    return () => fallback
  })
  return { forEach: rule.forEach, getters, lineNumberIndex: recordTypeSet.properties.findIndex((p) => p.name === 'LineNumber') }
}

const planCache = new WeakMap<EntitySetModel, PostingPlan>()

/** The compiled plan of a document set (cached: the model does not change while the service runs). */
export function postingPlan(model: ServiceModel, documentSet: EntitySetModel): PostingPlan {
  const cached = planCache.get(documentSet)
  if (cached) return cached
  const source = documentSet.source
  if (source.type !== 'document') throw new Error(`${documentSet.name} is not a document`)
  const registers = new Map<string, RegisterPlan>()
  for (const rule of source.posting) {
    const recordTypeSet = model.entitySetByName.get(`${rule.register.replace('.', '_')}_RecordType`)!
    const plan = registers.get(recordTypeSet.name) ?? { recordTypeSet, rules: [] }
    plan.rules.push(compileRule(model, documentSet, rule, recordTypeSet))
    registers.set(recordTypeSet.name, plan)
  }
  const recordTypeSets = model.entitySets.filter((set) => {
    const records = set.source
    if (records.type !== 'accumulationRegisterRecords' && records.type !== 'accountingRegisterRecords') return false
    const register = model.entitySetByName.get(records.recordSetSet)!.source
    return (register.type === 'accumulationRegister' || register.type === 'accountingRegister') && register.recorders.includes(source.name)
  })
  const tableParts = [...new Set(source.posting.flatMap((rule) => (rule.forEach === undefined ? [] : [rule.forEach])))]
  const plan: PostingPlan = { registers: [...registers.values()], recordTypeSets, tableParts }
  planCache.set(documentSet, plan)
  return plan
}

/** Applies a plan: the movements of one document, LineNumber counted from 1 per register. */
export function computeMovements(plan: PostingPlan, input: PostingInput): RegisterMovements[] {
  return plan.registers.map((register) => {
    const rows: unknown[][] = []
    for (const rule of register.rules) {
      const sourceRows: readonly (EntityValues | undefined)[] =
        rule.forEach === undefined ? [undefined] : (input.tableParts[rule.forEach] ?? [])
      for (const row of sourceRows) {
        const values = rule.getters.map((get) => get(input.document, row))
        values[rule.lineNumberIndex] = rows.length + 1
        rows.push(values)
      }
    }
    return { recordTypeSet: register.recordTypeSet, columns: register.recordTypeSet.properties, rows }
  })
}
