// Finds, in a change set, consecutive creates of one set and the Posts of those documents that follow
// them: a run the service writes as one ("write many", src/service/writes/write-many.ts, with multi-row
// INSERTs). Only the grouping is here. Operations that ask for per-operation behaviour (preconditions,
// repeatable requests, Prefer) end a run; what the write itself finds unusual (a body that does not
// validate, a key that exists) makes it decline, and the batch runs the operations one by one, which
// reports it at its operation.
import type { ResourcePath } from '../../odata/resource-path.js'
import type { ServiceModel } from '../../model/model.js'
import type { PlannedOperation } from '../plan/plan-batch.js'

/** Headers that ask for per-operation behaviour the multi-row path does not give. */
const ONE_BY_ONE_HEADERS = ['if-match', 'if-none-match', 'repeatability-request-id', 'prefer']

/** A run found in a change set: `creates` consecutive creates of one set, then `posts` Posts of some of them. */
export interface CoalescibleRun {
  readonly creates: readonly PlannedOperation[]
  /** For each Post, the index (in `creates`) of the document it posts. */
  readonly posts: readonly { readonly planned: PlannedOperation; readonly createIndex: number }[]
}

function plain(planned: PlannedOperation): boolean {
  return planned.error === undefined && !ONE_BY_ONE_HEADERS.some((name) => planned.operation.headers.has(name))
}

function isEmptyBody(planned: PlannedOperation): boolean {
  const body = planned.operation.body
  if (!body) return true
  if (body.kind === 'json')
    return body.value === null || (typeof body.value === 'object' && !Array.isArray(body.value) && Object.keys(body.value).length === 0)
  return body.bytes.toString('utf8').trim() === '' || body.bytes.toString('utf8').trim() === '{}'
}

/** Finds the longest run worth writing together that starts at `start`, or undefined. */
export function findCoalescibleRun(
  model: ServiceModel,
  operations: readonly PlannedOperation[],
  start: number,
  /** Resolves an operation's path (the batch's cache of resolveResourcePath); throws for one that names nothing. */
  pathOf: (rest: string) => ResourcePath,
): CoalescibleRun | undefined {
  const creates: PlannedOperation[] = []
  let setName: string | undefined
  for (let i = start; i < operations.length; i++) {
    const planned = operations[i]!
    if (planned.operation.method !== 'POST' || !plain(planned) || planned.target?.kind !== 'path' || planned.target.query !== '') break
    let path: ResourcePath
    try {
      path = pathOf(planned.target.rest)
    } catch {
      break
    }
    if (path.kind !== 'collection' || path.count || (path.set.kind !== 'Document' && path.set.kind !== 'Catalog')) break
    if (setName !== undefined && path.set.name !== setName) break
    setName = path.set.name
    creates.push(planned)
  }
  if (creates.length === 0) return undefined
  const set = model.entitySetByName.get(setName!)!
  const posts: { planned: PlannedOperation; createIndex: number }[] = []
  const posted = new Set<number>()
  if (set.kind === 'Document') {
    for (let i = start + creates.length; i < operations.length; i++) {
      const planned = operations[i]!
      const target = planned.target
      if (
        planned.operation.method !== 'POST' ||
        !plain(planned) ||
        target?.kind !== 'reference' ||
        target.query !== '' ||
        !isEmptyBody(planned)
      )
        break
      if (target.rest !== '/Post' && target.rest !== `/${model.namespace}.Post`) break
      const createIndex = creates.findIndex((c) => c.operation.id === target.id)
      if (createIndex < 0 || posted.has(createIndex)) break
      posted.add(createIndex)
      posts.push({ planned, createIndex })
    }
  }
  // One create alone gains nothing from the multi-row path.
  return creates.length + posts.length >= 2 ? { creates, posts } : undefined
}
