// GET of a delta link: what changed in a set since the link's position (OData JSON 4.01 delta format,
// docs/change-tracking.md). A page is read from the change record, not from the set:
//   1. the position the delta stops at: the link's own while it is paged, else the low-water mark now
//      (with the purge position, in one statement);
//   2. a page of keys after the last one shown (`changedPage`: the notes of the stretch expanded, each row
//      once, at its last occurrence; the first page of a stretch cuts a long range after a bound of keys);
//   3. those rows as they are now, through the read pipeline with the link's `$filter` and `$select`
//      plus "key is one of the page's", streamed like any read, each with its `@id`;
//   4. the page's keys that came back as no row: `@removed`, reason `deleted` when the row is gone,
//      `changed` when it is there but no longer passes the `$filter`;
//   5. `@odata.nextLink` while keys remain in the stretch or stretches remain before the mark, else
//      `@odata.deltaLink` at the mark.
// So a delta costs what reading its changed rows by key costs, whatever the size of the set.
import { ODataError } from '../../errors.js'
import type { EntitySetModel } from '../../model/model.js'
import { BoundProperty, QueryScope, type QueryableSource } from '../../odata/bind/index.js'
import { canonicalKey } from '../../respond/entity-writer.js'
import { createMembersWriter, outputField } from '../../respond/object-writer.js'
import type { ResponseSink } from '../../respond/response-sink.js'
import { entitySetSources } from '../../sql/entity-set-sources.js'
import { QueryCompiler } from '../../sql/query-compiler.js'
import { changedPage, changePositions, purgedThrough, stretchKeys } from '../../store/change-feed.js'
import { jsonFormat, responseHeaders } from '../response-format.js'
import type { ServiceContext } from '../service-context.js'
import type { ServiceRequest } from '../service-request.js'
import { bindRead, whereOf } from './bound-read.js'
import { entityKeyText, keyMatch } from './change-tracking.js'
import { contextUrl } from './context-url.js'
import { encodeDeltaToken, type DeltaPosition } from './delta-token.js'
import { expandingReadLimit } from './expanding-read-limit.js'
import { deltaLink } from './next-link.js'
import { pageSize } from './page-size.js'
import { parseReadOptions } from './parsed-read-options.js'
import { poolRunner, type QueryRunner } from './query-runner.js'
import { EXPANSION_BATCH_ROWS, totalOrder } from './read-rows.js'
import { loadExpansions, writeObject } from './row-object.js'
import { streamQuery } from './stream-query.js'
import { buildRowShape } from './row-shape.js'

/** Options a delta takes: those its token is bound to, the format, and the token itself. */
const DELTA_OPTIONS = new Set(['$filter', '$select', '$format', '$deltatoken'])
/** Changed rows per page when neither the client nor the `pageSize` setting sets one: a delta is always paged. */
const DEFAULT_DELTA_PAGE = 1000

export async function readDelta(
  context: ServiceContext,
  request: ServiceRequest,
  sink: ResponseSink,
  set: EntitySetModel,
  position: DeltaPosition,
): Promise<void> {
  for (const option of request.query.system.keys())
    if (!DELTA_OPTIONS.has(option))
      throw new ODataError('InvalidDeltaLink', `${option} does not apply to a delta; follow the delta link as given`, { target: option })
  const { pool, model } = context
  // The first page of a delta takes its mark and the purge position in one round trip; a later page carries
  // its stretch's end and the mark, and asks only for the purge position.
  const positions = position.upTo === undefined && position.mark === undefined ? await changePositions(pool) : undefined
  if (BigInt(position.from) < BigInt(positions?.purgedThrough ?? (await purgedThrough(pool))))
    throw new ODataError(
      'DeltaLinkGone',
      'The delta link has expired: the changes since its position are no longer kept; read the set again with Prefer: odata.track-changes',
      { target: '$deltatoken' },
    )
  const mark = position.mark ?? position.upTo ?? positions!.mark
  const paging = pageSize(request, context.settings.current.pageSize)
  const size = paging.size ?? DEFAULT_DELTA_PAGE
  // The first page of a stretch cuts the range after `stretchKeys` keys (at a note boundary); its later
  // pages read up to that cut (docs/change-tracking.md, "A delta costs what its changes cost").
  const read =
    position.upTo === undefined
      ? await changedPage(pool, set.table, position.from, mark, size + 1, stretchKeys(size))
      : await changedPage(pool, set.table, position.after ?? position.from, position.upTo, size + 1)
  const upTo = read.upTo
  const notes = read.keys
  const morePages = notes.length > size
  const moreStretches = !morePages && BigInt(upTo) < BigInt(mark)
  const more = morePages || moreStretches
  const page = morePages ? notes.slice(0, size) : notes
  // Each key's values as its note holds them, as text, in the set's key order.
  const keys = page.map((note) => note.values as string[])

  const parsed = parseReadOptions(request, 'collection')
  const format = jsonFormat(request)
  const base = entitySetSources(model)(set.name)
  const keyColumns = set.key.map((k) => base.columnByName.get(k.name)!)
  const bound = bindRead(context, request, parsed, base, (root) => [keyMatch(root, keyColumns, keys)])
  const { scope } = bound
  const root = scope.root
  const shape = buildRowShape(scope, bound.select, bound.expand, { model, format, serviceRoot: request.serviceRoot })
  const keyPositions = keyColumns.map((column) => shape.projection.addColumn(root, column))
  const query = new QueryCompiler().compileSelect({
    scope,
    columns: shape.projection.columns,
    where: whereOf(bound),
    orderBy: totalOrder([], bound.source, root),
  })
  const run = poolRunner(pool)
  // With a $filter, a key that comes back as no row may still be in the set: it left the filtered rows.
  const present = parsed.filter === null ? new Set<string>() : await presentKeys(run, set, base, keys)

  const idPrefix = `${request.serviceRoot}${encodeURIComponent(set.name)}`
  const keyIndex = new Map(set.key.map((property, i) => [property, i]))
  const idOf = (values: readonly unknown[]) => idPrefix + canonicalKey(set, (property) => values[keyIndex.get(property)!])
  const keyMembers = createMembersWriter(set.key.map((property, i) => outputField(property.name, i, property, format)))
  const shown = new Set<string>()

  const beyond = BigInt(upTo) < BigInt(mark) ? { mark } : {}
  const nextPosition: DeltaPosition = morePages
    ? { phase: 'delta', from: position.from, upTo, after: page[page.length - 1]!.position, ...beyond }
    : moreStretches
      ? { phase: 'delta', from: upTo, mark }
      : { phase: 'delta', from: upTo }
  const link = deltaLink(request, encodeURIComponent(set.name), await encodeDeltaToken(pool, request, set, nextPosition))
  const head = `{${format.metadata === 'none' ? '' : `"@odata.context":${JSON.stringify(`${contextUrl(request.serviceRoot, set.name, bound)}/$delta`)},`}"value":[`
  const tail = (written: number) => {
    let text = ''
    for (const key of keys) {
      const keyText = entityKeyText(set, key)
      if (shown.has(keyText)) continue
      const reason = present.has(keyText) ? 'changed' : 'deleted'
      text += `${written > 0 || text !== '' ? ',' : ''}{"@removed":{"reason":"${reason}"},"@id":${JSON.stringify(idOf(key))},${keyMembers(key)}}`
    }
    return `${text}],${more ? '"@odata.nextLink"' : '"@odata.deltaLink"'}:${JSON.stringify(link)}}`
  }
  const write = (row: readonly unknown[]) => {
    const values = keyPositions.map((p) => row[p])
    shown.add(entityKeyText(set, values))
    return writeObject(shape, row, `"@id":${JSON.stringify(idOf(values))},`)
  }
  const stream = () =>
    streamQuery(sink, pool, query, {
      writer:
        shape.expansions.length === 0
          ? { write }
          : { write, prepareBatch: (rows) => loadExpansions(shape, rows, run), batchSize: EXPANSION_BATCH_ROWS },
      status: 200,
      headers: responseHeaders(format, paging.applied === undefined ? {} : { 'Preference-Applied': paging.applied }),
      head,
      tail,
    })
  await (shape.expansions.length === 0 ? stream() : expandingReadLimit(pool)(stream))
}

/** Which of the keys name a row of the set now, whatever the filter. */
async function presentKeys(run: QueryRunner, set: EntitySetModel, base: QueryableSource, keys: readonly string[][]): Promise<Set<string>> {
  if (keys.length === 0) return new Set()
  const scope = QueryScope.over(base)
  const keyColumns = set.key.map((k) => base.columnByName.get(k.name)!)
  const query = new QueryCompiler().compileSelect({
    scope,
    columns: keyColumns.map((column) => ({ expression: BoundProperty.create(scope.root, column) })),
    where: [keyMatch(scope.root, keyColumns, keys)],
  })
  const rows = await run(query)
  return new Set(rows.map((row) => entityKeyText(set, row)))
}
