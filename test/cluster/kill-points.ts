// The moments a node can die at while the service posts change sets, and the seeded rounds that kill it at
// them: every statement a change set's path sends (the pool's connection and readiness check, START
// TRANSACTION, the document, movement and totals statements, the request log's INSERT, the rate counters,
// the COMMIT), each cut before the node has it, after it ran with its answer lost, or while the connection
// waits between two statements (test/support/statement-cutting-proxy.ts). A round posts a few change sets
// through the dying node and its peers; whatever the moment, a client sees a success, a 503 with
// Retry-After it sends again, or (sent again after an unknown outcome) a 412 saying the set is there:
// never a 500, and every set is applied once.
import type { KillRule, StatementContext, StatementCut } from '../support/statement-cutting-proxy.js'
import { seededRandom } from '../../src/seed/random.js'
import { applied, type PlannedBatch } from './posting-clients.js'

export interface KillPoint {
  readonly name: string
  readonly at: KillRule['at']
  /** The cuts that mean something there (a handshake has no answer to lose). */
  readonly cuts: readonly StatementCut[]
  /** How many like statements a round surely sends: the kill lands at one of them. */
  readonly occurrences: number
  /**
   * A COMMIT, or the statement just before one: a cut there may leave the outcome unknown to the service
   * (outcomeMayBeUnknown).
   */
  readonly commit?: 'the COMMIT' | 'just before the COMMIT'
}

const ALL_CUTS: readonly StatementCut[] = ['before', 'after', 'idle']
const startsWith =
  (pattern: RegExp) =>
  ({ text }: StatementContext) =>
    pattern.test(text)
const inTransactionWith =
  (statement: RegExp, earlier: RegExp) =>
  ({ text, transaction }: StatementContext) =>
    statement.test(text) && transaction.some((t) => earlier.test(t))

export const KILL_POINTS: readonly KillPoint[] = [
  { name: 'a new connection (handshake)', at: 'connect', cuts: ['before'], occurrences: 1 },
  { name: "the pool's readiness check", at: startsWith(/^SHOW STATUS/i), cuts: ALL_CUTS, occurrences: 1 },
  { name: 'START TRANSACTION', at: startsWith(/^START TRANSACTION/i), cuts: ALL_CUTS, occurrences: 3 },
  {
    name: "a document's INSERT (first statement of the set)",
    at: startsWith(/^INSERT INTO `d_[A-Za-z]+` /),
    cuts: ALL_CUTS,
    occurrences: 3,
  },
  { name: "a table part's INSERT", at: startsWith(/^INSERT INTO `d_[A-Za-z]+__/), cuts: ALL_CUTS, occurrences: 3 },
  { name: 'a movements INSERT (mid-set)', at: startsWith(/^INSERT INTO `(ar|acr)_[A-Za-z]+` /), cuts: ALL_CUTS, occurrences: 3 },
  { name: 'the totals upsert', at: startsWith(/^INSERT INTO `(ar|acr)_[A-Za-z]+__totals`/), cuts: ALL_CUTS, occurrences: 3 },
  {
    name: "the request log's INSERT",
    at: startsWith(/^INSERT INTO `request_log`/),
    cuts: ALL_CUTS,
    occurrences: 3,
    commit: 'just before the COMMIT',
  },
  // The rate counter row is a row of zeros made with INSERT IGNORE: running it twice changes nothing, so even
  // a COMMIT whose outcome is unknown runs again on the next node (runInTransaction's `idempotent`): no 503.
  {
    name: 'the rate counter row (INSERT IGNORE)',
    at: startsWith(/^INSERT IGNORE INTO `_rate_counters`/),
    cuts: ALL_CUTS,
    occurrences: 1,
  },
  {
    name: "the rate counter row's COMMIT",
    at: inTransactionWith(/^COMMIT/i, /^INSERT IGNORE INTO `_rate_counters`/),
    cuts: ALL_CUTS,
    occurrences: 1,
  },
  {
    name: 'the rate counter reservation (FOR UPDATE)',
    at: startsWith(/^SELECT `operations` FROM `_rate_counters`/),
    cuts: ALL_CUTS,
    occurrences: 1,
  },
  {
    name: "the rate counters' COMMIT",
    at: inTransactionWith(/^COMMIT/i, /^UPDATE `_rate_counters`/),
    cuts: ALL_CUTS,
    occurrences: 1,
    commit: 'the COMMIT',
  },
  {
    name: "a change set's COMMIT",
    at: inTransactionWith(/^COMMIT/i, /^INSERT INTO `d_/),
    cuts: ALL_CUTS,
    occurrences: 3,
    commit: 'the COMMIT',
  },
]

export interface KillRound {
  readonly point: KillPoint
  readonly cut: StatementCut
  /** Matching statements let through before the one cut (fewer than the point's occurrences). */
  readonly skip: number
  /** How long the node refuses connections after the cut. */
  readonly downMs: number
  describe(): string
}

/**
 * `count` rounds drawn from `seed`: the first ones go through every kill point in order (so that a short
 * run still meets each), with a seeded cut; further ones draw point and cut at random. `skip` and `downMs`
 * are seeded too, so the kill lands at another statement of the same kind and the node stays down for
 * another while.
 */
export function killRounds(seed: number, count: number): KillRound[] {
  const random = seededRandom(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!
  return Array.from({ length: count }, (_, i) => {
    const point = i < KILL_POINTS.length ? KILL_POINTS[(seed + i) % KILL_POINTS.length]! : pick(KILL_POINTS)
    const cut = pick(point.cuts)
    const skip = Math.floor(random() * point.occurrences)
    const downMs = pick([0, 500, 1500])
    return { point, cut, skip, downMs, describe: () => `${point.name}, cut ${cut}, after ${skip} like it, down ${downMs} ms` }
  })
}

/**
 * Whether the round's kill may leave a transaction's outcome unknown to the service: a connection lost at
 * a COMMIT (cut before or after the node had it: from the service's side the two look the same), or lost
 * between the statement before a COMMIT and the COMMIT (cut idle there: the COMMIT meets a connection
 * that is closing, and whether the node got it cannot be told). The service answers 503 and the client's
 * repeat finds the set applied or applies it. At any other moment nothing of the transaction can have
 * committed, and the service runs it again on the next node: its client sees no 503 at all.
 */
export function outcomeMayBeUnknown(round: KillRound): boolean {
  if (round.point.commit === 'the COMMIT') return round.cut !== 'idle'
  return round.point.commit === 'just before the COMMIT' && round.cut === 'idle'
}

/** Batches that were not committed at their first sending, with what they were answered. */
export function notCommittedAtFirstSending(batches: readonly PlannedBatch[]): string[] {
  return batches
    .filter((batch) => batch.answers.length !== 1 || batch.answers[0]!.kind !== 'committed')
    .map(
      (batch) => `${batch.client}/${batch.index}: ${batch.answers.map((a) => `${a.kind} ${a.statuses.join(',')} ${a.detail}`).join('; ')}`,
    )
}

/** What the clients were told that they must never be told: a 500 or another failure, a 503 without Retry-After, a set never applied. */
export function clientComplaints(batches: readonly PlannedBatch[]): string[] {
  const complaints: string[] = []
  for (const batch of batches) {
    const name = `${batch.client}/${batch.index}`
    for (const answer of batch.answers) {
      if (answer.kind === 'failed') complaints.push(`${name}: ${answer.statuses.join(',')} ${answer.detail}`)
      if (answer.kind === 'retry' && !/^\d+$/.test(answer.retryAfter ?? '')) complaints.push(`${name}: 503 without Retry-After`)
    }
    if (!applied(batch)) complaints.push(`${name}: never acknowledged (${batch.answers.map((a) => a.kind).join(',')})`)
  }
  return complaints
}
