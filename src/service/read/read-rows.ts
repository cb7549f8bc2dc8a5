// The read pipeline for collections: parse the options (limits first), bind them to the source, plan
// one SELECT, stream its rows through the JSON writer to the client with backpressure. Every readable
// set goes through here — catalogs, documents, table parts, record sets, movements, information
// registers, charts of accounts — and so do collection navigations (`Document_X(…)/Goods`), which only
// add the link to their parent as a condition.
//
// Order: `$orderby` (else the source's order), then the row key as tie-breaker, so the order is total
// and paging deterministic. Server-driven paging (page-size.ts) asks for one row more than the page to
// know whether a next one exists, and the next link carries a keyset token (skip-token.ts).
import { ODataError } from '../../errors.js'
import {
  BoundAggregate,
  BoundProperty,
  type BoundExpression,
  type BoundOrderItem,
  type QueryableSource,
  type Range,
} from '../../odata/bind/index.js'
import type { ResponseSink } from '../../respond/response-sink.js'
import type { RowWriter } from '../../respond/stream-rows.js'
import { QueryCompiler } from '../../sql/query-compiler.js'
import { jsonFormat, responseHeaders } from '../response-format.js'
import type { ServiceContext } from '../service-context.js'
import type { ServiceRequest } from '../service-request.js'
import { bindRead, whereOf } from './bound-read.js'
import { contextUrl } from './context-url.js'
import { expandingReadLimit } from './expanding-read-limit.js'
import { keysetCondition } from './keyset-condition.js'
import { nextLink } from './next-link.js'
import { pageSize } from './page-size.js'
import { type ParsedReadOptions, parseReadOptions } from './parsed-read-options.js'
import { poolRunner } from './query-runner.js'
import { loadExpansions, writeObject } from './row-object.js'
import { streamQuery } from './stream-query.js'
import { buildRowShape } from './row-shape.js'
import { decodeSkipToken, encodeSkipToken } from './skip-token.js'

/** Rows expanded together: one query per expanded navigation for this many rows. */
export const EXPANSION_BATCH_ROWS = 500

export interface RowsTarget {
  /** The source of the addressed set. */
  readonly base: QueryableSource
  /** The entity set named in `@odata.context`. */
  readonly contextName: string
  /** The resource path after the service root, encoded, for `@odata.nextLink`. */
  readonly resourcePath: string
  /** Conditions that make the rows the addressed resource's (a navigation's link to its parent). */
  readonly conditions: (root: Range) => readonly BoundExpression[]
  /** What a paging token must have been issued for, when the context name does not say it all (a function call's parameters). */
  readonly fingerprint?: string
  /** The request's query options, when the caller had to parse them to make `base` (a virtual table's call). */
  readonly options?: ParsedReadOptions
}

/** A first read under `Prefer: odata.track-changes` (docs/change-tracking.md). */
export interface RowsTracking {
  /** The Preference-Applied value, as the client spelled the preference. */
  readonly applied: string
  /** The `$deltatoken` the next links carry, so that the last page knows the position taken before the first. */
  readonly readToken: string
  /** What the last page ends with. */
  readonly deltaLink: string
}

export async function readRows(
  context: ServiceContext,
  request: ServiceRequest,
  sink: ResponseSink,
  target: RowsTarget,
  tracking?: RowsTracking,
): Promise<void> {
  const parsed = target.options ?? parseReadOptions(request, 'collection')
  const format = jsonFormat(request)
  const bound = bindRead(context, request, parsed, target.base, target.conditions)
  const { source, scope } = bound
  const root = scope.root
  const where = whereOf(bound)
  const order = totalOrder(bound.orderBy, source, root)
  const pageable = source.rowKey.length > 0
  const paging = pageable ? pageSize(request, context.settings.current.pageSize) : { size: undefined, applied: undefined }
  const signature = `${target.fingerprint ?? target.contextName}|${request.query.system.get('$apply') ?? ''}|${request.query.system.get('$orderby') ?? ''}`

  const shape = buildRowShape(scope, bound.select, bound.expand, { model: context.model, format, serviceRoot: request.serviceRoot })
  const orderPositions = pageable ? order.map((item) => shape.projection.add(item.expression)) : []
  let keyset: BoundExpression | undefined
  if (parsed.skipToken !== undefined) {
    if (!pageable)
      throw new ODataError('InvalidSkipToken', '$skiptoken does not apply: these rows have no key to page by', { target: '$skiptoken' })
    keyset = keysetCondition(order, decodeSkipToken(parsed.skipToken, signature, order))
  }
  const top = parsed.top
  const pageLimited = paging.size !== undefined && (top === undefined || top > paging.size)
  const run = poolRunner(context.pool)

  let count: string | undefined
  if (parsed.count) {
    const counted = new QueryCompiler().compileSelect({ scope, columns: [{ expression: BoundAggregate.COUNT_ROWS }], where })
    count = String((await run(counted))[0]![0])
  }

  const query = new QueryCompiler().compileSelect({
    scope,
    columns: shape.projection.columns,
    where: keyset === undefined ? where : [...where, keyset],
    orderBy: order,
    ...(pageLimited ? { limit: paging.size! + 1 } : top !== undefined ? { limit: top } : {}),
    // A token already stands past the skipped rows of the first page.
    ...(keyset === undefined && parsed.skip !== undefined ? { offset: parsed.skip } : {}),
  })

  const annotations: string[] = []
  if (format.metadata !== 'none')
    annotations.push(`"@odata.context":${JSON.stringify(contextUrl(request.serviceRoot, target.contextName, bound))}`)
  if (count !== undefined) annotations.push(`"@odata.count":${count}`)
  const head = `{${annotations.map((a) => `${a},`).join('')}"value":[`
  const tail = (written: number, last: readonly unknown[] | undefined, more: boolean) => {
    if (!more || !pageLimited || last === undefined)
      return tracking === undefined ? ']}' : `],"@odata.deltaLink":${JSON.stringify(tracking.deltaLink)}}`
    const token = encodeSkipToken(
      signature,
      orderPositions.map((p) => last[p]),
    )
    const link = nextLink(request, target.resourcePath, token, top === undefined ? undefined : top - written, tracking?.readToken)
    return `],"@odata.nextLink":${JSON.stringify(link)}}`
  }
  const writer: RowWriter =
    shape.expansions.length === 0
      ? { write: (row) => writeObject(shape, row) }
      : {
          write: (row) => writeObject(shape, row),
          prepareBatch: (rows) => loadExpansions(shape, rows, run),
          batchSize: EXPANSION_BATCH_ROWS,
        }
  const stream = () =>
    streamQuery(sink, context.pool, query, {
      writer,
      status: 200,
      headers: responseHeaders(format, preferenceApplied(paging.applied, tracking?.applied)),
      head,
      tail,
      ...(pageLimited ? { rowLimit: paging.size! } : {}),
    })
  await (shape.expansions.length === 0 ? stream() : expandingReadLimit(context.pool)(stream))
}

function preferenceApplied(...applied: (string | undefined)[]): Record<string, string> {
  const given = applied.filter((value) => value !== undefined)
  return given.length === 0 ? {} : { 'Preference-Applied': given.join(', ') }
}

/** The requested order (or the source's own), completed with the row key so that no two rows tie. */
export function totalOrder(requested: readonly BoundOrderItem[], source: QueryableSource, root: Range): BoundOrderItem[] {
  const order: BoundOrderItem[] =
    requested.length > 0
      ? [...requested]
      : source.ordering.map((key) => ({ expression: BoundProperty.create(root, key.column), descending: key.descending }))
  for (const column of source.rowKey) {
    const present = order.some(
      (item) => item.expression.kind === 'BoundProperty' && item.expression.range === root && item.expression.column === column,
    )
    if (!present) order.push({ expression: BoundProperty.create(root, column), descending: false })
  }
  return order
}
