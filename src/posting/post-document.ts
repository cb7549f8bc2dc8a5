// The generic poster: the posting plan (rules compiled from the configuration) turns a document and its
// table parts into movement rows, and the movement store writes them in place of the document's earlier
// movements, with totals. No document or register name appears here; `Post`, `Unpost` and `DELETE` of
// a document all come through these two functions, inside the caller's transaction.
import type { EntitySetModel, ServiceModel } from '../model/model.js'
import type { Transaction } from '../store/transaction.js'
import { insertMovementsOfNewRecorders, removeMovements, replaceMovements, type Recorder } from './movement-store.js'
import { computeMovements, postingPlan, type PostingInput, type RegisterMovements } from './posting-plan.js'

export function recorderOf(model: ServiceModel, documentSet: EntitySetModel, key: string): Recorder {
  return { key, type: `${model.namespace}.${documentSet.name}` }
}

/** Writes the document's movements by its posting rules, replacing every earlier movement it recorded. */
export async function postDocument(
  transaction: Transaction,
  model: ServiceModel,
  documentSet: EntitySetModel,
  input: PostingInput,
): Promise<void> {
  const plan = postingPlan(model, documentSet)
  const movements = computeMovements(plan, input)
  await replaceMovements(transaction, model, plan.recordTypeSets, movements, recorderOf(model, documentSet, String(input.document.Ref_Key)))
}

/** Removes every movement the document recorded, in every register that lists it as a recorder. */
export async function unpostDocument(
  transaction: Transaction,
  model: ServiceModel,
  documentSet: EntitySetModel,
  key: string,
): Promise<void> {
  await removeMovements(transaction, model, postingPlan(model, documentSet).recordTypeSets, recorderOf(model, documentSet, key))
}

/**
 * Posts documents created earlier in the same transaction (a `$batch` change set that creates documents
 * and then posts them): they have no movements yet, so nothing is removed, and the movements of all of
 * them go to each register in one INSERT. The rows are the same as posting them one by one.
 */
export async function postNewDocuments(
  transaction: Transaction,
  model: ServiceModel,
  documentSet: EntitySetModel,
  inputs: readonly PostingInput[],
): Promise<void> {
  const plan = postingPlan(model, documentSet)
  const merged = new Map<EntitySetModel, RegisterMovements>()
  for (const input of inputs) {
    for (const register of computeMovements(plan, input)) {
      const entry = merged.get(register.recordTypeSet)
      if (entry) entry.rows.push(...register.rows)
      else
        merged.set(register.recordTypeSet, { recordTypeSet: register.recordTypeSet, columns: register.columns, rows: [...register.rows] })
    }
  }
  const keys = inputs.map((input) => String(input.document.Ref_Key))
  await insertMovementsOfNewRecorders(transaction, model, [...merged.values()], keys, recorderOf(model, documentSet, keys[0]!).type)
}
