// Records of independent information registers (decisions.md §5): `POST` writes a record, replacing
// the one with the same key if there is one (201 with Location and the record, either way); `PATCH`
// merges into the record named by the key (404 if there is none); `DELETE` removes it.
// Decided here:
// - a periodic register needs `Period` in a POST, and it is cut to the start of the register's period
//   (a Day register keeps the date, a Month register the first of the month), as the reference system
//   stores it; a non-periodic register without dimensions has the single record `SurrogateKey` 0;
// - key properties in a PATCH body are ignored: the URL names the record;
// - registers have no DataVersion, so no ETag: `If-Match: *` holds for an existing record, any other
//   If-Match fails (412).
import { ODataError } from '../../errors.js'
import type { InformationPeriodicity } from '../../model/configuration.js'
import type { EntitySetModel } from '../../model/model.js'
import type { KeyValues } from '../../odata/resource-path.js'
import { defaultValue } from '../../posting/posting-plan.js'
import { id, join, rowValues, sql } from '../../sql/sql-template.js'
import { recordChange, recordRows } from '../../store/change-record.js'
import { jsonFormat } from '../response-format.js'
import type { ServiceContext } from '../service-context.js'
import type { ServiceRequest } from '../service-request.js'
import { invalidValue } from './body-values.js'
import { parseJsonBody, readProperties } from './entity-body.js'
import { checkPreconditions } from './preconditions.js'
import { columnsOf, entityLocation, type WriteOperation } from './write-object.js'
import { entityResult, noContent } from './write-result.js'

/** 'YYYY-MM-DD HH:MM:SS' cut to the start of its period. */
export function periodStart(stored: string, periodicity: InformationPeriodicity): string {
  const year = stored.slice(0, 4)
  const month = Number(stored.slice(5, 7))
  switch (periodicity) {
    case 'None':
    case 'Second':
      return stored
    case 'Day':
      return `${stored.slice(0, 10)} 00:00:00`
    case 'Month':
      return `${stored.slice(0, 7)}-01 00:00:00`
    case 'Quarter':
      return `${year}-${String(Math.floor((month - 1) / 3) * 3 + 1).padStart(2, '0')}-01 00:00:00`
    case 'Year':
      return `${year}-01-01 00:00:00`
  }
}

function periodicityOf(set: EntitySetModel): InformationPeriodicity {
  return set.source.type === 'informationRegister' ? set.source.periodicity : 'None'
}

/** `k1 = ? AND k2 = ?` over the set's key columns, with the key's values. */
const keyCondition = (set: EntitySetModel, values: readonly unknown[]) =>
  join(
    set.key.map((k, i) => sql`${id(k.column)} = ${values[i]}`),
    ' AND ',
  )

/** POST: writes a whole record; an existing record with the same key is replaced. */
export function prepareRecordWrite(context: ServiceContext, request: ServiceRequest, set: EntitySetModel): WriteOperation {
  const format = jsonFormat(request)
  const body = parseJsonBody(request, true, context.model)!
  const values = readProperties(context.model, body, set.properties)
  const periodicity = periodicityOf(set)
  if (periodicity !== 'None') {
    const period = values.get('Period')
    if (period === undefined) throw invalidValue('Period', `is required: ${set.name} is periodic (${periodicity})`)
    values.set('Period', periodStart(String(period), periodicity))
  }
  if (set.propertyByName.has('SurrogateKey')) values.set('SurrogateKey', 0)
  const row = set.properties.map((p) => (values.has(p.name) ? values.get(p.name) : defaultValue(p.storage)))
  const keyValues = new Map(set.properties.map((p, i) => [p.name, row[i]] as const))

  return async (transaction) => {
    // REPLACE is the portable "insert or replace by primary key" (MySQL 8, MariaDB, TiDB).
    await transaction.run(sql`REPLACE INTO ${id(set.table)} (${columnsOf(set.properties)}) VALUES ${rowValues([row], row.length)}`)
    recordRows(
      transaction,
      set.table,
      set.key.map((k) => k.column),
      set.properties.map((p) => p.column),
      [row],
    )
    return entityResult(request, format, {
      status: 201,
      set,
      properties: set.properties,
      row,
      location: entityLocation(request, set, keyValues),
    })
  }
}

/** PATCH by key: merges the given non-key properties into the stored record. */
export function prepareRecordUpdate(context: ServiceContext, request: ServiceRequest, set: EntitySetModel, key: KeyValues): WriteOperation {
  const format = jsonFormat(request)
  const body = parseJsonBody(request, true, context.model)!
  const nonKey = set.properties.filter((p) => !set.key.includes(p))
  const values = readProperties(context.model, body, nonKey)
  const keyParameters = set.key.map((k) => key.get(k.name))

  return async (transaction) => {
    const [stored] = await transaction.arrays(
      sql`SELECT ${columnsOf(set.properties)} FROM ${id(set.table)} WHERE ${keyCondition(set, keyParameters)} FOR UPDATE`,
    )
    if (!stored) throw new ODataError('NotFound', `${set.name} has no record with this key`)
    checkPreconditions(request, true, undefined)
    const row = set.properties.map((p, i) => (values.has(p.name) ? values.get(p.name) : stored[i]))
    if (nonKey.length > 0) {
      const settings = join(nonKey.map((p) => sql`${id(p.column)} = ${row[set.properties.indexOf(p)]}`))
      await transaction.run(sql`UPDATE ${id(set.table)} SET ${settings} WHERE ${keyCondition(set, keyParameters)}`)
      recordChange(transaction, set.table, keyParameters)
    }
    return entityResult(request, format, { status: 200, set, properties: set.properties, row })
  }
}

/** DELETE by key. */
export function prepareRecordDelete(
  _context: ServiceContext,
  request: ServiceRequest,
  set: EntitySetModel,
  key: KeyValues,
): WriteOperation {
  const keyParameters = set.key.map((k) => key.get(k.name))
  return async (transaction) => {
    const [stored] = await transaction.arrays(sql`SELECT 1 FROM ${id(set.table)} WHERE ${keyCondition(set, keyParameters)} FOR UPDATE`)
    if (!stored) throw new ODataError('NotFound', `${set.name} has no record with this key`)
    checkPreconditions(request, true, undefined)
    await transaction.run(sql`DELETE FROM ${id(set.table)} WHERE ${keyCondition(set, keyParameters)}`)
    recordChange(transaction, set.table, keyParameters)
    return noContent()
  }
}
