// The bound actions of a document (decisions.md §5): `Post` writes the movements its posting rules
// define, replacing earlier ones, and sets Posted; `Unpost` removes them and clears Posted. Both set a
// new DataVersion and answer 204 with the new ETag, in one transaction with the movements and totals.
// Both call forms (`…/Post`, `…/StandardODATA.Post`) resolve to the same action before this code runs.
// Parameters come as a JSON object body: `Post` takes `PostingModeOperational` (boolean, optional; the
// demo's rules do not depend on it, it is checked and accepted); any other parameter is `400`.
import { recordChange } from '../../store/change-record.js'
import { ODataError } from '../../errors.js'
import type { ActionModel, EntitySetModel } from '../../model/model.js'
import type { KeyValues } from '../../odata/resource-path.js'
import { postDocument, unpostDocument } from '../../posting/post-document.js'
import { postingPlan, type EntityValues } from '../../posting/posting-plan.js'
import { id, sql } from '../../sql/sql-template.js'
import type { ServiceContext } from '../service-context.js'
import type { ServiceRequest } from '../service-request.js'
import { invalidValue } from './body-values.js'
import { newDataVersion } from './data-version.js'
import { parseJsonBody } from './entity-body.js'
import { checkPreconditions, entityTag } from './preconditions.js'
import { lockEntity, readTablePart, type WriteOperation } from './write-object.js'
import { noContent } from './write-result.js'

/**
 * The media types a browser form sends (and a page on another site may send without asking first): an
 * action's parameters are JSON, and a bodiless `Post` sent as a form is a forged one.
 */
const FORM_MEDIA_TYPES = /^\s*(application\/x-www-form-urlencoded|multipart\/form-data|text\/plain)\s*(;|$)/i

function checkParameters(request: ServiceRequest, action: ActionModel): void {
  const contentType = request.headers.get('content-type')
  if (contentType !== undefined && FORM_MEDIA_TYPES.test(contentType))
    throw new ODataError(
      'UnsupportedMediaType',
      `${action.name} takes its parameters as application/json, not ${contentType.slice(0, 100)}`,
    )
  const body = parseJsonBody(request, false)
  if (!body) return
  for (const [name, value] of Object.entries(body)) {
    if (name.startsWith('@')) continue
    const parameter = action.parameters.find((p) => p.name === name)
    if (!parameter)
      throw new ODataError(
        'InvalidParameter',
        `${action.name} has no parameter ${name}${action.parameters.length > 0 ? `; it takes ${action.parameters.map((p) => p.name).join(', ')}` : ''}`,
        { target: name },
      )
    if (parameter.edmType === 'Edm.Boolean' && typeof value !== 'boolean' && value !== null)
      throw invalidValue(name, `expected true or false, got ${JSON.stringify(value)}`)
  }
}

export function prepareAction(
  context: ServiceContext,
  request: ServiceRequest,
  set: EntitySetModel,
  key: KeyValues,
  action: ActionModel,
): WriteOperation {
  const { model } = context
  checkParameters(request, action)
  const refKey = String(key.get('Ref_Key'))
  const plan = postingPlan(model, set)
  const index = (name: string) => set.properties.findIndex((p) => p.name === name)
  const versionIndex = index('DataVersion')
  const deletionMarkIndex = index('DeletionMark')

  return async (transaction) => {
    const stored = await lockEntity(transaction, set, refKey)
    if (!stored) throw new ODataError('NotFound', `${set.name} has no entity with Ref_Key ${refKey}`)
    checkPreconditions(request, true, String(stored[versionIndex]))
    const posting = action.name === 'Post'
    if (posting) {
      if (Number(stored[deletionMarkIndex]) === 1)
        throw new ODataError('DeletionMarked', `${set.name} ${refKey} is marked for deletion and cannot be posted`)
      const document: Record<string, unknown> = {}
      for (const [i, p] of set.properties.entries()) document[p.name] = stored[i]
      const tableParts: Record<string, EntityValues[]> = {}
      for (const name of plan.tableParts) {
        const rowSet = model.entitySetByName.get(`${set.name}_${name}`)!
        tableParts[name] = (await readTablePart(transaction, rowSet, refKey)).map((row) => {
          const values: Record<string, unknown> = {}
          for (const [i, p] of rowSet.properties.entries()) values[p.name] = row[i]
          return values
        })
      }
      await postDocument(transaction, model, set, { document, tableParts })
    } else {
      await unpostDocument(transaction, model, set, refKey)
    }
    const dataVersion = newDataVersion()
    await transaction.run(
      sql`UPDATE ${id(set.table)} SET ${id('Posted')} = ${posting ? 1 : 0}, ${id('DataVersion')} = ${dataVersion} WHERE ${id('Ref_Key')} = ${refKey}`,
    )
    recordChange(transaction, set.table, [refKey])
    return noContent(entityTag(dataVersion))
  }
}
