// What a write handler returns instead of writing to the response: the caller sends it after the
// transaction commits (a response must never promise what a rollback takes back), a deadlock retry can
// run the handler again, `Repeatability-Request-ID` stores it, and `$batch` collects it.
import type { PropertyModel, EntitySetModel } from '../../model/model.js'
import { entityWriterFor } from '../../respond/entity-writer.js'
import type { ResponseSink } from '../../respond/response-sink.js'
import { contentType, type JsonFormat } from '../response-format.js'
import type { ServiceRequest } from '../service-request.js'
import { entityAnnotations } from '../read/context-url.js'

export interface WriteResult {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** JSON text; absent for 204. */
  readonly body?: string
}

/** Rows of a collection-valued navigation written with the entity (table parts, a record set), as if `$expand`ed. */
export interface ExpandedRows {
  readonly name: string
  readonly properties: readonly PropertyModel[]
  readonly rows: readonly (readonly unknown[])[]
}

export function sendWriteResult(sink: ResponseSink, result: WriteResult): void {
  sink.send(result.status, result.headers, result.body)
}

/** `Prefer: return=minimal` (OData 4.01 §8.2.8.7): a write answers 204 without the entity. */
export function prefersMinimal(request: ServiceRequest): boolean {
  const prefer = request.headers.get('prefer')
  return prefer?.split(',').some((p) => p.trim().toLowerCase() === 'return=minimal') === true
}

export interface EntityResultOptions {
  readonly status: 200 | 201
  readonly set: EntitySetModel
  /** The entity's stored values in the order of `properties`. */
  readonly properties: readonly PropertyModel[]
  readonly row: readonly unknown[]
  readonly etag?: string
  /** Absolute canonical URL; sent as Location on 201 (and OData-EntityId on a minimal answer). */
  readonly location?: string
  readonly expanded?: readonly ExpandedRows[]
}

/** The entity after a write: 200/201 with the entity (navigations written with it included), or 204 on `return=minimal`. */
export function entityResult(request: ServiceRequest, format: JsonFormat, options: EntityResultOptions): WriteResult {
  const minimal = prefersMinimal(request)
  // Made in their final order (Content-Type, ETag, Location, …) at once rather than copied into a second object.
  const headers: Record<string, string> = minimal ? {} : { 'Content-Type': contentType(format) }
  if (options.etag !== undefined) headers.ETag = options.etag
  if (options.location !== undefined && options.status === 201) headers.Location = options.location
  if (minimal) {
    if (options.location !== undefined) headers['OData-EntityId'] = options.location
    headers['Preference-Applied'] = 'return=minimal'
    return { status: 204, headers }
  }
  const annotations = entityAnnotations(options.set, request.serviceRoot, options.etag)
  let body = entityWriterFor(options.properties, format).write(options.row, annotations)
  if (options.properties.length === 0) body = body.replace(/,}$/, '}')
  if (options.expanded && options.expanded.length > 0) {
    let navigations = ''
    for (const expanded of options.expanded) {
      const writer = entityWriterFor(expanded.properties, format)
      let rows = ''
      for (let i = 0; i < expanded.rows.length; i++) rows += (i === 0 ? '' : ',') + writer.write(expanded.rows[i]!)
      navigations += `,${JSON.stringify(expanded.name)}:[${rows}]`
    }
    body = `${body.slice(0, -1) + navigations}}`
  }
  return { status: options.status, headers, body }
}

/** 204 No Content, with the new ETag when there is one (Post, Unpost, DELETE). */
export function noContent(etag?: string): WriteResult {
  return { status: 204, headers: etag === undefined ? {} : { ETag: etag } }
}
