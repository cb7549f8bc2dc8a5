// The rate rules' counters as they stand (rate-limiter.ts keeps them in `_rate_counters`, shared by every
// process), for the administration page: per subject and rule, the operations counted in the current
// window, the rule's limit and when the window ends.
import type { ServiceModel } from '../model/model.js'
import { sql } from '../sql/sql-template.js'
import type { Pool } from '../store/pool.js'
import { databaseOf } from '../store/database.js'

export interface RateCounter {
  readonly subject: string
  readonly profile: string
  readonly rule: number
  readonly operations: number
  readonly limit: number
  readonly perSeconds: number
  readonly windowEndsAt: string
}

export async function readRateCounters(pool: Pool, model: ServiceModel, nowMs = Date.now()): Promise<RateCounter[]> {
  const nowSeconds = Math.floor(nowMs / 1000)
  const rows = await databaseOf(pool).rows<{
    subject: string
    rule_index: number
    window_start: number | string
    operations: number | string
  }>(
    sql`SELECT \`subject\`, \`rule_index\`, \`window_start\`, \`operations\` FROM \`_rate_counters\` WHERE \`window_start\` > ${nowSeconds - 86_400}`,
  )
  const counters: RateCounter[] = []
  for (const subject of model.subjects) {
    for (const [index, rule] of subject.profile.rateRules.entries()) {
      const windowStart = Math.floor(nowSeconds / rule.per) * rule.per
      const row = rows.find(
        (candidate) =>
          candidate.subject === subject.name && Number(candidate.rule_index) === index && Number(candidate.window_start) === windowStart,
      )
      counters.push({
        subject: subject.name,
        profile: subject.profile.name,
        rule: index,
        operations: row === undefined ? 0 : Number(row.operations),
        limit: rule.operations,
        perSeconds: rule.per,
        windowEndsAt: new Date((windowStart + rule.per) * 1000).toISOString(),
      })
    }
  }
  return counters
}
