// A planned operation as the ServiceRequest a single HTTP request would be (service.md §4.4 rule 2), under
// the batch's login: its own credentials are ignored (decisions.md §7), `$<id>` at the start of its URL is
// replaced by the path of the entity that operation created (URL-encoded already, as Location carries the
// canonical key), and so are `$<id>` values of its `…@odata.bind` members (substitute-bindings.ts).
import type { Flavour } from '../../model/flavour.js'
import type { ServiceModel, SubjectModel } from '../../model/model.js'
import { parseQueryOptions } from '../../odata/query-options.js'
import { resolveResourcePath, type ResourcePath } from '../../odata/resource-path.js'
import type { ServiceRequest } from '../../service/service-request.js'
import type { JsonValue } from '../intake/index.js'
import { operationJsonBody, type PlannedOperation } from '../plan/plan-batch.js'
import type { BatchReferences } from './batch-references.js'
import { substituteBindings } from './substitute-bindings.js'

/** What every operation of a batch shares. */
export interface BatchIdentity {
  readonly model: ServiceModel
  readonly subject: SubjectModel
  readonly flavour: Flavour
  readonly serviceRoot: string
  readonly linkRoot?: string | undefined
}

/**
 * An operation's request. A JSON batch's body is a parsed value already: the handler takes it as it is
 * (`json`), and its text is made only when something reads `body` (a repeatable request's fingerprint). A
 * class rather than an object literal with a getter: one shape for every operation, and no closure per
 * operation.
 */
class OperationRequest implements ServiceRequest {
  constructor(
    readonly method: string,
    readonly path: ResourcePath,
    readonly query: ReturnType<typeof parseQueryOptions>,
    readonly headers: ReadonlyMap<string, string>,
    /** The batch's: what every operation of it shares (subject, flavour, roots) is read from it, not copied. */
    private readonly batch: BatchIdentity,
    private bodyBytes: Buffer | undefined,
    readonly json: JsonValue | undefined,
  ) {}

  get subject(): SubjectModel {
    return this.batch.subject
  }

  get flavour(): Flavour {
    return this.batch.flavour
  }

  get serviceRoot(): string {
    return this.batch.serviceRoot
  }

  get linkRoot(): string | undefined {
    return this.batch.linkRoot
  }

  get body(): Buffer | undefined {
    if (this.bodyBytes === undefined && this.json !== undefined) this.bodyBytes = Buffer.from(JSON.stringify(this.json))
    return this.bodyBytes
  }
}

/** Makes the requests of one batch's operations. */
export class OperationRequests {
  /** Resolved paths by URL text: a loader's batch addresses one or two sets in every operation. Paths are immutable. */
  private readonly resolved = new Map<string, ResourcePath>()

  constructor(
    private readonly batch: BatchIdentity,
    private readonly references: BatchReferences,
  ) {}

  /** The resource a path relative to the service root names; throws (404) for one that names nothing. */
  readonly pathOf = (rest: string): ResourcePath => {
    let path = this.resolved.get(rest)
    if (path === undefined) {
      path = resolveResourcePath(this.batch.model, rest)
      if (this.resolved.size < 10_000) this.resolved.set(rest, path)
    }
    return path
  }

  /** The operation's request; throws the refusal its plan carries, or that of an address naming nothing. */
  build(planned: PlannedOperation): ServiceRequest {
    if (planned.error) throw planned.error
    const target = planned.target!
    const rest = target.kind === 'reference' ? this.references.location(target.id) + target.rest : target.rest
    const operation = planned.operation
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
    else if (planned.bindsReferences)
      body = Buffer.from(JSON.stringify(substituteBindings(operationJsonBody(operation)!, this.references.locations)))
    else if (source.kind === 'bytes') body = source.bytes
    else json = source.value
    return new OperationRequest(operation.method, this.pathOf(rest), parseQueryOptions(target.query), headers, this.batch, body, json)
  }
}
