// The names of a write body, checked against the type before any value is read:
// - a name that is neither a property nor a navigation property of the type (nor, for a reference,
//   `X@odata.bind`) is `400 UnknownProperty`, every such name listed with its path (`Goods/0/Qty`), so
//   that a misspelt property is not silently dropped. Annotations (`@odata.etag`, `X@odata.type`) stay
//   allowed. The configuration's `settings.unknownProperties: "ignore"` restores the reference system's
//   lenient reading, which drops unknown names;
// - an `X@odata.bind` given as an absolute URL or from the host root must address this service root
//   (service.md §7 refuses operation URLs of another host or root; a bind is such an address too):
//   `400 InvalidValue` naming it otherwise, in either mode.
// Table parts and record sets (`Goods`, `RecordSet`) are checked row by row against their row type.
import { ODataError, type ErrorDetail } from '../../errors.js'
import { matchMount } from '../../odata/mounts.js'
import type { EntitySetModel, ServiceModel } from '../../model/model.js'
import type { ServiceRequest } from '../service-request.js'
import { invalidValue } from './body-values.js'
import { perRootCache } from '../per-root-cache.js'

const BIND = '@odata.bind'

/** Whether the configuration asks for the lenient reading of unknown names. */
export function ignoresUnknownProperties(model: ServiceModel): boolean {
  return model.configuration.settings?.unknownProperties === 'ignore'
}

export function checkBodyNames(model: ServiceModel, request: ServiceRequest, set: EntitySetModel, body: Record<string, unknown>): void {
  const unknown: string[] = []
  const root = serviceRootParts(model, request.serviceRoot)
  checkObject(model, set, body, '', unknown, root)
  if (unknown.length === 0 || ignoresUnknownProperties(model)) return
  const details: ErrorDetail[] = unknown.map((name) => ({
    code: 'UnknownProperty',
    message: `${name} is not a property of ${set.name}`,
    target: name,
  }))
  throw new ODataError(
    'UnknownProperty',
    `The body names what ${set.name} does not have: ${unknown.slice(0, 20).join(', ')}${unknown.length > 20 ? ', …' : ''}`,
    { target: unknown[0]!, details },
  )
}

interface RootParts {
  readonly host: string
  /** The service root's path (`/api/v4/`), which a token in the path (`/api/t/<token>/v4/`) also reaches. */
  readonly path: string
  readonly mounts: ServiceModel['mounts']
}

/** The parts of a service root, made once per model and root: every write of a batch asks for the same one. */
const serviceRootParts = perRootCache((model: ServiceModel, serviceRoot: string): RootParts => {
  const url = new URL(serviceRoot)
  return { host: url.host.toLowerCase(), path: url.pathname, mounts: model.mounts }
})

/** Whether a path (still encoded) lies under this service root, in any of its spellings. */
function underRoot(path: string, root: RootParts): boolean {
  return matchMount(path, root.mounts)?.root === root.path
}

function checkObject(
  model: ServiceModel,
  set: EntitySetModel,
  body: Record<string, unknown>,
  prefix: string,
  unknown: string[],
  root: RootParts,
): void {
  for (const name of Object.keys(body)) {
    const at = name.indexOf('@')
    if (at === 0) continue // an annotation of the object
    if (at > 0) {
      const subject = name.slice(0, at)
      if (name.slice(at) !== BIND) continue // an annotation of a property
      const navigation = set.navigationByName.get(subject)
      if (navigation === undefined || navigation.collection) unknown.push(prefix + name)
      else checkBindAddress(body[name], prefix + name, root)
      continue
    }
    if (set.propertyByName.has(name)) continue
    const navigation = set.navigationByName.get(name)
    if (navigation === undefined) {
      unknown.push(prefix + name)
      continue
    }
    const rows = body[name]
    // Values of the wrong shape are refused, with their own message, where they are read.
    if (!navigation.collection || !Array.isArray(rows)) continue
    const rowSet = model.entitySetByName.get(navigation.targetSet)!
    rows.forEach((row, index) => {
      if (typeof row === 'object' && row !== null && !Array.isArray(row))
        checkObject(model, rowSet, row as Record<string, unknown>, `${prefix}${name}/${index}/`, unknown, root)
    })
  }
}

/** An absolute or host-root address must stay under this service root. */
function checkBindAddress(value: unknown, target: string, root: RootParts): void {
  if (typeof value !== 'string') return
  const text = value.trim()
  if (/^[a-z][a-z0-9+.-]*:/i.test(text)) {
    let url: URL
    try {
      url = new URL(text)
    } catch {
      throw invalidValue(target, 'is not a valid URL')
    }
    if (url.host.toLowerCase() !== root.host)
      throw invalidValue(target, `addresses another host (${url.host}); a bind names an entity of this service`)
    if (!underRoot(url.pathname, root))
      throw invalidValue(target, `addresses another service root; a bind names an entity under ${root.path}`)
  } else if (text.startsWith('/') && !underRoot(text, root)) {
    throw invalidValue(target, `addresses another service root; a bind names an entity under ${root.path}`)
  }
}
