// Create, update and delete of catalog items and documents (decisions.md §5):
// - POST creates (201, Location, the entity): `Ref_Key` from the body or made here; an existing key is
//   409, or 412 with `If-None-Match: *`. A document starts with Posted false.
// - PATCH merges the given properties into the stored entity, PUT replaces it (absent properties take
//   their defaults); both 200 with the entity. Key, DataVersion and Posted are never taken from a body.
// - Table parts are written whole: an array given for `Goods` replaces every row, LineNumber renumbered
//   1..n; a table part absent from the body is left as it is (PUT too, as OData leaves navigation
//   properties a PUT does not mention). The response includes every table part.
// - DELETE removes the entity; a document also loses its table-part rows and all its movements (totals
//   kept). PATCH and PUT never touch movements: post again to recompute them.
// Every write sets a new DataVersion; If-Match is checked against the stored one under the row lock.
// A document created without a Date gets the current time (UTC); one created with `Posted` in its body
// is still created unposted.
import { randomUUID } from 'node:crypto'
import { ODataError } from '../../errors.js'
import type { EntitySetModel, PropertyModel, ServiceModel } from '../../model/model.js'
import { EMPTY_GUID } from '../../model/model.js'
import type { KeyValues } from '../../odata/resource-path.js'
import { unpostDocument } from '../../posting/post-document.js'
import { defaultValue } from '../../posting/posting-plan.js'
import { canonicalKey } from '../../respond/entity-writer.js'
import { id, idList, join, rowValues, sql, type Statement } from '../../sql/sql-template.js'
import { recordChange, recordChanges } from '../../store/change-record.js'
import { isDuplicateKey, type Transaction } from '../../store/transaction.js'
import { jsonFormat } from '../response-format.js'
import type { ServiceContext } from '../service-context.js'
import type { ServiceRequest } from '../service-request.js'
import { invalidValue, storedValue } from './body-values.js'
import { newDataVersion } from './data-version.js'
import { objectWritable, parseJsonBody, readProperties, readTableParts } from './entity-body.js'
import { checkPreconditions, entityTag } from './preconditions.js'
import { entityResult, noContent, type ExpandedRows, type WriteResult } from './write-result.js'

export type WriteOperation = (transaction: Transaction) => Promise<WriteResult>

type Values = ReadonlyMap<string, unknown>

/** The current UTC time as stored ('YYYY-MM-DD HH:MM:SS'): the Date of a document created without one. */
function nowStored(): string {
  return new Date().toISOString().slice(0, 19).replace('T', ' ')
}

/** A whole row in the order of `set.properties`: given values, then fixed ones, then defaults. */
function fullRow(set: EntitySetModel, values: Values, fixed: Readonly<Record<string, unknown>>): unknown[] {
  return set.properties.map((p) =>
    Object.hasOwn(fixed, p.name) ? fixed[p.name] : values.has(p.name) ? values.get(p.name) : defaultValue(p.storage),
  )
}

function tablePartSet(model: ServiceModel, documentSet: EntitySetModel, name: string): EntitySetModel {
  return model.entitySetByName.get(`${documentSet.name}_${name}`)!
}

function tablePartNames(set: EntitySetModel): readonly string[] {
  return set.source.type === 'document' ? set.source.tableParts : []
}

/** Table-part rows as stored rows of the row set (Ref_Key of the owner, LineNumber 1..n). */
function tablePartRows(rowSet: EntitySetModel, owner: string, rows: readonly Values[]): unknown[][] {
  return rows.map((values, index) => fullRow(rowSet, values, { Ref_Key: owner, LineNumber: index + 1 }))
}

/** Rows per INSERT: a 10 MB body of table-part rows stays well under any server's max_allowed_packet. */
const ROWS_PER_INSERT = 2000

/** The quoted columns of properties, made once per property list (a set's, a row set's). */
const columnLists = new WeakMap<readonly PropertyModel[], Statement>()

export function columnsOf(properties: readonly PropertyModel[]): Statement {
  let columns = columnLists.get(properties)
  if (!columns) {
    columns = idList(properties.map((p) => p.column))
    columnLists.set(properties, columns)
  }
  return columns
}

async function insertRows(transaction: Transaction, set: EntitySetModel, rows: readonly unknown[][]): Promise<void> {
  const insert = sql`INSERT INTO ${id(set.table)} (${columnsOf(set.properties)}) VALUES `
  const width = set.properties.length
  for (let start = 0; start < rows.length; start += ROWS_PER_INSERT) {
    const chunk = rows.length <= ROWS_PER_INSERT ? rows : rows.slice(start, start + ROWS_PER_INSERT)
    await transaction.run(sql`${insert}${rowValues(chunk, width)}`)
  }
}

/** Reads a stored table part in line order, as rows of the row set's properties. */
export async function readTablePart(transaction: Transaction, rowSet: EntitySetModel, owner: string): Promise<unknown[][]> {
  return transaction.arrays(
    sql`SELECT ${columnsOf(rowSet.properties)} FROM ${id(rowSet.table)} WHERE ${id('Ref_Key')} = ${owner} ORDER BY ${id('LineNumber')}`,
  )
}

/** Locks and reads the stored entity (every property, in model order), or undefined when there is none. */
export async function lockEntity(
  transaction: Transaction,
  set: EntitySetModel,
  key: string,
  properties: readonly PropertyModel[] = set.properties,
): Promise<unknown[] | undefined> {
  const rows = await transaction.arrays(
    sql`SELECT ${columnsOf(properties)} FROM ${id(set.table)} WHERE ${id('Ref_Key')} = ${key} FOR UPDATE`,
  )
  return rows[0]
}

export function entityLocation(request: ServiceRequest, set: EntitySetModel, values: ReadonlyMap<string, unknown>): string {
  return `${request.serviceRoot}${encodeURIComponent(set.name)}${canonicalKey(set, (p) => values.get(p.name))}`
}

function valuesByName(set: EntitySetModel, row: readonly unknown[]): Map<string, unknown> {
  return new Map(set.properties.map((p, i) => [p.name, row[i]] as const))
}

/** A validated create, before any SQL: what `writeCreates` inserts. */
export interface CreatePlan {
  readonly request: ServiceRequest
  readonly set: EntitySetModel
  readonly format: ReturnType<typeof jsonFormat>
  readonly refKey: string
  readonly values: Values
  readonly tableParts: ReadonlyMap<string, readonly Values[]>
}

/** What a create wrote: the stored row, its table-part rows by name, and the response. */
export interface CreatedEntity {
  readonly plan: CreatePlan
  readonly row: readonly unknown[]
  readonly tablePartRows: ReadonlyMap<string, readonly unknown[][]>
  readonly dataVersion: string
  readonly result: WriteResult
}

/** Never written to: only creates of a set without table parts get it. */
const NO_TABLE_PARTS = new Map<string, unknown[][]>()

/** Thrown when a multi-row create hits an existing key: the caller writes the creates one by one to tell which. */
export class CoalescedCreateConflict extends Error {}

/** Checks a POST to a catalog or document set and converts its body; no SQL. */
export function planCreate(context: ServiceContext, request: ServiceRequest, set: EntitySetModel): CreatePlan {
  const { model } = context
  const format = jsonFormat(request)
  const body = parseJsonBody(request, true, context.model)!
  let refKey: string
  if (body.Ref_Key !== undefined) {
    refKey = storedValue(set.propertyByName.get('Ref_Key')!, body.Ref_Key, 'Ref_Key') as string
    if (refKey === EMPTY_GUID) throw invalidValue('Ref_Key', 'the all-zero GUID is the empty reference and cannot be a key')
  } else {
    refKey = randomUUID()
  }
  return {
    request,
    set,
    format,
    refKey,
    values: readProperties(model, body, objectWritable(set)),
    tableParts: readTableParts(model, set, body),
  }
}

/**
 * Inserts the planned entities of one set with one multi-row INSERT per table (a `$batch` change set
 * writes consecutive creates so; a single request is a run of one). The observable result of each is the
 * same as one by one: its row, its Location, its 201 body. An existing key fails a run of one with 409
 * (412 with `If-None-Match: *`), and a longer run with CoalescedCreateConflict.
 */
export async function writeCreates(transaction: Transaction, model: ServiceModel, plans: readonly CreatePlan[]): Promise<CreatedEntity[]> {
  const set = plans[0]!.set
  const isDocument = set.kind === 'Document'
  const prepared = plans.map((plan) => {
    const dataVersion = newDataVersion()
    const fixed: Record<string, unknown> = { Ref_Key: plan.refKey, DataVersion: dataVersion }
    if (isDocument) {
      fixed.Posted = 0
      if (!plan.values.has('Date')) fixed.Date = nowStored()
    }
    return { plan, dataVersion, row: fullRow(set, plan.values, fixed) }
  })
  try {
    await insertRows(
      transaction,
      set,
      prepared.map((p) => p.row),
    )
  } catch (error) {
    if (!isDuplicateKey(error)) throw error
    if (plans.length > 1) throw new CoalescedCreateConflict()
    const { request, refKey } = plans[0]!
    // decisions.md §5: an existing Ref_Key is 409, or 412 when the client said If-None-Match: *.
    if (request.headers.get('if-none-match')?.trim() === '*')
      throw new ODataError('PreconditionFailed', `${set.name} already has an entity with Ref_Key ${refKey} (If-None-Match: *)`, {
        target: 'Ref_Key',
      })
    throw new ODataError('Conflict', `${set.name} already has an entity with Ref_Key ${refKey}`, { target: 'Ref_Key' })
  }
  recordChanges(
    transaction,
    set.table,
    plans.map((plan) => [plan.refKey]),
  )
  const partNames = tablePartNames(set)
  // A catalog has no table parts: its creates share one empty map rather than one each.
  const tablePartRowsByPlan =
    partNames.length === 0 ? prepared.map(() => NO_TABLE_PARTS) : prepared.map(() => new Map<string, unknown[][]>())
  for (const name of partNames) {
    const rowSet = tablePartSet(model, set, name)
    const all: unknown[][] = []
    prepared.forEach(({ plan }, i) => {
      const rows = tablePartRows(rowSet, plan.refKey, plan.tableParts.get(name) ?? [])
      tablePartRowsByPlan[i]!.set(name, rows)
      all.push(...rows)
    })
    if (all.length > 0) await insertRows(transaction, rowSet, all)
  }
  const setSegment = encodeURIComponent(set.name)
  return prepared.map(({ plan, dataVersion, row }, i) => {
    const expanded: ExpandedRows[] = partNames.map((name) => ({
      name,
      properties: tablePartSet(model, set, name).properties,
      rows: tablePartRowsByPlan[i]!.get(name)!,
    }))
    const location = `${plan.request.serviceRoot}${setSegment}${canonicalKey(set, (p) => row[set.properties.indexOf(p)])}`
    const result = entityResult(plan.request, plan.format, {
      status: 201,
      set,
      properties: set.properties,
      row,
      etag: entityTag(dataVersion),
      location,
      expanded,
    })
    return { plan, row, tablePartRows: tablePartRowsByPlan[i]!, dataVersion, result }
  })
}

/** POST to a catalog or document set. */
export function prepareCreate(context: ServiceContext, request: ServiceRequest, set: EntitySetModel): WriteOperation {
  const plan = planCreate(context, request, set)
  return async (transaction) => (await writeCreates(transaction, context.model, [plan]))[0]!.result
}

/** PATCH (merge) or PUT (replace) of a catalog item or document. */
export function prepareUpdate(
  context: ServiceContext,
  request: ServiceRequest,
  set: EntitySetModel,
  key: KeyValues,
  mode: 'merge' | 'replace',
): WriteOperation {
  const { model } = context
  const format = jsonFormat(request)
  const body = parseJsonBody(request, true, context.model)!
  const refKey = String(key.get('Ref_Key'))
  const values = readProperties(model, body, objectWritable(set))
  const tableParts = readTableParts(model, set, body)
  const versionIndex = set.properties.findIndex((p) => p.name === 'DataVersion')

  return async (transaction) => {
    const stored = await lockEntity(transaction, set, refKey)
    if (!stored) throw new ODataError('NotFound', `${set.name} has no entity with Ref_Key ${refKey}`)
    checkPreconditions(request, true, String(stored[versionIndex]))
    const dataVersion = newDataVersion()
    const fixed: Record<string, unknown> = { Ref_Key: refKey, DataVersion: dataVersion }
    // Posted belongs to posting, never to PATCH or PUT.
    const postedIndex = set.properties.findIndex((p) => p.name === 'Posted')
    if (postedIndex >= 0) fixed.Posted = stored[postedIndex]
    const merged = mode === 'merge' ? new Map([...valuesByName(set, stored), ...values]) : values
    const row = fullRow(set, merged, fixed)
    const assignments = set.properties.filter((p) => p.role !== 'key')
    const settings = join(assignments.map((p) => sql`${id(p.column)} = ${row[set.properties.indexOf(p)]}`))
    await transaction.run(sql`UPDATE ${id(set.table)} SET ${settings} WHERE ${id('Ref_Key')} = ${refKey}`)
    recordChange(transaction, set.table, [refKey])
    const expanded: ExpandedRows[] = []
    for (const name of tablePartNames(set)) {
      const rowSet = tablePartSet(model, set, name)
      const given = tableParts.get(name)
      let rows: unknown[][]
      if (given) {
        await transaction.run(sql`DELETE FROM ${id(rowSet.table)} WHERE ${id('Ref_Key')} = ${refKey}`)
        rows = tablePartRows(rowSet, refKey, given)
        await insertRows(transaction, rowSet, rows)
      } else {
        rows = await readTablePart(transaction, rowSet, refKey)
      }
      expanded.push({ name, properties: rowSet.properties, rows })
    }
    return entityResult(request, format, { status: 200, set, properties: set.properties, row, etag: entityTag(dataVersion), expanded })
  }
}

/** DELETE of a catalog item or document (a document with its table parts and movements). */
export function prepareDelete(context: ServiceContext, request: ServiceRequest, set: EntitySetModel, key: KeyValues): WriteOperation {
  const { model } = context
  const refKey = String(key.get('Ref_Key'))
  const dataVersion = set.propertyByName.get('DataVersion')!
  return async (transaction) => {
    const stored = await lockEntity(transaction, set, refKey, [dataVersion])
    if (!stored) throw new ODataError('NotFound', `${set.name} has no entity with Ref_Key ${refKey}`)
    checkPreconditions(request, true, String(stored[0]))
    if (set.kind === 'Document') {
      // Every movement the document recorded goes, posted or not (a record set may have been written directly).
      await unpostDocument(transaction, model, set, refKey)
      for (const name of tablePartNames(set))
        await transaction.run(sql`DELETE FROM ${id(tablePartSet(model, set, name).table)} WHERE ${id('Ref_Key')} = ${refKey}`)
    }
    await transaction.run(sql`DELETE FROM ${id(set.table)} WHERE ${id('Ref_Key')} = ${refKey}`)
    recordChange(transaction, set.table, [refKey])
    return noContent()
  }
}
