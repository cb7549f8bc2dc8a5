// What the operations of one batch know of each other as it runs: the entities created so far, which
// `$<id>` names (from the Location of the 201 that created each), and the ids and atomicity groups that
// failed, which a JSON operation's `dependsOn` names (it is then answered 424 without running).
import { ODataError } from '../../errors.js'
import type { PlannedOperation } from '../plan/plan-batch.js'
import type { CollectedResponse } from './collecting-sink.js'

export class BatchReferences {
  /** id → the created entity's path relative to the service root. */
  readonly locations = new Map<string, string>()
  private readonly failedNames = new Set<string>()

  constructor(private readonly serviceRoot: string) {}

  /** The path `$<id>` stands for; throws when that operation created nothing (yet, or was rolled back). */
  location(id: string): string {
    const location = this.locations.get(id)
    if (location === undefined)
      throw new ODataError('ReferenceOutOfScope', `$${id} names an operation that created nothing`, { target: `$${id}` })
    return location
  }

  /** Keeps the Location of a 201 for `$<id>` references to it; returns the response. */
  remember(planned: PlannedOperation, response: CollectedResponse): CollectedResponse {
    const id = planned.operation.id
    const location = response.headers.Location
    if (id !== undefined && response.status === 201 && location?.startsWith(this.serviceRoot)) {
      this.locations.set(id, location.slice(this.serviceRoot.length))
    }
    return response
  }

  /** The 424 of an operation whose `dependsOn` names a failure, or undefined. */
  dependencyFailure(planned: PlannedOperation): ODataError | undefined {
    const dependency = planned.operation.dependsOn.find((name) => this.failedNames.has(name))
    return dependency === undefined
      ? undefined
      : new ODataError('FailedDependency', `Not run: ${JSON.stringify(dependency)}, which this operation depends on, failed`, {
          target: dependency,
        })
  }

  markFailed(planned: PlannedOperation): void {
    if (planned.operation.id !== undefined) this.failedNames.add(planned.operation.id)
    if (planned.operation.atomicityGroup !== undefined) this.failedNames.add(planned.operation.atomicityGroup)
  }

  /** A change set rolled back: what its operations that ran created is gone, and every member counts as failed. */
  rolledBack(ran: readonly PlannedOperation[], members: readonly PlannedOperation[]): void {
    for (const planned of ran) if (planned.operation.id !== undefined) this.locations.delete(planned.operation.id)
    for (const planned of members) this.markFailed(planned)
  }
}
