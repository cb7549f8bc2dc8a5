// A write's JSON body, read against the model before any SQL runs (decisions.md §5):
// - the body must be a JSON object (`400 InvalidBody` otherwise, or for a Content-Type that is not JSON: 415);
// - each writable property present is converted by body-values.ts (`400 InvalidValue`, target = its name);
// - a reference `X` may come as `X_Key` (a GUID, null = empty reference) or as `X@odata.bind` with an
//   entity address of the referenced set (`Catalog_Y(guid'…')`, `Catalog_Y(…)`, absolute or relative;
//   in a `$batch`, `$1` is substituted before this code sees it);
// - names the type does not have are `400 UnknownProperty` (body-names.ts; ignored in the configuration's
//   lenient mode), annotations (`@odata.etag`, `X@odata.type`, …) are ignored.
// References are not checked for existence: as in the reference system, a reference to an object that
// does not exist (yet, or any more) is a legal value, and checking would cost a query per reference.
import { isUtf8 } from 'node:buffer'
import { hasDotSegment } from '../../odata/dot-segment.js'
import { repeatedMemberName } from '../../odata/repeated-member-name.js'
import { ODataError } from '../../errors.js'
import type { EntitySetModel, PropertyModel, ServiceModel } from '../../model/model.js'
import { decodeUrlComponent, parseKeyPredicate } from '../../odata/resource-path.js'
import type { ServiceRequest } from '../service-request.js'
import { checkBodyNames } from './body-names.js'
import { invalidValue, storedValue } from './body-values.js'

export type JsonObject = Record<string, unknown>

const hasOwn = (object: JsonObject, name: string) => Object.hasOwn(object, name)

function isJsonObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/**
 * The body as a JSON object. `required: false` lets an absent or empty body through as undefined
 * (actions take an optional body).
 */
export function parseJsonBody(request: ServiceRequest, required: boolean, model?: ServiceModel): JsonObject | undefined {
  const body = parseJson(request, required)
  // With the model, the body of a write to a set or an entity is checked name by name (body-names.ts).
  const path = request.path
  if (body !== undefined && model !== undefined && (path.kind === 'collection' || path.kind === 'entity'))
    checkBodyNames(model, request, path.set, body)
  return body
}

function parseJson(request: ServiceRequest, required: boolean): JsonObject | undefined {
  const contentType = request.headers.get('content-type')
  if (request.json !== undefined) {
    // Parsed by the batch intake from UTF-8 JSON text, never empty: `body` would be its JSON text and
    // parse to it, so it is not made (reading `body` makes it).
    if (contentType !== undefined && !/^\s*application\/json\s*(;|$)/i.test(contentType)) {
      throw new ODataError('UnsupportedMediaType', `The body must be application/json, not ${contentType.slice(0, 100)}`)
    }
    if (!isJsonObject(request.json)) throw new ODataError('InvalidBody', 'The body must be a JSON object')
    return request.json
  }
  const body = request.body
  if (body === undefined || body.length === 0) {
    if (required) throw new ODataError('InvalidBody', 'The request needs a JSON object as its body')
    return undefined
  }
  if (contentType !== undefined && !/^\s*application\/json\s*(;|$)/i.test(contentType)) {
    throw new ODataError('UnsupportedMediaType', `The body must be application/json, not ${contentType.slice(0, 100)}`)
  }
  // A UTF-8 byte order mark is allowed before JSON text (RFC 8259 §8.1 lets parsers ignore it).
  const start = body.length >= 3 && body[0] === 0xef && body[1] === 0xbb && body[2] === 0xbf ? 3 : 0
  // JSON text is UTF-8 (RFC 8259 §8.1): bytes that are not would be decoded as U+FFFD and stored so.
  if (!isUtf8(body.subarray(start))) throw new ODataError('InvalidBody', 'The body is not valid UTF-8')
  let parsed: unknown
  try {
    parsed = JSON.parse(body.toString('utf8', start))
  } catch (error) {
    throw new ODataError('InvalidBody', `The body is not valid JSON: ${(error as Error).message}`)
  }
  if (!isJsonObject(parsed)) throw new ODataError('InvalidBody', 'The body must be a JSON object')
  // JSON.parse keeps the last of two members of one name; the body would be written as half of what it says.
  const repeated = repeatedMemberName(body)
  if (repeated !== undefined) throw new ODataError('InvalidBody', `The body has the member ${JSON.stringify(repeated)} twice in one object`)
  return parsed
}

/**
 * `Catalog_Products(guid'…')`, `Catalog_Products(…)`, `/api/v4/Catalog_Products(…)`, `http://host/…/Catalog_Products(…)`
 * → the referenced Ref_Key, checked to address an entity of `targetSetName`.
 */
export function bindReference(model: ServiceModel, targetSetName: string, value: unknown, target: string): string {
  if (typeof value !== 'string')
    throw invalidValue(target, `expected the address of an entity of ${targetSetName}, got ${value === null ? 'null' : typeof value}`)
  if (hasDotSegment(value)) throw invalidValue(target, 'has a dot segment (. or ..); address the entity directly')
  let text: string
  try {
    text = decodeUrlComponent(value.trim())
  } catch {
    throw invalidValue(target, 'has a malformed percent-encoding')
  }
  const match = /(?:^|\/)([^/()]+)\(([^()]*)\)$/.exec(text)
  if (!match)
    throw invalidValue(
      target,
      `expected the address of an entity of ${targetSetName} (${targetSetName}(guid'…')), got ${JSON.stringify(value.slice(0, 80))}`,
    )
  const [, setName, keyText] = match
  if (setName !== targetSetName) throw invalidValue(target, `must address an entity of ${targetSetName}, not ${setName}`)
  try {
    return String(parseKeyPredicate(model.entitySetByName.get(targetSetName)!, keyText!).get('Ref_Key'))
  } catch (error) {
    throw invalidValue(target, error instanceof ODataError ? error.message : 'has a malformed key')
  }
}

/**
 * The stored values of the `writable` properties the body gives, by property name. `prefix` goes before
 * each name in error targets (`Goods/0/`).
 */
export function readProperties(
  model: ServiceModel,
  body: JsonObject,
  writable: readonly PropertyModel[],
  prefix = '',
): Map<string, unknown> {
  const values = new Map<string, unknown>()
  for (const property of writable) {
    const target = prefix + property.name
    const given = hasOwn(body, property.name)
    let value = given ? storedValue(property, body[property.name], target) : undefined
    if (property.reference) {
      const bindName = `${property.reference.navigation}@odata.bind`
      if (hasOwn(body, bindName)) {
        const raw = body[bindName]
        const bound =
          raw === null
            ? storedValue(property, null, prefix + bindName)
            : bindReference(model, property.reference.targetSet, raw, prefix + bindName)
        if (given && bound !== value) throw invalidValue(prefix + bindName, `names another entity than ${property.name}`)
        value = bound
      }
    }
    if (value !== undefined) values.set(property.name, value)
  }
  return values
}

/** A table part's rows as given in the owner's body (`"Goods":[{…}, …]`), each row's values by property name. */
export function readTableParts(model: ServiceModel, documentSet: EntitySetModel, body: JsonObject): Map<string, Map<string, unknown>[]> {
  const parts = new Map<string, Map<string, unknown>[]>()
  const source = documentSet.source
  if (source.type !== 'document') return parts
  for (const name of source.tableParts) {
    if (!hasOwn(body, name)) continue
    const rows = body[name]
    if (!Array.isArray(rows)) throw invalidValue(name, 'expected an array of table-part rows')
    const rowSet = model.entitySetByName.get(`${documentSet.name}_${name}`)!
    const writable = tablePartWritable(rowSet)
    parts.set(
      name,
      rows.map((row, index) => {
        if (!isJsonObject(row)) throw invalidValue(`${name}/${index}`, 'expected an object')
        return readProperties(model, row, writable, `${name}/${index}/`)
      }),
    )
  }
  return parts
}

const writableCache = new WeakMap<EntitySetModel, readonly PropertyModel[]>()

function cachedWritable(set: EntitySetModel, excluded: ReadonlySet<string>): readonly PropertyModel[] {
  let writable = writableCache.get(set)
  if (!writable) {
    writable = set.properties.filter((p) => !excluded.has(p.name))
    writableCache.set(set, writable)
  }
  return writable
}

/** Maintained by the service, never taken from a body: the key (from the URL or made), versions, posting state. */
const OBJECT_MAINTAINED = new Set(['Ref_Key', 'DataVersion', 'Posted'])
/** Table-part rows belong to their owner (Ref_Key) and are numbered by their place in the array. */
const ROW_MAINTAINED = new Set(['Ref_Key', 'LineNumber'])
/** Movement rows take Recorder and Recorder_Type from the record set's key, LineNumber from the array order. */
const MOVEMENT_MAINTAINED = new Set(['Recorder', 'Recorder_Type', 'LineNumber'])

export const objectWritable = (set: EntitySetModel) => cachedWritable(set, OBJECT_MAINTAINED)
export const tablePartWritable = (set: EntitySetModel) => cachedWritable(set, ROW_MAINTAINED)
export const movementWritable = (set: EntitySetModel) => cachedWritable(set, MOVEMENT_MAINTAINED)
