// The resource path after the service root (`Catalog_Products(guid'…')/…`), resolved against the model.
//
// The path arrives percent-encoded; it is decoded as UTF-8 once (Cyrillic set names come encoded), then
// split into segments by a scanner that knows quoted strings, so a `/` or `)` inside a key string does not
// cut a segment. Unknown names in the path are `404` with the name in the message (decisions.md §2).
import { ODataError } from '../errors.js'
import type { ActionModel, EntitySetModel, NavigationModel, PropertyModel, ServiceModel } from '../model/model.js'
import type { VirtualTableSignature } from '../model/virtual-tables.js'
import { isGuid, parseLiteral, type LiteralValue } from './literal.js'

/** Key values by property name, converted to stored form. */
export type KeyValues = ReadonlyMap<string, LiteralValue>

export type ResourcePath =
  | { readonly kind: 'serviceDocument' }
  | { readonly kind: 'metadata' }
  | { readonly kind: 'batch' }
  | { readonly kind: 'collection'; readonly set: EntitySetModel; readonly count: boolean }
  | { readonly kind: 'entity'; readonly set: EntitySetModel; readonly key: KeyValues }
  | {
      readonly kind: 'navigation'
      readonly set: EntitySetModel
      readonly key: KeyValues
      readonly navigation: NavigationModel
      readonly count: boolean
    }
  | { readonly kind: 'action'; readonly set: EntitySetModel; readonly key: KeyValues; readonly action: ActionModel }
  | {
      readonly kind: 'function'
      readonly set: EntitySetModel
      readonly function: VirtualTableSignature
      readonly parameters: ReadonlyMap<string, string>
      readonly count: boolean
    }

interface RawSegment {
  readonly name: string
  /** The text between the parentheses, undefined when the segment has none. */
  readonly parenthesized: string | undefined
}

/** Decodes percent-escapes as UTF-8; a malformed escape is `400 InvalidUrl`. */
export function decodeUrlComponent(text: string, target = 'URL'): string {
  if (!text.includes('%')) return text
  try {
    return decodeURIComponent(text)
  } catch {
    throw new ODataError('InvalidUrl', `${target} has a malformed percent-encoding`)
  }
}

/** Splits a decoded path into segments, keeping quoted strings and parentheses intact. */
export function splitSegments(path: string): RawSegment[] {
  const segments: RawSegment[] = []
  let i = 0
  while (i < path.length) {
    const start = i
    while (i < path.length && path[i] !== '/' && path[i] !== '(') i++
    const name = path.slice(start, i)
    let parenthesized: string | undefined
    if (path[i] === '(') {
      const open = ++i
      let inString = false
      for (; i < path.length; i++) {
        const c = path[i]
        if (c === "'") {
          // '' inside a string is an escaped quote; the scanner simply toggles twice.
          inString = !inString
        } else if (c === ')' && !inString) break
      }
      if (i >= path.length) throw new ODataError('InvalidUrl', `The segment ${JSON.stringify(name)} has no closing parenthesis`)
      parenthesized = path.slice(open, i)
      i++
    }
    if (i < path.length && path[i] !== '/') throw new ODataError('InvalidUrl', `Unexpected text after segment ${JSON.stringify(name)}`)
    if (name === '' && parenthesized === undefined) {
      // An empty segment: a doubled or trailing slash.
      if (i < path.length - 1 || segments.length === 0) throw new ODataError('InvalidUrl', 'The path has an empty segment')
    } else {
      segments.push({ name, parenthesized })
    }
    i++ // skip '/'
  }
  return segments
}

/** Splits `a=1,b='x,y'` at top-level commas, respecting quotes. */
export function splitTopLevel(text: string, separator = ','): string[] {
  const parts: string[] = []
  let inString = false
  let depth = 0
  let start = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === "'") inString = !inString
    else if (!inString && c === '(') depth++
    else if (!inString && c === ')') depth--
    else if (!inString && depth === 0 && c === separator) {
      parts.push(text.slice(start, i))
      start = i + 1
    }
  }
  parts.push(text.slice(start))
  return parts
}

/** `name=value` → [name, value]; a part without `=` gives [undefined, part]. */
function splitAssignment(part: string): [string | undefined, string] {
  const trimmed = part.trim()
  const match = /^([\p{L}_][\p{L}\p{N}_]*)\s*=\s*(.*)$/su.exec(trimmed)
  return match ? [match[1]!, match[2]!] : [undefined, trimmed]
}

/** Key predicates of decisions.md §2: `(guid'…')`, `(…guid…)`, `(Ref_Key=guid'…')`, `(A=…,B=…)`. */
export function parseKeyPredicate(set: EntitySetModel, text: string): KeyValues {
  const parts = splitTopLevel(text)
  const values = new Map<string, LiteralValue>()
  if (parts.length === 1 && set.key.length === 1) {
    const [name, value] = splitAssignment(parts[0]!)
    const property = set.key[0]!
    if (name !== undefined && name !== property.name)
      throw new ODataError('InvalidKey', `${name} is not the key of ${set.name}; the key is ${property.name}`)
    values.set(property.name, keyValue(property, value, set))
    return values
  }
  for (const part of parts) {
    const [name, value] = splitAssignment(part)
    if (name === undefined)
      throw new ODataError('InvalidKey', `${set.name} has a compound key (${set.key.map((k) => k.name).join(', ')}); name each part`)
    const property = set.key.find((k) => k.name === name)
    if (!property)
      throw new ODataError('InvalidKey', `${name} is not part of the key of ${set.name} (${set.key.map((k) => k.name).join(', ')})`)
    if (values.has(name)) throw new ODataError('InvalidKey', `${name} is given twice in the key`)
    values.set(name, keyValue(property, value, set))
  }
  const missing = set.key.filter((k) => !values.has(k.name))
  if (missing.length > 0) throw new ODataError('InvalidKey', `The key of ${set.name} needs ${missing.map((k) => k.name).join(', ')}`)
  return values
}

function keyValue(property: PropertyModel, text: string, set: EntitySetModel): LiteralValue {
  const value = parseLiteral(text.trim(), property.edmType, `${set.name}(${property.name})`)
  if (value === null) throw new ODataError('InvalidKey', `The key ${property.name} cannot be null`)
  if (property.storage.kind === 'enum' && !property.storage.values.includes(String(value))) {
    throw new ODataError('InvalidKey', `${JSON.stringify(value)} is not a valid ${property.name} of ${set.name}`)
  }
  return value
}

/** Function parameters in parentheses: `Period=datetime'…',Condition='…'`. Unnamed or repeated names are refused. */
export function parseFunctionParameters(text: string | undefined): Map<string, string> {
  const parameters = new Map<string, string>()
  if (text === undefined || text.trim() === '') return parameters
  for (const part of splitTopLevel(text)) {
    const [name, value] = splitAssignment(part)
    if (name === undefined)
      throw new ODataError(
        'InvalidParameter',
        `Function parameters must be named (Name=value): ${JSON.stringify(part.trim().slice(0, 60))}`,
      )
    if (parameters.has(name)) throw new ODataError('InvalidParameter', `The parameter ${name} is given twice`, { target: name })
    parameters.set(name, value)
  }
  return parameters
}

const notFound = (what: string) => new ODataError('NotFound', what)

/** `StandardODATA.Balance` and `Balance` name the same bound operation (service.md §4.2). */
function operationName(model: ServiceModel, name: string): string {
  const prefix = `${model.namespace}.`
  return name.startsWith(prefix) ? name.slice(prefix.length) : name
}

/**
 * The forms the reference system's own clients send (1C:Enterprise's `standard.odata` documentation uses
 * them; a client written against it sends nothing else), accepted on the reference flavour only: the token
 * flavour keeps OData's grammar.
 * - a bound action with empty parentheses: `Document_X(guid'…')/Post()`;
 * - a virtual table without parentheses, its parameters in the query string: `…/SliceLast?Period=…`.
 */
export interface PathForms {
  readonly referenceClientForms?: boolean
}

/**
 * Resolves the decoded path after the service root. `rawPath` is still percent-encoded; `''` is the
 * service document.
 */
export function resolveResourcePath(model: ServiceModel, rawPath: string, forms: PathForms = {}): ResourcePath {
  const path = decodeUrlComponent(rawPath, 'The resource path')
  if (path === '' || path === '/') return { kind: 'serviceDocument' }
  const segments = splitSegments(path.startsWith('/') ? path.slice(1) : path)
  const [first, ...rest] = segments
  if (!first) return { kind: 'serviceDocument' }
  if (first.name === '$metadata' && first.parenthesized === undefined && rest.length === 0) return { kind: 'metadata' }
  if (first.name === '$batch' && first.parenthesized === undefined && rest.length === 0) return { kind: 'batch' }
  const set = model.entitySetByName.get(first.name)
  if (!set) throw notFound(`No entity set named ${JSON.stringify(first.name)}`)

  if (first.parenthesized === undefined) {
    if (rest.length === 0) return { kind: 'collection', set, count: false }
    const [second, ...tail] = rest
    if (second!.name === '$count' && second!.parenthesized === undefined && tail.length === 0)
      return { kind: 'collection', set, count: true }
    const fn = set.functions.find((f) => f.name === operationName(model, second!.name))
    if (!fn) throw notFound(`${set.name} has no function or segment named ${JSON.stringify(second!.name)}`)
    if (second!.parenthesized === undefined && !forms.referenceClientForms)
      throw new ODataError('InvalidUrl', `Call the function as ${fn.name}(…) with parentheses`)
    const count = tail.length === 1 && tail[0]!.name === '$count' && tail[0]!.parenthesized === undefined
    if (tail.length > 0 && !count) throw notFound(`Nothing follows ${fn.name}(…) but $count`)
    return { kind: 'function', set, function: fn, parameters: parseFunctionParameters(second!.parenthesized), count }
  }

  const key = parseKeyPredicate(set, first.parenthesized)
  if (rest.length === 0) return { kind: 'entity', set, key }
  const [second, ...tail] = rest
  const action = set.actions.find((a) => a.name === operationName(model, second!.name))
  const bareCall = second!.parenthesized === undefined || (forms.referenceClientForms === true && second!.parenthesized.trim() === '')
  if (action && bareCall && tail.length === 0) return { kind: 'action', set, key, action }
  const navigation = set.navigationByName.get(second!.name)
  if (!navigation || second!.parenthesized !== undefined) {
    if (set.propertyByName.has(second!.name)) throw notFound(`Addressing a single property (${second!.name}) is not supported; use $select`)
    throw notFound(`${set.name} has no navigation property or action named ${JSON.stringify(second!.name)}`)
  }
  const count = tail.length === 1 && tail[0]!.name === '$count' && tail[0]!.parenthesized === undefined && navigation.collection
  if (tail.length > 0 && !count) throw notFound(`Nothing follows ${navigation.name} but $count`)
  return { kind: 'navigation', set, key, navigation, count }
}

export { isGuid }
