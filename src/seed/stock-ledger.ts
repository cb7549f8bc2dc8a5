// The seed's running balances of the balance-kind accumulation registers, kept as documents are made in
// date order, so that a document never takes out what was not put in before it: per dimension combination
// (warehouse and product in the demo), no resource balance goes below zero at any movement, as in a real
// business (and balances, turnovers and stock reports of the demo mean something). Which registers,
// dimensions and resources take part comes from the posting plan (configuration data); no name is in code.
import type { EntitySetModel, ServiceModel } from '../model/model.js'
import type { EntityValues, PostingPlan } from '../posting/posting-plan.js'

/** The movement columns of one balance-kind register's record type, by role. */
interface BalanceColumns {
  readonly recordType: number
  readonly dimensions: readonly number[]
  readonly resources: readonly number[]
}

/** What one rule of a plan writes to a balance-kind register. */
interface BalanceRule {
  readonly set: EntitySetModel
  readonly columns: BalanceColumns
  readonly forEach: string | undefined
  readonly getters: readonly ((document: EntityValues, row: EntityValues | undefined) => unknown)[]
}

/** One row's effect on one balance: the key of its dimension combination and the signed resource amounts. */
interface BalanceChange {
  readonly balances: Map<string, number[]>
  readonly key: string
  readonly deltas: readonly number[]
}

export class StockLedger {
  private readonly balancesBySet = new Map<EntitySetModel, Map<string, number[]>>()
  private readonly rulesByPlan = new WeakMap<PostingPlan, readonly BalanceRule[]>()

  constructor(private readonly model: ServiceModel) {}

  /**
   * The largest share (0…1) of a table-part row the balances can give out now: 1 when the row takes out
   * nothing it lacks (or only puts in), less when a resource would go below zero, 0 when a combination it
   * takes from is empty. Resources of a row are proportional to its quantity, so scaling the quantity
   * by this share keeps every balance at or above zero.
   */
  available(plan: PostingPlan, document: EntityValues, tablePart: string, row: EntityValues): number {
    let share = 1
    for (const change of this.changes(plan, document, tablePart, row)) {
      const balance = change.balances.get(change.key)
      change.deltas.forEach((delta, i) => {
        if (delta >= 0) return
        const left = balance?.[i] ?? 0
        share = Math.min(share, left <= 0 ? 0 : left / -delta)
      })
    }
    return share
  }

  /** Books a table-part row (`tablePart` given) or the document-level rules (`tablePart` undefined). */
  book(plan: PostingPlan, document: EntityValues, tablePart: string | undefined, row?: EntityValues): void {
    for (const change of this.changes(plan, document, tablePart, row)) {
      let balance = change.balances.get(change.key)
      if (!balance) change.balances.set(change.key, (balance = change.deltas.map(() => 0)))
      for (const [i, delta] of change.deltas.entries()) balance[i]! += delta
    }
  }

  private changes(
    plan: PostingPlan,
    document: EntityValues,
    tablePart: string | undefined,
    row: EntityValues | undefined,
  ): BalanceChange[] {
    const changes: BalanceChange[] = []
    for (const rule of this.rules(plan)) {
      if (rule.forEach !== tablePart) continue
      const values = rule.getters.map((get) => get(document, row))
      const sign = values[rule.columns.recordType] === 'Expense' ? -1 : 1
      changes.push({
        balances: this.balances(rule.set),
        key: rule.columns.dimensions.map((i) => String(values[i])).join('\u0000'),
        deltas: rule.columns.resources.map((i) => sign * Number(values[i])),
      })
    }
    return changes
  }

  private balances(set: EntitySetModel): Map<string, number[]> {
    let balances = this.balancesBySet.get(set)
    if (!balances) this.balancesBySet.set(set, (balances = new Map()))
    return balances
  }

  private rules(plan: PostingPlan): readonly BalanceRule[] {
    let rules = this.rulesByPlan.get(plan)
    if (!rules) {
      rules = plan.registers.flatMap((register) => {
        const columns = this.balanceColumns(register.recordTypeSet)
        return columns === undefined
          ? []
          : register.rules.map((rule) => ({ set: register.recordTypeSet, columns, forEach: rule.forEach, getters: rule.getters }))
      })
      this.rulesByPlan.set(plan, rules)
    }
    return rules
  }

  /** The columns of a record type whose register keeps balances; undefined for turnover and accounting registers. */
  private balanceColumns(recordTypeSet: EntitySetModel): BalanceColumns | undefined {
    const records = recordTypeSet.source
    if (records.type !== 'accumulationRegisterRecords') return undefined
    const register = this.model.entitySetByName.get(records.recordSetSet)?.source
    if (register?.type !== 'accumulationRegister' || register.registerKind !== 'Balance') return undefined
    const properties = recordTypeSet.properties
    const indexes = (role: string) => properties.flatMap((p, i) => (p.role === role ? [i] : []))
    return {
      recordType: properties.findIndex((p) => p.name === 'RecordType'),
      dimensions: indexes('dimension'),
      resources: indexes('resource'),
    }
  }
}
