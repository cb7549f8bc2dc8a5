// Runs a planned batch in order (service.md §4.4 rules 2, 3, 5, 6; decisions.md §7):
// - each operation becomes the same ServiceRequest a single HTTP request would, under the batch's
//   subject and profile, and goes through the same dispatcher;
// - a change set (atomicity group) runs in one transaction: any failure rolls the whole set back;
// - `$<id>` is substituted from the Location of the 201 that created it, at the start of a URL
//   (URL-encoded already, as Location carries the canonical key) and in `…@odata.bind` values (as JSON
//   strings, so nothing can be injected into an address);
// - outside change sets the batch stops at the first failure unless continue-on-error was preferred;
// - JSON: an operation whose dependsOn target failed is answered 424 without running.
import { ODataError, toODataError } from '../../errors.js'
import { logger } from '../../log/logger.js'
import type { ServiceModel, SubjectModel } from '../../model/model.js'
import { parseQueryOptions } from '../../odata/query-options.js'
import { resolveResourcePath, type ResourcePath } from '../../odata/resource-path.js'
import type { ResponseSink } from '../../respond/response-sink.js'
import type { ServiceRequest } from '../../service/service-request.js'
import type { Flavour } from '../../model/flavour.js'
import type { JsonValue } from '../intake/index.js'
import { operationJsonBody, type BatchPlan, type PlannedOperation, type PlanStep } from '../plan/plan-batch.js'
import { CollectingSink, errorResponse, type CollectedResponse } from './collecting-sink.js'
import { isDeadlock } from '../../store/transaction.js'
import { isDatabaseUnreachable } from '../../database-failures.js'
import type { WriteResult } from '../../service/writes/write-result.js'
import { findCoalescibleRun } from './coalesced-run.js'
import type { RequestLogEntry } from '../../log/request-log.js'

/** What runs inside a change set's transaction. */
export interface TransactionScope {
  run(request: ServiceRequest, sink: ResponseSink): Promise<void>
  /** Writes consecutive creates (and Posts of them) together; undefined: run them one by one instead. */
  writeRun(createRequests: readonly ServiceRequest[], postedIndexes: readonly number[]): Promise<readonly WriteResult[] | undefined>
  /** Writes request-log entries in this transaction; false when the INSERT failed on its own (the transaction goes on). */
  writeLog(entries: readonly RequestLogEntry[]): Promise<boolean>
}

/**
 * Where the batch's request-log entries stand when it has run:
 * - `committed`: written in its last change set's transaction, and committed with it;
 * - `unwritten`: not written (no log with the last commit, or its INSERT failed): the caller writes them;
 * - `uncertain`: written in the last change set, whose COMMIT then failed (a lost connection may have
 *   committed it): the caller writes them only if the batch id is not in the log.
 */
export type BatchLogState = 'committed' | 'unwritten' | 'uncertain'

/** How operations reach the handlers: one at a time, or several inside one transaction. */
export interface BatchRuntime {
  run(request: ServiceRequest, sink: ResponseSink): Promise<void>
  /** Runs `body` in one transaction; commits when it resolves true, rolls back when it resolves false or throws; may run it again after a deadlock. */
  transaction(body: (scope: TransactionScope) => Promise<boolean>): Promise<void>
}

export interface OperationOutcome {
  readonly planned: PlannedOperation
  readonly response: CollectedResponse
}

/** Receives results as steps complete, so the response can stream where the format allows. */
export interface BatchResultWriter {
  operation(outcome: OperationOutcome): void
  /** `outcomes` of a committed set, or of a failed one: `failed` is the operation that failed. */
  changeSet(
    step: Extract<PlanStep, { kind: 'changeSet' }>,
    outcomes: readonly OperationOutcome[],
    failed: OperationOutcome | undefined,
  ): void
}

export interface BatchExecution {
  readonly model: ServiceModel
  readonly subject: SubjectModel
  readonly flavour: Flavour
  readonly serviceRoot: string
  readonly linkRoot?: string | undefined
  readonly continueOnError: boolean
  readonly outer: { readonly aborted: boolean }
  /**
   * With the request log on: the batch's entries as they stand when its last step, a change set whose
   * operations all succeeded, is about to commit (`lastOutcomes` are that set's). They are written in its
   * transaction, so a batch of one change set costs one commit, not two (the log's own was a redo-log
   * flush of its own per batch).
   */
  readonly logWithLastCommit?: (lastOutcomes: readonly OperationOutcome[]) => readonly RequestLogEntry[]
}

const failed = (response: CollectedResponse) => response.status >= 400

/**
 * An operation as the ServiceRequest a single HTTP request would be. A JSON batch's body is a parsed
 * value already: the handler takes it as it is (`json`), and its text is made only when something reads
 * `body` (a repeatable request's fingerprint). A class rather than an object literal with a getter: one
 * shape for every operation, and no closure per operation.
 */
class OperationRequest implements ServiceRequest {
  constructor(
    readonly method: string,
    readonly path: ResourcePath,
    readonly query: ReturnType<typeof parseQueryOptions>,
    readonly headers: ReadonlyMap<string, string>,
    /** The batch's: what every operation of it shares (subject, flavour, roots) is read from it, not copied. */
    private readonly execution: BatchExecution,
    private bodyBytes: Buffer | undefined,
    readonly json: JsonValue | undefined,
  ) {}

  get subject(): SubjectModel {
    return this.execution.subject
  }

  get flavour(): Flavour {
    return this.execution.flavour
  }

  get serviceRoot(): string {
    return this.execution.serviceRoot
  }

  get linkRoot(): string | undefined {
    return this.execution.linkRoot
  }

  get body(): Buffer | undefined {
    if (this.bodyBytes === undefined && this.json !== undefined) this.bodyBytes = Buffer.from(JSON.stringify(this.json))
    return this.bodyBytes
  }
}

function dependencyFailure(planned: PlannedOperation, failedNames: ReadonlySet<string>): ODataError | undefined {
  const dependency = planned.operation.dependsOn.find((name) => failedNames.has(name))
  return dependency === undefined
    ? undefined
    : new ODataError('FailedDependency', `Not run: ${JSON.stringify(dependency)}, which this operation depends on, failed`, {
        target: dependency,
      })
}

/** Replaces `$<id>` values of `…@odata.bind` members by the created entity's path. */
function substituteBindings(value: JsonValue, locations: ReadonlyMap<string, string>): JsonValue {
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) return value.map((item) => substituteBindings(item, locations))
  const result: Record<string, JsonValue> = {}
  for (const [name, member] of Object.entries(value as Record<string, JsonValue>)) {
    const substitute = (v: JsonValue): JsonValue => {
      if (typeof v !== 'string' || !v.startsWith('$')) return v
      const slash = v.indexOf('/')
      const id = slash < 0 ? v.slice(1) : v.slice(1, slash)
      const location = locations.get(id)
      if (location === undefined)
        throw new ODataError('ReferenceOutOfScope', `$${id} names an operation that created nothing`, { target: `$${id}` })
      return location + (slash < 0 ? '' : v.slice(slash))
    }
    Object.defineProperty(result, name, {
      value: name.endsWith('@odata.bind')
        ? Array.isArray(member)
          ? member.map(substitute)
          : substitute(member)
        : substituteBindings(member, locations),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return result
}

/** The error an operation is answered with; one that is no known failure (500) is logged with its cause, which its answer does not show. */
function answeredError(error: unknown): ODataError {
  const answer = toODataError(error)
  if (answer.status === 500 && answer !== error) logger.error({ err: error }, 'a batch operation failed unexpectedly')
  return answer
}

export async function executeBatch(
  plan: BatchPlan,
  execution: BatchExecution,
  runtime: BatchRuntime,
  writer: BatchResultWriter,
): Promise<BatchLogState> {
  /** id → the created entity's path relative to the service root, from the Location of its 201. */
  const locations = new Map<string, string>()
  /** ids and atomicity groups that failed (JSON dependsOn). */
  const failedNames = new Set<string>()
  /** Resolved paths by URL text: a loader's batch addresses one or two sets in every operation. Paths are immutable. */
  const resolved = new Map<string, ResourcePath>()
  const pathOf = (rest: string): ResourcePath => {
    let path = resolved.get(rest)
    if (path === undefined) {
      path = resolveResourcePath(execution.model, rest)
      if (resolved.size < 10_000) resolved.set(rest, path)
    }
    return path
  }

  const buildRequest = (planned: PlannedOperation): ServiceRequest => {
    if (planned.error) throw planned.error
    const target = planned.target!
    let rest: string
    if (target.kind === 'reference') {
      const location = locations.get(target.id)
      if (location === undefined)
        throw new ODataError('ReferenceOutOfScope', `$${target.id} names an operation that created nothing`, { target: `$${target.id}` })
      rest = location + target.rest
    } else {
      rest = target.rest
    }
    const operation = planned.operation
    // The batch's login holds (decisions.md §7): an operation's own credentials are ignored.
    let headers = operation.headers
    if (headers.has('authorization')) {
      const copy = new Map(headers)
      copy.delete('authorization')
      headers = copy
    }
    const source = operation.body
    let body: Buffer | undefined
    let json: JsonValue | undefined
    if (!source) body = undefined
    else if (planned.bindsReferences) body = Buffer.from(JSON.stringify(substituteBindings(operationJsonBody(operation)!, locations)))
    else if (source.kind === 'bytes') body = source.bytes
    else json = source.value
    return new OperationRequest(operation.method, pathOf(rest), parseQueryOptions(target.query), headers, execution, body, json)
  }

  const runOne = async (
    planned: PlannedOperation,
    run: (request: ServiceRequest, sink: ResponseSink) => Promise<void>,
    inChangeSet = false,
  ): Promise<CollectedResponse> => {
    const dependency = dependencyFailure(planned, failedNames)
    const url = planned.operation.url
    if (dependency) return errorResponse(dependency, url)
    const sink = new CollectingSink(execution.outer, url)
    try {
      const request = buildRequest(planned)
      await run(request, sink)
      if (!sink.done) throw new ODataError('InternalError', 'The operation gave no response')
    } catch (error) {
      // A deadlock victim: the transaction runs the whole change set again (runInTransaction). So does a
      // change set whose node failed before its COMMIT: nothing of it was committed, and it runs again on
      // the next node; answered here it would be an operation's 503 and a set not applied.
      if (isDeadlock(error) || (inChangeSet && isDatabaseUnreachable(error))) throw error
      return errorResponse(answeredError(error), url)
    }
    return remember(planned, sink.result())
  }

  /** Keeps the Location of a 201 for `$<id>` references to it. */
  const remember = (planned: PlannedOperation, response: CollectedResponse): CollectedResponse => {
    const id = planned.operation.id
    const location = response.headers.Location
    if (id !== undefined && response.status === 201 && location?.startsWith(execution.serviceRoot)) {
      locations.set(id, location.slice(execution.serviceRoot.length))
    }
    return response
  }

  /** Runs a coalescible run starting at `start` together; the outcomes, or undefined to go one by one. */
  const runTogether = async (
    operations: readonly PlannedOperation[],
    start: number,
    scope: TransactionScope,
  ): Promise<OperationOutcome[] | undefined> => {
    const run = findCoalescibleRun(execution.model, operations, start, pathOf)
    if (!run || run.creates.some((c) => dependencyFailure(c, failedNames))) return undefined
    let requests: ServiceRequest[]
    try {
      requests = run.creates.map(buildRequest)
    } catch {
      return undefined
    }
    const results = await scope.writeRun(
      requests,
      run.posts.map((p) => p.createIndex),
    )
    if (!results) return undefined
    const asResponse = (result: WriteResult): CollectedResponse => ({
      status: result.status,
      headers: result.headers,
      body: result.body ?? '',
    })
    const outcomes = run.creates.map((planned, i) => ({ planned, response: remember(planned, asResponse(results[i]!)) }))
    for (const [i, { planned }] of run.posts.entries()) {
      outcomes.push({ planned, response: asResponse(results[run.creates.length + i]!) })
    }
    return outcomes
  }

  const markFailed = (planned: PlannedOperation) => {
    if (planned.operation.id !== undefined) failedNames.add(planned.operation.id)
    if (planned.operation.atomicityGroup !== undefined) failedNames.add(planned.operation.atomicityGroup)
  }

  const lastStep = plan.steps[plan.steps.length - 1]
  for (const step of plan.steps) {
    if (execution.outer.aborted) return 'unwritten'
    if (step.kind === 'operation') {
      const response = await runOne(step.operation, (request, sink) => runtime.run(request, sink))
      writer.operation({ planned: step.operation, response })
      if (failed(response)) {
        markFailed(step.operation)
        if (!execution.continueOnError) return 'unwritten'
      }
      continue
    }

    const outcomes: OperationOutcome[] = []
    let failure: OperationOutcome | undefined
    // An object, not a variable: the transaction's body sets it, which the flow analysis cannot see.
    const log: { state: BatchLogState } = { state: 'unwritten' }
    try {
      await runtime.transaction(async (scope) => {
        // A retried set (deadlock) starts over.
        outcomes.length = 0
        failure = undefined
        log.state = 'unwritten'
        for (let i = 0; i < step.operations.length; ) {
          const together = await runTogether(step.operations, i, scope)
          if (together) {
            outcomes.push(...together)
            i += together.length
            continue
          }
          const planned = step.operations[i++]!
          const response = await runOne(planned, (request, sink) => scope.run(request, sink), true)
          const outcome = { planned, response }
          outcomes.push(outcome)
          if (failed(response)) {
            failure = outcome
            return false
          }
        }
        if (step === lastStep && execution.logWithLastCommit !== undefined)
          log.state = (await scope.writeLog(execution.logWithLastCommit(outcomes))) ? 'committed' : 'unwritten'
        return true
      })
    } catch (error) {
      // The commit itself failed (deadlock, lost connection): the whole set failed with it.
      // It is charged to the last operation that ran, whose outcome it replaces: one outcome per operation.
      const response = errorResponse(answeredError(error))
      const last = outcomes.length - 1
      failure = { planned: step.operations[Math.max(0, last)]!, response }
      if (last >= 0) outcomes[last] = failure
      if (log.state === 'committed') log.state = 'uncertain'
    }
    if (failure) {
      // Locations of a rolled-back set point at nothing.
      for (const outcome of outcomes) if (outcome.planned.operation.id !== undefined) locations.delete(outcome.planned.operation.id)
      for (const planned of step.operations) markFailed(planned)
    }
    writer.changeSet(step, outcomes, failure)
    if (step === lastStep) return log.state
    if (failure && !execution.continueOnError) return 'unwritten'
  }
  return 'unwritten'
}
