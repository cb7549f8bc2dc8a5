// Profile rate rules (service.md §8 rule 2, decisions.md §8): fixed windows per subject, counters shared by
// every process of the service through MySQL (`_rate_counters`). Every request counts: a single request one
// operation, a batch each of its operations. When any rule cannot take them all, the request is refused with
// 429 and still spends its operations; Retry-After is the time to the end of the window that waits longest
// (at least one second).
//
// No database round trip per request: a process reserves operations in blocks (a fiftieth of the rule, at
// least what the request needs) and counts against its block in memory; only when the block is spent does it
// go to MySQL for the next one. The shared counter is the sum of what every process reserved, so no window
// ever grants more than the rule; what a process reserved and did not use by the window's end is lost to
// the others (at most a block per process and rule: a request may be refused up to that much early).
// Once the shared counter is full, the process refuses in memory until the window ends.
import { ODataError } from '../errors.js'
import { rateLimitRefusalsTotal } from '../metrics/service-metrics.js'
import type { SubjectModel } from '../model/model.js'
import { sql } from '../sql/sql-template.js'
import type { Pool } from '../store/pool.js'
import { databaseOf } from '../store/database.js'
import { runInTransaction } from '../store/transaction.js'

export interface RateDecision {
  readonly allowed: boolean
  readonly retryAfterSeconds: number
}

interface RateRule {
  readonly operations: number
  readonly per: number
}

/** What this process holds of one rule's window for one subject. */
interface Allowance {
  readonly windowEnd: number
  /** Operations reserved in MySQL by this process. */
  reserved: number
  /** Operations counted against them (refused requests included). */
  used: number
  /** The shared counter has nothing left in this window. */
  full: boolean
  /** A reservation in flight: others wait for it rather than reserve twice. */
  reserving: Promise<void> | undefined
}

const ALLOWED: RateDecision = { allowed: true, retryAfterSeconds: 0 }
/** A block is this share of the rule's operations. */
const BLOCKS_PER_RULE = 50

export function blockSize(rule: RateRule): number {
  return Math.max(1, Math.floor(rule.operations / BLOCKS_PER_RULE))
}

export class RateLimiter {
  private readonly allowances = new Map<string, Allowance>()
  private sweptAt = 0
  /** Reservations made in MySQL, for the tests (one per block, not per request). */
  reservations = 0

  constructor(private readonly pool: Pool) {}

  /** Counts `operations` against every rule of the subject's profile; they are spent even when refused. */
  async consume(subject: SubjectModel, operations: number, nowMs = Date.now()): Promise<RateDecision> {
    const rules = subject.profile.rateRules
    if (rules.length === 0 || operations <= 0) return ALLOWED
    const nowSeconds = Math.floor(nowMs / 1000)
    this.sweep(nowSeconds)
    let retryAfter = 0
    for (const [index, rule] of rules.entries()) {
      const windowStart = Math.floor(nowSeconds / rule.per) * rule.per
      const fits = await this.take(subject.name, index, rule, windowStart, operations)
      if (!fits) retryAfter = Math.max(retryAfter, windowStart + rule.per - nowSeconds)
    }
    if (retryAfter > 0) rateLimitRefusalsTotal.inc({ subject: subject.name })
    return retryAfter > 0 ? { allowed: false, retryAfterSeconds: Math.max(1, retryAfter) } : ALLOWED
  }

  private async take(subjectName: string, index: number, rule: RateRule, windowStart: number, operations: number): Promise<boolean> {
    const key = `${subjectName}\u0000${index}\u0000${windowStart}`
    let allowance = this.allowances.get(key)
    if (!allowance) {
      allowance = { windowEnd: windowStart + rule.per, reserved: 0, used: 0, full: false, reserving: undefined }
      this.allowances.set(key, allowance)
    }
    for (;;) {
      if (allowance.used + operations <= allowance.reserved) {
        allowance.used += operations
        return true
      }
      if (allowance.full) {
        allowance.used += operations
        return false
      }
      if (allowance.reserving) {
        await allowance.reserving
        continue
      }
      const need = operations - (allowance.reserved - allowance.used)
      const want = Math.max(need, blockSize(rule))
      const held = allowance
      let granted = 0
      let failure: { error: unknown } | undefined
      held.reserving = this.reserve(subjectName, index, rule, windowStart, need, want).then(
        (count) => {
          granted = count
        },
        (error: unknown) => {
          failure = { error }
        },
      )
      try {
        await held.reserving
      } finally {
        held.reserving = undefined
      }
      // A database that cannot be reached is the request's 503, not a refusal (errors.ts).
      if (failure) throw failure.error
      if (granted === 0) {
        // Refused: the shared counter was spent by `need` (the request's operations beyond this process's
        // block), and what was left of the block is spent with it.
        held.full = true
        held.used = Math.max(held.used, held.reserved) + need
        return false
      }
      held.reserved += granted
      if (granted < want) held.full = true
    }
  }

  /**
   * Takes `want` operations from the shared counter, or what is left when that is less but at least
   * `need`; resolves to the number taken. With less than `need` left, the counter is spent by `need`
   * anyway (a refused request spends its operations) and it resolves to 0.
   */
  private async reserve(
    subjectName: string,
    index: number,
    rule: RateRule,
    windowStart: number,
    need: number,
    want: number,
  ): Promise<number> {
    this.reservations++
    // The row is made in a transaction of its own, committed before the one that locks it: two transactions
    // that both insert it and then lock it for update deadlock on the duplicate key's shared lock. Locking an
    // existing row only queues. Its own transaction, not a bare statement, so that a node lost before its
    // COMMIT makes it run again on the next node (runInTransaction) instead of failing the request; a row of
    // zeros inserted twice is inserted once, so also when its COMMIT's outcome is unknown (idempotent).
    await runInTransaction(
      this.pool,
      (transaction) =>
        transaction.run(
          sql`INSERT IGNORE INTO \`_rate_counters\` (\`subject\`, \`rule_index\`, \`window_start\`, \`operations\`) VALUES (${subjectName}, ${index}, ${windowStart}, 0)`,
        ),
      { idempotent: true },
    )
    // Retried whole when it loses a deadlock or, on a cluster, certification: processes on other nodes move
    // the same counters (runInTransaction).
    const taken = await runInTransaction(this.pool, async (transaction) => {
      const rows = await transaction.rows<{ operations: string | number }>(
        sql`SELECT \`operations\` FROM \`_rate_counters\` WHERE \`subject\` = ${subjectName} AND \`rule_index\` = ${index} AND \`window_start\` = ${windowStart} FOR UPDATE`,
      )
      const left = rule.operations - Number(rows[0]!.operations)
      const spent = left >= need ? Math.min(want, left) : need
      await transaction.run(
        sql`UPDATE \`_rate_counters\` SET \`operations\` = \`operations\` + ${spent} WHERE \`subject\` = ${subjectName} AND \`rule_index\` = ${index} AND \`window_start\` = ${windowStart}`,
      )
      return left >= need ? spent : 0
    })
    // Old windows are of no use to anyone: drop them now and then, cheaply, outside the transaction.
    const nowSeconds = Math.floor(Date.now() / 1000)
    if (nowSeconds % 60 === 0) {
      await databaseOf(this.pool)
        .run(sql`DELETE FROM \`_rate_counters\` WHERE \`subject\` = ${subjectName} AND \`window_start\` < ${nowSeconds - 86_400}`)
        .catch(() => undefined)
    }
    return taken
  }

  /** Forgets the allowances of windows that have ended, at most once a second. */
  private sweep(nowSeconds: number): void {
    if (nowSeconds === this.sweptAt) return
    this.sweptAt = nowSeconds
    for (const [key, allowance] of this.allowances) {
      if (allowance.windowEnd <= nowSeconds && !allowance.reserving) this.allowances.delete(key)
    }
  }
}

export function rateLimited(decision: RateDecision, operations: number): ODataError {
  return new ODataError(
    'RateLimited',
    `The profile's rate rule does not cover these ${operations} operation(s); retry after ${decision.retryAfterSeconds} s`,
    {
      headers: { 'Retry-After': String(decision.retryAfterSeconds) },
    },
  )
}
