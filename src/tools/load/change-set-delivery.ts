// One change set of rows through $batch until every row has its outcome: loaded, present (its key was
// there already: `409`, or `412` under If-None-Match), or rejected (any other refusal, with the row).
// A refused operation rolls its whole change set back (service.md §4.4 rule 3), so its row is taken out
// and the others are sent again. Rows that may already be in the service (sent before a crash or a lost
// connection) are looked up by key first and sent with `If-None-Match: *`; the others are sent plain,
// since a client key already makes a second copy impossible and the service writes plain creates and
// their Posts with multi-row INSERTs.
import { memberOf, type OperationAnswer } from '../shared/batch-answer.js'
import { buildBatchBody, type BatchFormat, type OperationSpec } from '../shared/batch-body.js'
import type { ServiceClient } from '../shared/service-client.js'
import type { BatchSender } from './batch-sender.js'
import { allowedOperations, type BatchLimits } from './service-limits.js'

export interface PendingRow {
  readonly row: number
  /** The line of the input it begins on (for the reject file). */
  readonly line?: number
  readonly record: unknown
  readonly body: Record<string, unknown>
  /** Bytes of the input up to the end of this row. */
  readonly offset: number
  /** May be in the service already (sent by an earlier run, or over a lost connection). */
  uncertain: boolean
}

export type RowOutcome =
  | { readonly kind: 'loaded' }
  | { readonly kind: 'present' }
  | { readonly kind: 'rejected'; readonly status: number; readonly code: string; readonly message: string }

export interface DeliveryTarget {
  readonly set: string
  /** Creates with client keys (catalogs, documents); information register records are upserts. */
  readonly keyed: boolean
  readonly post: boolean
  readonly format: BatchFormat
}

export interface DeliveryContext {
  readonly client: ServiceClient
  readonly sender: BatchSender
  readonly limits: BatchLimits
  /** Called before a change set goes out, with its rows (the checkpoint's `sent`). */
  readonly sending: (rows: readonly PendingRow[]) => void
  /** Called as rows get their outcome (all rows of one call have the same). */
  readonly settled: (rows: readonly PendingRow[], outcome: RowOutcome) => void
}

export function operationsPerRow(target: DeliveryTarget): number {
  return target.keyed && target.post ? 2 : 1
}

function operationsOf(target: DeliveryTarget, rows: readonly PendingRow[]): OperationSpec[] {
  const creates: OperationSpec[] = []
  const posts: OperationSpec[] = []
  for (const row of rows) {
    creates.push({
      id: `r${row.row}`,
      method: 'POST',
      url: target.set,
      headers:
        row.uncertain && target.keyed
          ? { 'content-type': 'application/json', 'if-none-match': '*' }
          : { 'content-type': 'application/json' },
      body: row.body,
      atomicityGroup: 'g',
    })
    if (target.keyed && target.post) posts.push({ id: `p${row.row}`, method: 'POST', url: `$r${row.row}/Post`, atomicityGroup: 'g' })
  }
  // Creates first, then their Posts: the shape the service writes together (one multi-row INSERT).
  return [...creates, ...posts]
}

export async function deliverChangeSet(context: DeliveryContext, target: DeliveryTarget, rows: readonly PendingRow[]): Promise<void> {
  let remaining = [...rows]
  while (remaining.length > 0) {
    if (target.keyed && remaining.some((r) => r.uncertain)) remaining = await settlePresent(context, target, remaining)
    if (remaining.length === 0) return
    const perRow = operationsPerRow(target)
    if (remaining.length * perRow > context.limits.maxOperations) {
      const half = Math.max(1, Math.floor(context.limits.maxOperations / perRow))
      await deliverChangeSet(context, target, remaining.slice(0, half))
      remaining = remaining.slice(half)
      continue
    }
    context.sending(remaining)
    const outcome = await context.sender.send(buildBatchBody(operationsOf(target, remaining), target.format))
    if (outcome.kind === 'lost') {
      for (const row of remaining) row.uncertain = true
      continue
    }
    if (outcome.kind === 'refused') {
      if (outcome.code === 'TooManyOperations' || outcome.status === 413) {
        const allowed = allowedOperations(outcome.message)
        if (allowed !== undefined && allowed < context.limits.maxOperations) {
          context.limits.maxOperations = allowed
          context.limits.source = `400 ${outcome.code}`
        } else if (outcome.status === 413 && remaining.length > 1) {
          context.limits.maxOperations = Math.max(perRow, Math.floor((remaining.length * perRow) / 2))
          context.limits.source = '413'
        }
        if (remaining.length > 1) continue
      }
      if (remaining.length > 1) {
        // A refusal of the whole batch names no row: halve until it does.
        const half = Math.ceil(remaining.length / 2)
        await deliverChangeSet(context, target, remaining.slice(0, half))
        remaining = remaining.slice(half)
        continue
      }
      context.settled([remaining[0]!], { kind: 'rejected', status: outcome.status, code: outcome.code, message: outcome.message })
      return
    }
    const failed = outcome.operations.find((op) => op.status >= 400 && op.status !== 424)
    if (!failed) {
      if (outcome.operations.length === 0) throw new Error('the service answered the batch with no operations')
      context.settled(remaining, { kind: 'loaded' })
      return
    }
    if (failed.status >= 500) {
      // Rolled back with its change set (a lock wait, the database gone): the same rows again, later.
      for (const row of remaining) row.uncertain = true
      await context.sender.unavailable(Number(failed.headers['retry-after']) || undefined)
      continue
    }
    const row = rowOf(remaining, failed)
    if (!row)
      throw new Error(`the service refused operation ${failed.id ?? '(no id)'} with ${failed.status}, which names no row of the change set`)
    const isCreate = failed.id === `r${row.row}`
    if (isCreate && target.keyed && (failed.status === 409 || failed.status === 412)) context.settled([row], { kind: 'present' })
    else {
      const error = memberOf(failed.body, 'error')
      context.settled([row], {
        kind: 'rejected',
        status: failed.status,
        code: String(memberOf(error, 'code') ?? `HTTP${failed.status}`),
        message: String(memberOf(error, 'message') ?? ''),
      })
    }
    remaining = remaining.filter((r) => r !== row)
  }
}

function rowOf(rows: readonly PendingRow[], answer: OperationAnswer): PendingRow | undefined {
  const number = Number(/^[rp](\d+)$/.exec(answer.id ?? '')?.[1])
  return rows.find((r) => r.row === number)
}

/** Looks the uncertain rows' keys up; those found are settled as present, the rest go on. */
async function settlePresent(context: DeliveryContext, target: DeliveryTarget, rows: PendingRow[]): Promise<PendingRow[]> {
  const uncertain = rows.filter((r) => r.uncertain)
  const found = new Set<string>()
  for (let i = 0; i < uncertain.length; i += 40) {
    const keys = uncertain.slice(i, i + 40).map((r) => String(r.body.Ref_Key))
    const query = `${target.set}?$select=Ref_Key&$filter=${encodeURIComponent(`Ref_Key in (${keys.join(',')})`)}`
    const answer = await context.sender.read(query)
    if (answer.status !== 200) throw new Error(`looking up keys in ${target.set} answered ${answer.status}: ${answer.text().slice(0, 200)}`)
    for (const item of (answer.json() as { value: { Ref_Key: string }[] }).value) found.add(item.Ref_Key)
  }
  const present = rows.filter((row) => row.uncertain && found.has(String(row.body.Ref_Key)))
  if (present.length > 0) context.settled(present, { kind: 'present' })
  return rows.filter((row) => !present.includes(row))
}
