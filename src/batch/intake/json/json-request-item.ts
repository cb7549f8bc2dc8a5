// One item of a JSON batch's `requests` array, checked and turned into an operation
// (OData JSON Format 4.01 §19.1; service.md §2.3).
//
// `id`, `method` and `url` are required strings; `atomicityGroup` a string, `dependsOn` an array of
// strings, `headers` an object of strings, all optional; `body` any JSON (`null` means none). Other
// members (`if`, annotations) are ignored. Whether ids are unique, groups adjacent… is for the caller
// and the planner.

import { type BatchOperation, type JsonValue, type OperationHeaders, addHeader } from '../batch-document.js'
import { hasNoControlCharacters, isToken } from '../http-chars.js'
import { batchMalformed } from '../intake-errors.js'

type JsonObject = { readonly [name: string]: JsonValue }

function isObject(value: unknown): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

/** A member the item itself has: never one found on a prototype. */
function ownMember(item: JsonObject, name: string): JsonValue | undefined {
  return Object.hasOwn(item, name) ? item[name] : undefined
}

/**
 * @param item the parsed item.
 * @param index the operation's 0-based position in the batch.
 */
export function operationFromJsonItem(item: unknown, index: number): BatchOperation {
  const where = `Request ${index + 1} of the JSON batch`
  if (!isObject(item)) throw batchMalformed(`${where} is not an object.`)

  const id = requiredString(item, 'id', where)
  const described = `${where} (id "${id}")`
  const method = requiredString(item, 'method', described)
  if (!isToken(method)) throw batchMalformed(`${described}: "${method}" is not an HTTP method.`)
  const url = requiredString(item, 'url', described)
  // Spaces may stand in a JSON batch URL (the standard's own examples have them); line breaks may not.
  if (!hasNoControlCharacters(url)) throw batchMalformed(`${described}: the url holds a control character.`)

  const atomicityGroup = optionalString(item, 'atomicityGroup', described)
  const body = ownMember(item, 'body')
  return {
    kind: 'operation',
    index,
    method: method.toUpperCase(),
    url,
    headers: headersOf(ownMember(item, 'headers'), described),
    body: body === undefined || body === null ? undefined : { kind: 'json', value: body },
    id,
    atomicityGroup,
    dependsOn: dependenciesOf(ownMember(item, 'dependsOn'), described),
  }
}

function requiredString(item: JsonObject, name: string, where: string): string {
  const value = ownMember(item, name)
  if (value === undefined) throw batchMalformed(`${where} has no "${name}".`)
  if (typeof value !== 'string' || value === '') throw batchMalformed(`${where}: "${name}" must be a non-empty string.`)
  return value
}

function optionalString(item: JsonObject, name: string, where: string): string | undefined {
  const value = ownMember(item, name)
  if (value === undefined) return undefined
  if (typeof value !== 'string' || value === '') throw batchMalformed(`${where}: "${name}" must be a non-empty string.`)
  return value
}

function dependenciesOf(value: JsonValue | undefined, where: string): readonly string[] {
  if (value === undefined) return NO_DEPENDENCIES
  if (!Array.isArray(value) || !value.every((dependency) => typeof dependency === 'string')) {
    throw batchMalformed(`${where}: "dependsOn" must be an array of strings.`)
  }
  return Object.freeze(value.slice() as string[])
}

/** Lower-cased names (JSON Format §19.1 asks clients for lower case; be kind to those who forget). */
function headersOf(value: JsonValue | undefined, where: string): OperationHeaders {
  const headers = new Map<string, string>()
  if (value === undefined || value === null) return headers
  if (!isObject(value)) throw batchMalformed(`${where}: "headers" must be an object.`)
  for (const name of Object.keys(value)) {
    const headerValue = value[name]
    if (!isToken(name)) throw batchMalformed(`${where}: "${name}" is not a header name.`)
    if (typeof headerValue !== 'string') throw batchMalformed(`${where}: the header "${name}" must be a string.`)
    // A line break in a value could split a header line when it is echoed (Content-ID, Prefer).
    if (!hasNoControlCharacters(headerValue)) throw batchMalformed(`${where}: the header "${name}" holds a control character.`)
    addHeader(headers, name.toLowerCase(), headerValue)
  }
  return headers
}

const NO_DEPENDENCIES: readonly string[] = Object.freeze([])
