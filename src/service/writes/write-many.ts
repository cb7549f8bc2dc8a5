// "Write many in one statement": consecutive creates of one catalog or document set, and the Posts of
// those documents that follow them, as one write with multi-row INSERTs (service.md's headline use: a
// loader sends 50 documents and their 50 Posts in one `$batch` change set). The change set
// (src/service/change-set.ts) hands over requests the dispatcher has admitted (method, the profile's
// right to write); everything about SQL is here.
//
// Every observable result stays what the requests give one by one: each create's row, Location and 201
// body, each Post's movements, totals and 204 with a new ETag, all in the caller's one transaction.
// Anything unusual makes it decline (undefined), and the caller runs the requests one by one, which
// reports the refusal at its request: a body that does not validate, a posted document marked for
// deletion (prepareWriteMany), or a key that exists (the operation; the failed multi-row INSERT changed
// nothing, as InnoDB undoes a failed statement whole).
import { ODataError } from '../../errors.js'
import type { EntitySetModel } from '../../model/model.js'
import { postNewDocuments } from '../../posting/post-document.js'
import type { EntityValues } from '../../posting/posting-plan.js'
import { id, join, list, sql } from '../../sql/sql-template.js'
import { recordChanges } from '../../store/change-record.js'
import type { Transaction } from '../../store/transaction.js'
import type { ServiceContext } from '../service-context.js'
import type { ServiceRequest } from '../service-request.js'
import { newDataVersion } from './data-version.js'
import { entityTag } from './preconditions.js'
import { CoalescedCreateConflict, planCreate, writeCreates, type CreatedEntity, type CreatePlan } from './write-object.js'
import { noContent, type WriteResult } from './write-result.js'

/**
 * The SQL half: resolves to the results of the creates, then of the Posts, in request order; or
 * undefined when the requests must run one by one after all (an existing key).
 */
export type WriteManyOperation = (transaction: Transaction) => Promise<WriteResult[] | undefined>

/** Stored row → values by property name (what the posting plan reads). */
function valuesOf(set: EntitySetModel, row: readonly unknown[]): Record<string, unknown> {
  const values: Record<string, unknown> = {}
  for (const [i, p] of set.properties.entries()) values[p.name] = row[i]
  return values
}

/**
 * Checks creates of one set (POSTs to its collection, no SQL) and the Posts of some of them
 * (`postedIndexes`: indexes into `createRequests`, in the order of the Posts). Undefined when one does
 * not validate or a posted document is marked for deletion: the requests then run one by one.
 */
export function prepareWriteMany(
  context: ServiceContext,
  createRequests: readonly ServiceRequest[],
  postedIndexes: readonly number[],
): WriteManyOperation | undefined {
  let plans: CreatePlan[]
  try {
    plans = createRequests.map((request) => {
      if (request.path.kind !== 'collection') throw new ODataError('BadRequest', 'not a create')
      return planCreate(context, request, request.path.set)
    })
  } catch (error) {
    if (error instanceof ODataError) return undefined
    throw error
  }
  const set = plans[0]!.set
  if (plans.some((plan) => plan.set !== set)) return undefined
  for (const index of postedIndexes) if (plans[index]!.values.get('DeletionMark') === 1) return undefined
  return (transaction) => writeMany(context, transaction, plans, postedIndexes)
}

async function writeMany(
  context: ServiceContext,
  transaction: Transaction,
  plans: readonly CreatePlan[],
  postedIndexes: readonly number[],
): Promise<WriteResult[] | undefined> {
  const { model } = context
  let created: CreatedEntity[]
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
  // One UPDATE marks every posted document, each with its own new DataVersion.
  const versions = postedIndexes.map(() => newDataVersion())
  const keys = postedIndexes.map((index) => created[index]!.plan.refKey)
  const cases = join(
    keys.map((key, i) => sql`WHEN ${key} THEN ${versions[i]}`),
    ' ',
  )
  await transaction.run(
    sql`UPDATE ${id(set.table)} SET ${id('Posted')} = 1, ${id('DataVersion')} = CASE ${id('Ref_Key')} ${cases} END WHERE ${id('Ref_Key')} IN (${list(keys)})`,
  )
  // Already noted by writeCreates; noted again for whoever reads this alone.
  recordChanges(
    transaction,
    set.table,
    keys.map((key) => [key]),
  )
  return [...results, ...versions.map((version) => noContent(entityTag(version)))]
}
