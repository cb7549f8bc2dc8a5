// Record sets of accumulation and accounting registers, written whole by recorder (decisions.md §5):
// `PUT`/`PATCH AccumulationRegister_Stock(Recorder=…,Recorder_Type=…)` or `POST AccumulationRegister_Stock`
// with `{"Recorder":…, "Recorder_Type":…, "RecordSet":[…]}` replaces every movement of the recorder in
// that register (an empty array clears it), keeping the totals in the same transaction.
// Rows carry no Recorder, Recorder_Type or LineNumber of their own: those come from the key and the
// array order. Defaults for a row (decided here, as the reference system fills a new record):
//   Period     the recorder document's Date (the date a posting would give it);
//   Active     true;
//   RecordType Receipt (Balance-kind accumulation registers);
//   others     their type's empty value.
// The recorder document must exist (404 otherwise): its row is locked for the write, which serialises
// this write with Post, Unpost and DELETE of the same document. Writing a record set changes neither
// the document's Posted nor its DataVersion.
import { ODataError } from '../../errors.js'
import type { EntitySetModel, ServiceModel } from '../../model/model.js'
import type { KeyValues } from '../../odata/resource-path.js'
import { replaceMovements } from '../../posting/movement-store.js'
import { defaultValue } from '../../posting/posting-plan.js'
import { id, sql } from '../../sql/sql-template.js'
import { jsonFormat } from '../response-format.js'
import type { ServiceContext } from '../service-context.js'
import type { ServiceRequest } from '../service-request.js'
import { invalidValue, storedValue } from './body-values.js'
import { movementWritable, parseJsonBody, readProperties } from './entity-body.js'
import { checkPreconditions } from './preconditions.js'
import { entityLocation, type WriteOperation } from './write-object.js'
import { entityResult } from './write-result.js'

function recordTypeSetOf(model: ServiceModel, set: EntitySetModel): EntitySetModel {
  const source = set.source
  if (source.type !== 'accumulationRegister' && source.type !== 'accountingRegister')
    throw new Error(`${set.name} is not a register with record sets`)
  return model.entitySetByName.get(source.recordTypeSet)!
}

/** `StandardODATA.Document_GoodsReceipt` → the document set. */
function recorderDocumentSet(model: ServiceModel, recorderType: string): EntitySetModel {
  const name = recorderType.startsWith(`${model.namespace}.`) ? recorderType.slice(model.namespace.length + 1) : recorderType
  const set = model.entitySetByName.get(name)
  if (set?.kind !== 'Document') throw new Error(`${recorderType} is not a document type`)
  return set
}

/**
 * `PUT`/`PATCH` on the record-set key (`key` given) or `POST` to the register (`key` undefined: the
 * recorder comes from the body).
 */
export function prepareRecordSetWrite(
  context: ServiceContext,
  request: ServiceRequest,
  set: EntitySetModel,
  key: KeyValues | undefined,
): WriteOperation {
  const { model } = context
  const format = jsonFormat(request)
  const body = parseJsonBody(request, true, context.model)!
  const recordTypeSet = recordTypeSetOf(model, set)
  const recorderProperty = set.propertyByName.get('Recorder')!
  const recorderTypeProperty = set.propertyByName.get('Recorder_Type')!

  // The recorder: from the key, with any Recorder/Recorder_Type in the body required to agree; or from the body.
  const fromBody = (name: 'Recorder' | 'Recorder_Type') => {
    const property = name === 'Recorder' ? recorderProperty : recorderTypeProperty
    return body[name] === undefined ? undefined : String(storedValue(property, body[name], name))
  }
  let recorder = fromBody('Recorder')
  let recorderType = fromBody('Recorder_Type')
  if (key) {
    for (const [name, given] of [
      ['Recorder', recorder],
      ['Recorder_Type', recorderType],
    ] as const) {
      if (given !== undefined && given !== String(key.get(name))) throw invalidValue(name, `differs from the ${name} in the URL`)
    }
    recorder = String(key.get('Recorder'))
    recorderType = String(key.get('Recorder_Type'))
  } else {
    if (recorder === undefined) throw invalidValue('Recorder', 'is required: the recorder whose record set this is')
    if (recorderType === undefined)
      throw invalidValue(
        'Recorder_Type',
        `is required (one of ${(recorderTypeProperty.storage.kind === 'enum' ? recorderTypeProperty.storage.values : []).join(', ')})`,
      )
  }
  const records = body.RecordSet
  if (!Array.isArray(records)) throw invalidValue('RecordSet', 'expected an array of records (an empty array clears the record set)')

  const writable = movementWritable(recordTypeSet)
  const properties = recordTypeSet.properties
  const periodIndex = properties.findIndex((p) => p.name === 'Period')
  const rows = records.map((record, index) => {
    if (typeof record !== 'object' || record === null || Array.isArray(record))
      throw invalidValue(`RecordSet/${index}`, 'expected an object')
    const values = readProperties(model, record as Record<string, unknown>, writable, `RecordSet/${index}/`)
    return properties.map((p) => {
      switch (p.name) {
        case 'Recorder':
          return recorder
        case 'Recorder_Type':
          return recorderType
        case 'LineNumber':
          return index + 1
        case 'Active':
          return values.get('Active') ?? 1
        case 'Period':
          return values.get('Period') // undefined: filled with the recorder's Date below
        default:
          return values.has(p.name) ? values.get(p.name) : defaultValue(p.storage)
      }
    })
  })
  const documentSet = recorderDocumentSet(model, recorderType!)
  const keyValues = new Map<string, unknown>([
    ['Recorder', recorder],
    ['Recorder_Type', recorderType],
  ])

  return async (transaction) => {
    const [document] = await transaction.arrays(
      sql`SELECT ${id('Date')} FROM ${id(documentSet.table)} WHERE ${id('Ref_Key')} = ${recorder} FOR UPDATE`,
    )
    if (!document)
      throw new ODataError(
        'NotFound',
        `The recorder ${documentSet.name} ${recorder} does not exist; a record set belongs to an existing document`,
      )
    checkPreconditions(request, true, undefined)
    // Copies, not the prepared rows: a deadlock retry runs this again and may read another Date.
    const filled = rows.map((row) =>
      row[periodIndex] === undefined ? row.map((value, i) => (i === periodIndex ? document[0] : value)) : row,
    )
    await replaceMovements(transaction, model, [recordTypeSet], [{ recordTypeSet, columns: properties, rows: filled }], {
      key: recorder!,
      type: recorderType!,
    })
    return entityResult(request, format, {
      status: key ? 200 : 201,
      set,
      properties: set.properties,
      row: [recorder, recorderType],
      location: key ? undefined : entityLocation(request, set, keyValues),
      expanded: [{ name: 'RecordSet', properties, rows: filled }],
    })
  }
}
