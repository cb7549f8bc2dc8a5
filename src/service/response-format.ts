// The response format a request asks for: JSON only, with the `odata.metadata` level and
// `IEEE754Compatible` taken from `$format` or `Accept` (decisions.md §3). XML or anything else: 406.
import { ODataError } from '../errors.js'
import type { JsonFormatOptions } from '../respond/json-value.js'
import type { ServiceRequest } from './service-request.js'

export interface JsonFormat extends JsonFormatOptions {
  readonly metadata: 'minimal' | 'full' | 'none'
}

/** The six formats there are, made once: every answer asks for its content type by its format. */
const FORMATS = new Map<string, JsonFormat>()
for (const metadata of ['minimal', 'full', 'none'] as const)
  for (const ieee754Compatible of [false, true])
    FORMATS.set(`${metadata} ${ieee754Compatible}`, Object.freeze({ metadata, ieee754Compatible }))
const formatOf = (metadata: JsonFormat['metadata'], ieee754Compatible: boolean) => FORMATS.get(`${metadata} ${ieee754Compatible}`)!
const DEFAULT_FORMAT = formatOf('minimal', false)

/**
 * Formats by the text that asked for them (an `Accept` header or `$format`): a client sends the same one
 * with every request, so it is parsed once. Bounded: texts beyond the bound are parsed each time.
 */
const byAcceptText = new Map<string, JsonFormat>()
const byFormatOption = new Map<string, JsonFormat>()
const MAX_CACHED_TEXTS = 256

function cachedFormat(cache: Map<string, JsonFormat>, text: string, parse: (text: string) => JsonFormat): JsonFormat {
  let format = cache.get(text)
  if (format === undefined) {
    // A text that is refused throws here and is never cached.
    format = parse(text)
    if (cache.size < MAX_CACHED_TEXTS) cache.set(text, format)
  }
  return format
}

function parameters(mediaType: string): Map<string, string> {
  const result = new Map<string, string>()
  for (const part of mediaType.split(';').slice(1)) {
    const [name, value = ''] = part.split('=', 2)
    result.set(name!.trim().toLowerCase(), value.trim().toLowerCase())
  }
  return result
}

function fromMediaType(mediaType: string): JsonFormat {
  const params = parameters(mediaType)
  const metadata = params.get('odata.metadata') ?? params.get('metadata') ?? 'minimal'
  if (metadata !== 'minimal' && metadata !== 'full' && metadata !== 'none')
    throw new ODataError('NotAcceptable', `odata.metadata=${metadata} is not supported`)
  return formatOf(metadata, (params.get('ieee754compatible') ?? 'false') === 'true')
}

function fromFormatOption(format: string): JsonFormat {
  const type = format.split(';')[0]!.trim().toLowerCase()
  if (type !== 'json' && type !== 'application/json')
    throw new ODataError('NotAcceptable', `$format=${format} is not supported; this service answers JSON`, { target: '$format' })
  return fromMediaType(format)
}

export function jsonFormat(request: ServiceRequest): JsonFormat {
  const format = request.query.system.get('$format')
  if (format !== undefined) return cachedFormat(byFormatOption, format, fromFormatOption)
  const accept = request.headers.get('accept')
  if (!accept) return DEFAULT_FORMAT
  return cachedFormat(byAcceptText, accept, fromAccept)
}

function fromAccept(accept: string): JsonFormat {
  // The first acceptable range wins; */* and application/* accept JSON.
  for (const range of accept.split(',')) {
    const type = range.split(';')[0]!.trim().toLowerCase()
    if (type === 'application/json') return fromMediaType(range)
    if (type === '*/*' || type === 'application/*') return DEFAULT_FORMAT
  }
  throw new ODataError(
    'NotAcceptable',
    `None of the media types in Accept (${accept.slice(0, 100)}) can be produced; this service answers application/json`,
  )
}

/** Content types by format: a few formats, asked for by every answer (each created entity of a batch). */
const contentTypes = new WeakMap<JsonFormat, string>()

export function contentType(format: JsonFormat): string {
  let type = contentTypes.get(format)
  if (type === undefined) {
    type = `application/json;odata.metadata=${format.metadata};odata.streaming=true;IEEE754Compatible=${format.ieee754Compatible};charset=utf-8`
    contentTypes.set(format, type)
  }
  return type
}

export function responseHeaders(format: JsonFormat, extra: Readonly<Record<string, string>> = {}): Record<string, string> {
  return { 'Content-Type': contentType(format), ...extra }
}
