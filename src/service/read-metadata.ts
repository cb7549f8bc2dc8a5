// GET `$metadata`: CSDL XML by default and for `$format=xml` / `Accept: application/xml`, CSDL JSON for
// `$format=json` / `Accept: application/json` (OData 4.01 §11.1.2; both documents are one description,
// src/model/csdl.ts). `$format` is the only query option that applies: any other system query option is
// `400`, as it is on a single entity (parsed-read-options.ts) — the document cannot be filtered or shaped.
import { ODataError } from '../errors.js'
import { buildMetadataJson } from '../model/csdl.js'
import type { ServiceModel } from '../model/model.js'
import type { ResponseSink } from '../respond/response-sink.js'
import type { ServiceContext } from './service-context.js'
import type { ServiceRequest } from './service-request.js'

const XML_TYPE = 'application/xml;charset=utf-8'
const JSON_TYPE = 'application/json;charset=utf-8'

const jsonDocuments = new WeakMap<ServiceModel, string>()

/** CSDL JSON, built on first use and kept: the model never changes while the service runs. */
function metadataJson(model: ServiceModel): string {
  let document = jsonDocuments.get(model)
  if (document === undefined) {
    document = buildMetadataJson(model)
    jsonDocuments.set(model, document)
  }
  return document
}

export function readMetadata(context: ServiceContext, request: ServiceRequest, sink: ResponseSink): void {
  for (const option of request.query.system.keys()) {
    if (option !== '$format')
      throw new ODataError('InvalidQueryOption', `${option} does not apply to $metadata; only $format does`, { target: option })
  }
  if (metadataFormat(request) === 'json') sink.send(200, { 'Content-Type': JSON_TYPE }, metadataJson(context.model))
  else sink.send(200, { 'Content-Type': XML_TYPE }, context.metadataXml)
}

function metadataFormat(request: ServiceRequest): 'xml' | 'json' {
  const format = request.query.system.get('$format')
  if (format !== undefined) {
    const type = format.split(';')[0]!.trim().toLowerCase()
    if (type === 'xml' || type === 'application/xml') return 'xml'
    if (type === 'json' || type === 'application/json') return 'json'
    throw new ODataError('NotAcceptable', `$format=${format} is not available for $metadata; use xml or json`, { target: '$format' })
  }
  const accept = request.headers.get('accept')
  if (!accept) return 'xml'
  // The first acceptable range wins; a wildcard takes the default, XML.
  for (const range of accept.split(',')) {
    const type = range.split(';')[0]!.trim().toLowerCase()
    if (type === 'application/json') return 'json'
    if (type === 'application/xml' || type === 'text/xml' || type === '*/*' || type === 'application/*') return 'xml'
  }
  throw new ODataError(
    'NotAcceptable',
    `None of the media types in Accept (${accept.slice(0, 100)}) can be produced; $metadata is application/xml or application/json`,
  )
}
