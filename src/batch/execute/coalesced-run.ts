// Consecutive creates in a change set, and the Posts of those documents that follow them, written with
// multi-row INSERTs (service.md's headline use: a loader sends 50 documents and their 50 Posts in one
// change set). Every observable result stays what running them one by one gives: each create's row,
// Location and 201 body, each Post's movements, totals and 204 with a new ETag, all in the set's one
// transaction. Anything unusual (preconditions, repeatable requests, a body that does not validate, a
// key that exists) makes the run fall back to one-by-one execution, which reports it at its operation.
import { ODataError } from '../../errors.js'
import type { EntitySetModel } from '../../model/model.js'
import { resolveResourcePath } from '../../odata/resource-path.js'
import { postNewDocuments } from '../../posting/post-document.js'
import type { EntityValues } from '../../posting/posting-plan.js'
import type { ServiceModel } from '../../model/model.js'
import type { ServiceContext } from '../../service/service-context.js'
import type { ServiceRequest } from '../../service/service-request.js'
import { newDataVersion } from '../../service/writes/data-version.js'
import { entityTag } from '../../service/writes/preconditions.js'
import { CoalescedCreateConflict, planCreate, writeCreates, type CreatePlan } from '../../service/writes/write-object.js'
import { noContent, type WriteResult } from '../../service/writes/write-result.js'
import { authorizeWrite } from '../../service/authorize.js'
import { quoteIdentifier as q } from '../../sql/quote-identifier.js'
import type { Transaction } from '../../store/transaction.js'
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
  if (body.kind === 'json') return body.value === null || (typeof body.value === 'object' && !Array.isArray(body.value) && Object.keys(body.value).length === 0)
  return body.bytes.toString('utf8').trim() === '' || body.bytes.toString('utf8').trim() === '{}'
}

/** Finds the longest run worth writing together that starts at `start`, or undefined. */
export function findCoalescibleRun(model: ServiceModel, operations: readonly PlannedOperation[], start: number): CoalescibleRun | undefined {
  const creates: PlannedOperation[] = []
  let setName: string | undefined
  for (let i = start; i < operations.length; i++) {
    const planned = operations[i]!
    if (planned.operation.method !== 'POST' || !plain(planned) || planned.target?.kind !== 'path' || planned.target.query !== '') break
    let path
    try {
      path = resolveResourcePath(model, planned.target.rest)
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
      if (planned.operation.method !== 'POST' || !plain(planned) || target?.kind !== 'reference' || target.query !== '' || !isEmptyBody(planned)) break
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

/** Stored row → values by property name (what the posting plan reads). */
function valuesOf(set: EntitySetModel, row: readonly unknown[]): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  set.properties.forEach((p, i) => (values[p.name] = row[i]))
  return values
}

/**
 * Validates the creates of a run (no SQL). Undefined when one does not validate or a posted document is
 * marked for deletion: the run then goes one by one and the refusal lands at its operation.
 */
export function planCoalescedRun(context: ServiceContext, createRequests: readonly ServiceRequest[], postedIndexes: readonly number[]): CreatePlan[] | undefined {
  try {
    const plans = createRequests.map((request) => {
      if (request.path.kind !== 'collection') throw new ODataError('BadRequest', 'not a create')
      authorizeWrite(request.subject, request.path.set)
      return planCreate(context, request, request.path.set)
    })
    for (const index of postedIndexes) if (plans[index]!.values.get('DeletionMark') === 1) return undefined
    return plans
  } catch (error) {
    if (error instanceof ODataError) return undefined
    throw error
  }
}

/**
 * Writes a validated run inside the change set's transaction; resolves to the results of the creates
 * then of the Posts, or undefined when an existing key means the creates must be written one by one
 * (the failed multi-row INSERT changed nothing: InnoDB undoes a failed statement whole).
 */
export async function writeCoalescedRun(context: ServiceContext, transaction: Transaction, plans: readonly CreatePlan[], postedIndexes: readonly number[]): Promise<WriteResult[] | undefined> {
  const { model } = context
  let created
  try {
    created = await writeCreates(transaction, model, plans)
  } catch (error) {
    if (error instanceof CoalescedCreateConflict) return undefined
    throw error
  }
  const results = created.map((c) => c.result)
  if (postedIndexes.length === 0) return results
  const set = plans[0]!.set
  const inputs = postedIndexes.map((index) => {
    const entity = created[index]!
    const tableParts: Record<string, EntityValues[]> = {}
    for (const [name, rows] of entity.tablePartRows) {
      const rowSet = model.entitySetByName.get(`${set.name}_${name}`)!
      tableParts[name] = rows.map((row) => valuesOf(rowSet, row))
    }
    return { document: valuesOf(set, entity.row), tableParts }
  })
  await postNewDocuments(transaction, model, set, inputs)
  const versions = postedIndexes.map(() => newDataVersion())
  const keys = postedIndexes.map((index) => created[index]!.plan.refKey)
  await transaction.run(
    `UPDATE ${q(set.table)} SET ${q('Posted')} = 1, ${q('DataVersion')} = CASE ${q('Ref_Key')} ${keys.map(() => 'WHEN ? THEN ?').join(' ')} END WHERE ${q('Ref_Key')} IN (?)`,
    [...keys.flatMap((key, i) => [key, versions[i]]), keys],
  )
  return [...results, ...versions.map((version) => noContent(entityTag(version)))]
}
