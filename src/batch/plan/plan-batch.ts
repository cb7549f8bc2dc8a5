// The batch plan: everything that can be known before an operation runs is checked here, in the order
// of decisions.md §7, and nothing executes until the plan exists.
// - whole-batch refusals (thrown): a GET in a change set (GetInChangeSet), a duplicate Content-ID / id
//   (DuplicateOperationId), more operations than the profile allows (TooManyOperations);
// - per-operation refusals (recorded at that operation's place, reported when the batch runs): an
//   unsafe URL (UnsafeOperationUrl) or a `$<id>` reference outside its scope (ReferenceOutOfScope).
// Olingo finds a bad reference only while running; resolving references here means a batch never
// half-runs because of one.
import { ODataError } from '../../errors.js'
import type { BatchDocument, BatchOperation, JsonValue } from '../intake/index.js'
import { resolveOperationUrl, type OperationTarget, type OperationUrlContext } from './operation-url.js'

export interface PlannedOperation {
  readonly operation: BatchOperation
  /** The URL resolved, or undefined when `error` says why it cannot run. */
  readonly target: OperationTarget | undefined
  /** A refusal found while planning, answered at this operation's place when the batch runs. */
  readonly error: ODataError | undefined
  /** The change set this operation belongs to (its index among the plan's steps), if any. */
  readonly changeSet: number | undefined
  /** Whether the body binds to `$<id>` (an `…@odata.bind` value): only such a body is rewritten when the operation runs. */
  readonly bindsReferences: boolean
}

export type PlanStep =
  | { readonly kind: 'operation'; readonly operation: PlannedOperation }
  | { readonly kind: 'changeSet'; readonly atomicityGroup: string | undefined; readonly operations: readonly PlannedOperation[] }

export interface BatchPlan {
  readonly document: BatchDocument
  readonly steps: readonly PlanStep[]
  readonly operationCount: number
}

export interface PlanContext extends OperationUrlContext {
  /** The stricter of the service's `maxBatchOperations` and the profile's limit. */
  readonly maxOperations: number
  readonly profileName: string
}

/** Every `$<id>` a body refers to through `…@odata.bind` values, at any depth (table-part rows included). */
export function bodyReferences(value: JsonValue | undefined, found: string[] = []): string[] {
  if (value === null || typeof value !== 'object') return found
  if (Array.isArray(value)) {
    for (const item of value) bodyReferences(item, found)
    return found
  }
  // for…in, not Object.entries: every body of a batch passes here, and the pairs were garbage for each.
  const object = value as Record<string, JsonValue>
  for (const name in object) {
    const member = object[name]!
    if (name.endsWith('@odata.bind')) {
      const values = Array.isArray(member) ? member : [member]
      for (const v of values) if (typeof v === 'string' && v.startsWith('$')) found.push(v.slice(1).split('/')[0]!)
    } else {
      bodyReferences(member, found)
    }
  }
  return found
}

/**
 * Whether a body can hold an `…@odata.bind` member at all. Bytes without that text, and without a `\u`
 * escape that could spell it, cannot: they need no parse to look for `$<id>` references.
 */
export function mayBind(body: NonNullable<BatchOperation['body']>): boolean {
  if (body.kind === 'json') return true
  return body.bytes.includes('odata.bind') || body.bytes.includes('\\u')
}

/** The parsed JSON body of an operation, or undefined when it has none or it does not parse (the handler reports that). */
export function operationJsonBody(operation: BatchOperation): JsonValue | undefined {
  const body = operation.body
  if (!body) return undefined
  if (body.kind === 'json') return body.value
  try {
    return JSON.parse(body.bytes.toString('utf8')) as JsonValue
  } catch {
    return undefined
  }
}

export function planBatch(document: BatchDocument, context: PlanContext): BatchPlan {
  const operationCount = document.operations.length
  if (operationCount === 0) throw new ODataError('BatchMalformed', 'The batch has no operations')
  if (operationCount > context.maxOperations) {
    throw new ODataError(
      'TooManyOperations',
      `The batch has ${operationCount} operations; at most ${context.maxOperations} are allowed (profile ${context.profileName})`,
    )
  }

  // Whole-batch structure first: GET in a change set, duplicate ids (service.md §4.4 rule 4, decisions.md §7).
  const seen = new Set<string>()
  for (const item of document.items) {
    const members = item.kind === 'changeSet' ? item.operations : [item]
    for (const operation of members) {
      if (item.kind === 'changeSet' && (operation.method === 'GET' || operation.method === 'HEAD')) {
        throw new ODataError(
          'GetInChangeSet',
          `Operation ${operation.index + 1} is a ${operation.method} inside a change set; reads belong outside change sets`,
          { target: operation.id ?? String(operation.index + 1) },
        )
      }
      if (operation.id !== undefined) {
        if (seen.has(operation.id))
          throw new ODataError('DuplicateOperationId', `The id ${JSON.stringify(operation.id)} is used by two operations`, {
            target: operation.id,
          })
        seen.add(operation.id)
      }
    }
  }

  // Which ids each operation may refer to: earlier members of its own change set, and (JSON) what it
  // depends on, with the members of a group it depends on.
  const groupMembers = new Map<string, string[]>()
  for (const operation of document.operations) {
    if (operation.atomicityGroup !== undefined && operation.id !== undefined) {
      const members = groupMembers.get(operation.atomicityGroup) ?? []
      members.push(operation.id)
      groupMembers.set(operation.atomicityGroup, members)
    }
  }
  const earlier = new Set<string>()
  const steps: PlanStep[] = []
  const planOne = (operation: BatchOperation, inScope: (id: string) => boolean, changeSet: number | undefined): PlannedOperation => {
    let target: OperationTarget | undefined
    let error: ODataError | undefined
    let bindsReferences = false
    try {
      target = resolveOperationUrl(operation.url, context)
      const references = operation.body && mayBind(operation.body) ? bodyReferences(operationJsonBody(operation)) : []
      bindsReferences = references.length > 0
      if (target.kind === 'reference') references.unshift(target.id)
      for (const id of references) {
        if (!inScope(id)) {
          throw new ODataError(
            'ReferenceOutOfScope',
            `$${id} does not name an earlier operation of the same change set${document.format === 'json' ? ' or one this operation depends on' : ''}`,
            { target: `$${id}` },
          )
        }
      }
      for (const dependency of operation.dependsOn) {
        if (!earlier.has(dependency) && !groupMembers.has(dependency)) {
          throw new ODataError(
            'ReferenceOutOfScope',
            `dependsOn names ${JSON.stringify(dependency)}, which is not an earlier operation or atomicity group`,
            { target: dependency },
          )
        }
      }
    } catch (failure) {
      if (!(failure instanceof ODataError)) throw failure
      error = failure
      target = undefined
    }
    return { operation, target, error, changeSet, bindsReferences }
  }
  const noDependencies: ReadonlySet<string> = new Set()
  const dependencyScope = (operation: BatchOperation): ReadonlySet<string> => {
    if (operation.dependsOn.length === 0) return noDependencies
    const scope = new Set<string>()
    for (const dependency of operation.dependsOn) {
      if (earlier.has(dependency)) scope.add(dependency)
      for (const member of groupMembers.get(dependency) ?? []) if (earlier.has(member)) scope.add(member)
    }
    return scope
  }

  for (const item of document.items) {
    if (item.kind === 'operation') {
      const scope = dependencyScope(item)
      steps.push({ kind: 'operation', operation: planOne(item, (id) => scope.has(id), undefined) })
      if (item.id !== undefined) earlier.add(item.id)
      continue
    }
    const stepIndex = steps.length
    const inSet = new Set<string>()
    const planned: PlannedOperation[] = []
    for (const operation of item.operations) {
      // Earlier members of the set, or what the operation depends on: asked of both, never copied into
      // one set per operation (that is quadratic in the size of a change set).
      const scope = dependencyScope(operation)
      planned.push(planOne(operation, (id) => inSet.has(id) || scope.has(id), stepIndex))
      if (operation.id !== undefined) {
        inSet.add(operation.id)
        earlier.add(operation.id)
      }
    }
    steps.push({ kind: 'changeSet', atomicityGroup: item.atomicityGroup, operations: planned })
  }
  return { document, steps, operationCount }
}
