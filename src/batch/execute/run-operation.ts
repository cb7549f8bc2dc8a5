// One operation of a batch, from its plan to its collected answer: a failed dependency answers 424 without
// running; otherwise its request goes to the runner (the dispatcher, alone or in a change set's scope) and
// whatever it answers or throws becomes its response, but for the failures the runner says are not the
// operation's (a change set's transaction that must run again).
import { ODataError, toODataError } from '../../errors.js'
import { logger } from '../../log/logger.js'
import type { ResponseSink } from '../../respond/response-sink.js'
import type { ChangeSetScope } from '../../service/change-set.js'
import type { ServiceRequest } from '../../service/service-request.js'
import type { PlannedOperation } from '../plan/plan-batch.js'
import type { BatchReferences } from './batch-references.js'
import { findCoalescibleRun } from './coalesced-run.js'
import { CollectingSink, errorResponse, type CollectedResponse } from './collecting-sink.js'
import type { OperationOutcome } from './execute-batch.js'
import type { BatchIdentity, OperationRequests } from './operation-request.js'

/** Where an operation runs. */
export interface OperationRunner {
  run(request: ServiceRequest, sink: ResponseSink): Promise<void>
  /** A failure that is no answer of the operation: thrown on (a change set then runs again whole; outside one, the batch fails). */
  passesOn(error: unknown): boolean
}

/** Inside a change set: the set's scope, which can also write consecutive creates together. */
export type ChangeSetRunner = OperationRunner & ChangeSetScope

/** The error an operation is answered with; one that is no known failure (500) is logged with its cause, which its answer does not show. */
export function answeredError(error: unknown): ODataError {
  const answer = toODataError(error)
  if (answer.status === 500 && answer !== error) logger.error({ err: error }, 'a batch operation failed unexpectedly')
  return answer
}

export class BatchOperations {
  constructor(
    private readonly batch: BatchIdentity,
    private readonly requests: OperationRequests,
    private readonly references: BatchReferences,
    private readonly outer: { readonly aborted: boolean },
  ) {}

  async run(planned: PlannedOperation, runner: OperationRunner): Promise<CollectedResponse> {
    const url = planned.operation.url
    const dependency = this.references.dependencyFailure(planned)
    if (dependency) return errorResponse(dependency, url)
    const sink = new CollectingSink(this.outer, url)
    try {
      await runner.run(this.requests.build(planned), sink)
      if (!sink.done) throw new ODataError('InternalError', 'The operation gave no response')
    } catch (error) {
      if (runner.passesOn(error)) throw error
      return errorResponse(answeredError(error), url)
    }
    return this.references.remember(planned, sink.result())
  }

  /**
   * Runs the coalescible run of a change set that starts at `start` together (coalesced-run.ts); its
   * outcomes, or undefined when there is none or it must go one by one.
   */
  async runTogether(
    operations: readonly PlannedOperation[],
    start: number,
    scope: ChangeSetRunner,
  ): Promise<OperationOutcome[] | undefined> {
    const run = findCoalescibleRun(this.batch.model, operations, start, this.requests.pathOf)
    if (!run || run.creates.some((c) => this.references.dependencyFailure(c))) return undefined
    let requests: ServiceRequest[]
    try {
      requests = run.creates.map((planned) => this.requests.build(planned))
    } catch {
      return undefined
    }
    const members = [...run.creates, ...run.posts.map((post) => post.planned)]
    const sinks = members.map((planned) => new CollectingSink(this.outer, planned.operation.url))
    const ran = await scope.runTogether(
      requests,
      run.posts.map((post) => post.createIndex),
      sinks,
    )
    if (!ran) return undefined
    return members.map((planned, i) => ({ planned, response: this.references.remember(planned, sinks[i]!.result()) }))
  }
}
