// GET of one entity by key, in every key form of decisions.md §2 (the resource-path resolver has
// already turned the predicate into stored values), with `$select` and `$expand` bound like a
// collection's. Also the target of a single-valued navigation (`Document_X(…)/Warehouse`).
import { ODataError } from '../errors.js'
import type { EntitySetModel, PropertyModel } from '../model/model.js'
import { BoundComparison, BoundLiteral, BoundProperty, type BoundExpression, type SourceColumn } from '../odata/bind/index.js'
import type { KeyValues } from '../odata/resource-path.js'
import type { ResponseSink } from '../respond/response-sink.js'
import { entitySetSources } from '../sql/entity-set-sources.js'
import { QueryCompiler } from '../sql/query-compiler.js'
import { id, idList, join, sql, Statement } from '../sql/sql-template.js'
import { databaseOf } from '../store/database.js'
import { authorizeRead } from './authorize.js'
import { bindRead } from './read/bound-read.js'
import { contextUrl, entityAnnotations } from './read/context-url.js'
import { parseReadOptions } from './read/parsed-read-options.js'
import type { Row } from './read/projection.js'
import { poolRunner } from './read/query-runner.js'
import { loadExpansions, writeObject } from './read/row-object.js'
import { buildRowShape } from './read/row-shape.js'
import { type JsonFormat, jsonFormat, responseHeaders } from './response-format.js'
import { createEntityWriter, type EntityWriter } from '../respond/entity-writer.js'
import type { ServiceContext } from './service-context.js'
import type { ServiceRequest } from './service-request.js'

/** `k1 = ? AND k2 = ?` over the set's key columns, with the key's values in key order. */
export function keyCondition(set: EntitySetModel, values: readonly unknown[]): Statement {
  return join(
    set.key.map((k, i) => sql`${id(k.column)} = ${values[i]}`),
    ' AND ',
  )
}

export function keyParameters(set: EntitySetModel, key: KeyValues): unknown[] {
  return set.key.map((k) => key.get(k.name))
}

/** Reads the stored row of one entity as an array in the order of `properties`, or undefined. */
export async function fetchEntityRow(
  context: ServiceContext,
  set: EntitySetModel,
  key: KeyValues,
  properties: readonly PropertyModel[],
): Promise<unknown[] | undefined> {
  const statement = sql`SELECT ${idList(properties.map((p) => p.column))} FROM ${id(set.table)} WHERE ${keyCondition(set, keyParameters(set, key))} LIMIT 1`
  const rows = await databaseOf(context.pool).arrays(statement, { prepared: true })
  return rows[0]
}

/**
 * A record set (`AccumulationRegister_Stock(Recorder=…,Recorder_Type=…)`) exists when it has movements or
 * when its recorder document exists (an empty set is still a set the recorder may write).
 */
export async function recordSetExists(context: ServiceContext, set: EntitySetModel, key: KeyValues): Promise<boolean> {
  const movements = await databaseOf(context.pool).arrays(
    sql`SELECT 1 FROM ${id(set.table)} WHERE ${keyCondition(set, keyParameters(set, key))} LIMIT 1`,
    { prepared: true },
  )
  if (movements.length > 0) return true
  const recorderType = String(key.get('Recorder_Type'))
  const recorderSet = context.model.entitySetByName.get(recorderType.slice(recorderType.indexOf('.') + 1))
  if (recorderSet?.kind !== 'Document') return false
  const documents = await databaseOf(context.pool).arrays(
    sql`SELECT 1 FROM ${id(recorderSet.table)} WHERE ${id('Ref_Key')} = ${key.get('Recorder')} LIMIT 1`,
    { prepared: true },
  )
  return documents.length > 0
}

/** Whether the entity a path names exists (for navigations from it). */
export async function entityExists(context: ServiceContext, set: EntitySetModel, key: KeyValues): Promise<boolean> {
  if (isRecordSetSet(set)) return recordSetExists(context, set, key)
  return (await fetchEntityRow(context, set, key, [set.key[0]!])) !== undefined
}

function isRecordSetSet(set: EntitySetModel): boolean {
  return set.kind === 'AccumulationRegister' || set.kind === 'AccountingRegister'
}

/** `column = value` for each key property: the entity's row. */
export function keyConditions(
  set: EntitySetModel,
  key: KeyValues,
  column: (name: string) => SourceColumn,
  range: BoundProperty['range'],
): BoundExpression[] {
  return set.key.map((k) => {
    const source = column(k.name)
    return BoundComparison.create(
      'eq',
      BoundProperty.create(range, source),
      BoundLiteral.create(source.type, key.get(k.name) as string | number),
    )
  })
}

export interface ReadEntityOptions {
  /** What a missing entity is: 404 (by key), or 204 No Content (the target of a single-valued navigation). */
  readonly missing?: 'notFound' | 'noContent'
}

/**
 * The plain read of a whole entity, made once per set: a prepared statement and a row writer. The
 * statement's text is made once with the builder; its key values (in key order) are given per request.
 */
interface PlainEntityRead {
  readonly sql: string
  readonly writer: EntityWriter
  readonly versionIndex: number
}
const plainReads = new WeakMap<EntitySetModel, PlainEntityRead>()

function plainEntityRead(set: EntitySetModel): PlainEntityRead {
  let read = plainReads.get(set)
  if (!read) {
    read = {
      sql: sql`SELECT ${idList(set.properties.map((p) => p.column))} FROM ${id(set.table)} WHERE ${keyCondition(
        set,
        set.key.map(() => null),
      )} LIMIT 1`.text,
      writer: createEntityWriter(set.properties, { ieee754Compatible: false }),
      versionIndex: set.properties.findIndex((p) => p.name === 'DataVersion'),
    }
    plainReads.set(set, read)
  }
  return read
}

/**
 * The most frequent read of all, GET by key with no query option and the default format, skips binding
 * and compiling: its SQL and writer are made once per set, and the statement is prepared on the server.
 * The answer is the same as the general path's (a test compares them).
 */
async function readPlainEntity(
  context: ServiceContext,
  request: ServiceRequest,
  sink: ResponseSink,
  set: EntitySetModel,
  key: KeyValues,
  options: ReadEntityOptions,
  format: JsonFormat,
): Promise<void> {
  const read = plainEntityRead(set)
  const rows = await databaseOf(context.pool).arrays(new Statement(read.sql, keyParameters(set, key)), { prepared: true })
  const row = rows[0]
  if (!row) {
    if (options.missing === 'noContent') return sink.send(204, {})
    throw new ODataError('NotFound', `${set.name} has no entity with this key`)
  }
  const etag = read.versionIndex < 0 ? undefined : `W/"${String(row[read.versionIndex])}"`
  sink.sendJson(
    200,
    read.writer.write(row, entityAnnotations(set, request.serviceRoot, etag)),
    responseHeaders(format, etag === undefined ? {} : { ETag: etag }),
  )
}

export async function readEntity(
  context: ServiceContext,
  request: ServiceRequest,
  sink: ResponseSink,
  set: EntitySetModel,
  key: KeyValues,
  options: ReadEntityOptions = {},
): Promise<void> {
  authorizeRead(request.subject, set)
  // Sets with table parts take the general path, which reads the parts' rows as expansions do (bind-expand.ts).
  if (request.query.system.size === 0 && !isRecordSetSet(set) && set.properties.length > 0 && !set.navigations.some((n) => n.collection)) {
    const format = jsonFormat(request)
    if (format.metadata === 'minimal' && !format.ieee754Compatible)
      return readPlainEntity(context, request, sink, set, key, options, format)
  }
  const parsed = parseReadOptions(request, 'entity')
  const format = jsonFormat(request)
  const source = entitySetSources(context.model)(set.name)
  const bound = bindRead(context, request, parsed, source)
  const root = bound.scope.root
  const shape = buildRowShape(bound.scope, bound.select, bound.expand, { model: context.model, format, serviceRoot: request.serviceRoot })
  const dataVersion = source.columnByName.get('DataVersion')
  const versionPosition = dataVersion === undefined ? undefined : shape.projection.addColumn(root, dataVersion)
  const run = poolRunner(context.pool)

  let row: Row | undefined
  if (isRecordSetSet(set)) {
    // A record set is its key: nothing to read but whether it exists.
    row = (await recordSetExists(context, set, key))
      ? shape.projection.columns.map((c) => key.get((c.expression as BoundProperty).column.name))
      : undefined
  } else {
    const where = keyConditions(set, key, (name) => source.columnByName.get(name)!, root)
    row = (await run(new QueryCompiler().compileSelect({ scope: bound.scope, columns: shape.projection.columns, where, limit: 1 })))[0]
  }
  if (!row) {
    if (options.missing === 'noContent') return sink.send(204, {})
    throw new ODataError('NotFound', `${set.name} has no entity with this key`)
  }
  await loadExpansions(shape, [row], run)

  const etag = versionPosition === undefined ? undefined : `W/"${String(row[versionPosition])}"`
  let annotations = ''
  if (format.metadata !== 'none')
    annotations += `"@odata.context":${JSON.stringify(contextUrl(request.serviceRoot, set.name, bound, true))},`
  if (etag !== undefined) annotations += `"@odata.etag":${JSON.stringify(etag)},`
  sink.sendJson(200, writeObject(shape, row, annotations), responseHeaders(format, etag === undefined ? {} : { ETag: etag }))
}
