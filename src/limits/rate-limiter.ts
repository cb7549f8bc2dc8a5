// Profile rate rules (service.md §8 rule 2, decisions.md §8): fixed windows per subject, counted in MySQL
// so every process of the service shares them. A batch counts each of its operations; when any rule
// cannot take them all, the whole batch is refused with 429 and still spends its operations, and
// Retry-After is the time to the end of the window that waits longest (at least one second).
import { ODataError } from '../errors.js'
import type { SubjectModel } from '../model/model.js'
import { sql } from '../sql/sql-template.js'
import type { Pool } from '../store/pool.js'
import { runInTransaction } from '../store/transaction.js'

export interface RateDecision {
  readonly allowed: boolean
  readonly retryAfterSeconds: number
}

/** Counts `operations` against every rule of the subject's profile; the counters move even when refused. */
export async function consumeRate(pool: Pool, subject: SubjectModel, operations: number, nowMs = Date.now()): Promise<RateDecision> {
  const rules = subject.profile.rateRules
  if (rules.length === 0 || operations <= 0) return { allowed: true, retryAfterSeconds: 0 }
  const nowSeconds = Math.floor(nowMs / 1000)
  let retryAfter = 0
  // One transaction, retried whole when it loses a deadlock or (on a cluster) certification: processes on
  // other nodes move the same counters (runInTransaction).
  await runInTransaction(pool, async (transaction) => {
    retryAfter = 0
    for (const [index, rule] of rules.entries()) {
      const windowStart = Math.floor(nowSeconds / rule.per) * rule.per
      // The upsert locks the row, so the read that follows sees this transaction's own total.
      await transaction.run(
        sql`INSERT INTO \`_rate_counters\` (\`subject\`, \`rule_index\`, \`window_start\`, \`operations\`) VALUES (${subject.name}, ${index}, ${windowStart}, ${operations}) ON DUPLICATE KEY UPDATE \`operations\` = \`operations\` + ${operations}`,
      )
      const rows = await transaction.rows<{ operations: string | number }>(
        sql`SELECT \`operations\` FROM \`_rate_counters\` WHERE \`subject\` = ${subject.name} AND \`rule_index\` = ${index} AND \`window_start\` = ${windowStart}`,
      )
      const used = Number(rows[0]!.operations)
      if (used > rule.operations) retryAfter = Math.max(retryAfter, windowStart + rule.per - nowSeconds)
    }
    // Old windows are of no use to anyone: drop them now and then, cheaply.
    if (nowSeconds % 60 === 0) await transaction.run(sql`DELETE FROM \`_rate_counters\` WHERE \`subject\` = ${subject.name} AND \`window_start\` < ${nowSeconds - 86_400}`)
  })
  return retryAfter > 0 ? { allowed: false, retryAfterSeconds: Math.max(1, retryAfter) } : { allowed: true, retryAfterSeconds: 0 }
}

export function rateLimited(decision: RateDecision, operations: number): ODataError {
  return new ODataError('RateLimited', `The profile's rate rule does not cover these ${operations} operation(s); retry after ${decision.retryAfterSeconds} s`, {
    headers: { 'Retry-After': String(decision.retryAfterSeconds) },
  })
}
