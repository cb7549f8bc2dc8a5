// A load from start to end: the service's metadata and limits, then each input in turn, its rows mapped
// and gathered into change sets of as many rows as the limits take, up to `concurrency` change sets in
// flight (the reader waits for a free one, so memory stays flat however large the input), each row's
// outcome written to the checkpoint (and a refusal to the reject file) as it comes.
import type { BatchFormat } from '../shared/batch-body.js'
import { ServiceClient } from '../shared/service-client.js'
import { BatchSender, GaveUpError } from './batch-sender.js'
import {
  deliverChangeSet,
  operationsPerRow,
  type DeliveryContext,
  type DeliveryTarget,
  type PendingRow,
  type RowOutcome,
} from './change-set-delivery.js'
import { Checkpoint } from './checkpoint.js'
import { DEFAULT_LIMITS, type InputLimits } from './input-limits.js'
import { formatOf, openInput, type Input } from './input-rows.js'
import { InputStop } from './input-source.js'
import { joinedInput } from './joined-rows.js'
import type { LooseLine } from './lines-index.js'
import { createProgress, type LoadProgress } from './load-progress.js'
import type { FilePlan } from './load-plan.js'
import { ReferenceResolver } from './reference-resolver.js'
import { RejectFile } from './reject-file.js'
import { rowKey } from './row-key.js'
import { RowError } from './row-error.js'
import { RowMapper } from './row-mapper.js'
import { identityName, inputIdentity } from './input-fingerprint.js'
import { inputSummary, tablePartRows, type InputSummary } from './load-summary.js'
import { basename } from 'node:path'
import { readServiceMetadata } from './service-metadata.js'
import { readBatchLimits, type BatchLimits } from './service-limits.js'

export interface LoadOptions {
  readonly root: string
  readonly authorization?: string
  readonly headers?: Readonly<Record<string, string>>
  readonly files: readonly FilePlan[]
  readonly format: BatchFormat
  readonly concurrency: number
  readonly checkpointPath: string
  readonly rejectPath: string
  readonly retryForSeconds: number
  /** The longest record and field read (input-limits.ts); the defaults when not given. */
  readonly inputLimits?: InputLimits
  /** Most rows in one change set (below what the limits allow), for smaller sets. */
  readonly maxRowsPerChangeSet?: number
  readonly terminal: boolean
}

export interface LoadSummary {
  rows: number
  loaded: number
  present: number
  rejected: number
  /** Rows the checkpoint had as answered by an earlier run: not sent again. */
  resumed: number
  /** Of those, the rows an earlier run refused: they are in the reject file, not in the database. */
  resumedRejected: number
  seconds: number
  rowsPerSecond: number
  limits: BatchLimits
  batches: number
  throttled: number
  unavailable: number
  connectionFailures: number
  /** Lines of a lines file that no document took, or whose document cannot be told (in the reject file). */
  linesRejected: number
  /** Per input, in its own unit. */
  inputs: InputSummary[]
  checkpoint: string
  rejects: string
  /** Why the load stopped before the end of an input (everything before that place has its outcome). */
  stopped?: string
  /** Why the loader gave up waiting for the service (--retry-for); what the checkpoint acknowledged stays done. */
  gaveUp?: string
}

export async function runLoad(options: LoadOptions): Promise<LoadSummary> {
  const client = new ServiceClient({
    root: options.root,
    authorization: options.authorization,
    headers: options.headers,
    connections: options.concurrency + 1,
  })
  const checkpoint = new Checkpoint(options.checkpointPath)
  const rejects = new RejectFile(options.rejectPath)
  const progress = createProgress({ terminal: options.terminal })
  const started = Date.now()
  try {
    const sender = new BatchSender(client, options.retryForSeconds)
    // The first requests wait for a service that is down or restarting like every later one (--retry-for).
    const waiting = { request: (_method: 'GET', relative: string) => sender.read(relative) }
    const metadata = await readServiceMetadata(waiting)
    const limits = await readBatchLimits(waiting)
    const resolver = new ReferenceResolver(client)
    const counts = { rows: 0, loaded: 0, present: 0, rejected: 0, resumed: 0, resumedRejected: 0, linesRejected: 0 }
    const inputs: InputSummary[] = []
    let stopped: string | undefined
    let gaveUp: string | undefined
    try {
      for (const plan of options.files) {
        resolver.forget()
        const input = inputSummary(plan, identityName(plan))
        inputs.push(input)
        await loadFile(plan, { client, checkpoint, rejects, progress, sender, resolver, limits, counts, input, options, metadata })
      }
    } catch (error) {
      // Either way the summary tells what was done before: the user sees what was loaded and checkpointed.
      if (error instanceof GaveUpError) gaveUp = error.message
      else if (error instanceof InputStop) stopped = error.message
      else throw error
    }
    const seconds = (Date.now() - started) / 1000
    return {
      ...counts,
      seconds,
      rowsPerSecond: (counts.loaded + counts.present + counts.rejected) / seconds,
      limits,
      ...sender.statistics,
      inputs,
      checkpoint: options.checkpointPath,
      rejects: options.rejectPath,
      ...(stopped ? { stopped } : {}),
      ...(gaveUp ? { gaveUp } : {}),
    }
  } finally {
    progress.stop()
    checkpoint.close()
    rejects.close()
    await client.close()
  }
}

interface LoadState {
  readonly client: ServiceClient
  readonly checkpoint: Checkpoint
  readonly rejects: RejectFile
  readonly progress: LoadProgress
  readonly sender: BatchSender
  readonly resolver: ReferenceResolver
  readonly limits: BatchLimits
  readonly counts: {
    rows: number
    loaded: number
    present: number
    rejected: number
    resumed: number
    resumedRejected: number
    linesRejected: number
  }
  /** This input's own counts. */
  readonly input: InputSummary
  readonly options: LoadOptions
  readonly metadata: Awaited<ReturnType<typeof readServiceMetadata>>
}

async function loadFile(plan: FilePlan, state: LoadState): Promise<void> {
  const { checkpoint, rejects, counts, options, input: mine } = state
  const shape = state.metadata.sets.get(plan.set)
  if (!shape) throw new Error(`the service has no entity set ${plan.set}`)
  const keyed = shape.key.length === 1 && shape.key[0] === 'Ref_Key'
  if (plan.post && !plan.set.startsWith('Document_')) throw new Error(`--post: ${plan.set} is not a document set`)
  const target: DeliveryTarget = { set: plan.set, keyed, post: plan.post, format: options.format }
  const identity = await inputIdentity(plan.set, plan.path, plan.lines)
  const source = identity.checkpointSource
  // `--key` names input columns or properties; the key is made from the mapped body's properties.
  const keyProperties = plan.key?.map((name) => plan.columns[name] ?? name)
  const limits = options.inputLimits ?? DEFAULT_LIMITS
  let input: Input & { loose?(): Iterable<LooseLine> }
  if (plan.lines) {
    if (!plan.join) throw new Error(`${plan.path}: a lines file needs the column that joins it to the headers ("join", --join)`)
    const tablePart = plan.tablePart ?? [...shape.tableParts.keys()][0]
    if (!tablePart || !shape.tableParts.has(tablePart)) throw new Error(`${plan.set} has no table part ${tablePart ?? ''}`)
    input = joinedInput(openInput(plan.path, 'csv', limits), plan.lines, plan.join, tablePart, limits, (row) => answered(row))
  } else {
    input = openInput(plan.path, formatOf(plan.path, plan.format), limits)
  }
  const mapper = new RowMapper(shape, { columns: plan.columns, constants: plan.constants }, state.resolver)
  const file = plan.path === '-' ? 'stdin' : basename(plan.path)
  // The share done: the input up to the furthest row with its outcome (the reader runs ahead of it).
  let doneOffset = 0
  const report = () =>
    state.progress.update({
      file,
      rows: counts.rows,
      loaded: counts.loaded,
      present: counts.present,
      rejected: counts.rejected,
      resumed: counts.resumed,
      fraction: input.size ? Math.min(1, doneOffset / input.size) : undefined,
    })

  const answered = (row: number) => identity.resumable && checkpoint.done(source, row)
  const reject = (row: number, line: number | undefined, record: unknown, status: number, code: string, message: string) => {
    rejects.write({ source: identity.name, row, line, record, status, code, message })
    checkpoint.markRefused(source, [row])
    counts.rejected++
    mine.rejected++
  }
  const context: DeliveryContext = {
    client: state.client,
    sender: state.sender,
    limits: state.limits,
    sending: (rows) =>
      checkpoint.markSent(
        source,
        rows.map((r) => r.row),
      ),
    settled: (rows: readonly PendingRow[], outcome: RowOutcome) => {
      for (const row of rows) {
        doneOffset = Math.max(doneOffset, row.offset)
        if (outcome.kind === 'rejected') reject(row.row, row.line, row.record, outcome.status, outcome.code, outcome.message)
        else {
          counts[outcome.kind]++
          mine[outcome.kind]++
          if (outcome.kind === 'loaded') mine.linesLoaded += tablePartRows(row.body, shape)
        }
      }
      // After the reject file: a crash between the two writes repeats a rejection, never loses one.
      checkpoint.markDone(
        source,
        rows.map((r) => r.row),
      )
      report()
    },
  }

  // Change sets in flight: the reader waits for a free place before it reads on.
  const inFlight = new Set<Promise<void>>()
  let failure: unknown
  const dispatch = async (rows: PendingRow[]) => {
    while (inFlight.size >= options.concurrency) await Promise.race(inFlight)
    if (failure) throw failure
    const delivery = deliverChangeSet(context, target, rows).catch((error: unknown) => {
      failure ??= error
    })
    const tracked = delivery.finally(() => inFlight.delete(tracked))
    inFlight.add(tracked)
  }

  const rowsPerSet = () =>
    Math.max(1, Math.min(options.maxRowsPerChangeSet ?? Infinity, Math.floor(state.limits.maxOperations / operationsPerRow(target))))
  // A change set's body stays well under the size limit (413 halves it otherwise).
  const bytesPerSet = state.limits.maxBytes * 0.8
  let pending: PendingRow[] = []
  let pendingBytes = 0
  // Where the input cannot be read on (a stray quote on stdin): everything before it is delivered, then the
  // load stops with its summary and the reason.
  let stopped: InputStop | undefined
  try {
    for await (const { row, line, record, offset, unreadable, tablePartLines } of input.rows()) {
      counts.rows++
      mine.rows++
      if (answered(row)) {
        doneOffset = Math.max(doneOffset, offset)
        counts.resumed++
        mine.resumed++
        if (checkpoint.refused(source, row)) {
          counts.resumedRejected++
          mine.resumedRejected++
        }
        continue
      }
      if (unreadable) {
        doneOffset = Math.max(doneOffset, offset)
        reject(row, line, record, 0, unreadable.code, unreadable.message)
        checkpoint.markDone(source, [row])
        continue
      }
      let body: Record<string, unknown>
      try {
        body = await mapper.map(record)
        if (keyed && body.Ref_Key === undefined) body.Ref_Key = rowKey(plan.set, body, keyProperties)
      } catch (error) {
        if (!(error instanceof RowError)) throw error
        doneOffset = Math.max(doneOffset, offset)
        const partLine = error.tablePartRow === undefined ? undefined : tablePartLines?.[error.tablePartRow]
        const where = partLine === undefined ? '' : ` (its line ${partLine} in the lines file)`
        reject(row, line, record, 0, error.code, `${error.message}${where}`)
        checkpoint.markDone(source, [row])
        continue
      }
      const size = JSON.stringify(body).length + 300
      if (pending.length > 0 && (pending.length >= rowsPerSet() || pendingBytes + size > bytesPerSet)) {
        await dispatch(pending)
        pending = []
        pendingBytes = 0
      }
      pending.push({
        row,
        line,
        record,
        body,
        offset,
        uncertain: identity.resumable ? checkpoint.uncertain(source, row) : checkpoint.wasSent(source, row),
      })
      pendingBytes += size
    }
  } catch (error) {
    if (!(error instanceof InputStop)) throw error
    stopped = error
  }
  if (pending.length > 0) await dispatch(pending)
  await Promise.all(inFlight)
  if (failure) throw failure
  if (stopped) throw stopped
  if (input.size) doneOffset = input.size
  for (const loose of input.loose?.() ?? []) {
    // Lines no document took have no row of their own in the checkpoint: they are reported once, when the
    // file is done (and again by a rerun).
    rejects.write({
      source: `${identity.name}:lines`,
      row: loose.row,
      line: loose.line,
      record: loose.raw,
      status: 0,
      code: loose.problem?.code ?? 'OrphanLine',
      message:
        loose.problem?.message ??
        `line ${loose.line} of the lines file: no header row has ${plan.join} = ${loose.joinValue ?? ''}, so no document takes it`,
    })
    counts.linesRejected++
    mine.linesRejected++
  }
  report()
}
