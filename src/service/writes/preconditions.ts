// Conditional writes (decisions.md §5): `DataVersion` is the entity's ETag, `W/"<DataVersion>"`.
// - `If-Match: *` holds for any existing entity; `If-Match: W/"v1", "v2"` holds when one tag's opaque
//   value equals the current DataVersion (weak comparison, RFC 9110 §8.8.3.2); otherwise `412`.
// - `If-None-Match: *` on an existing entity, or with a tag equal to its current version, is `412`.
// Sets without DataVersion (registers) have no ETag: only `If-Match: *` can hold for them.
import { ODataError } from '../../errors.js'
import type { ServiceRequest } from '../service-request.js'

export function entityTag(dataVersion: string): string {
  return `W/"${dataVersion}"`
}

/** `*`, or the opaque values of a comma-separated list of entity tags; `400` when the header is malformed. */
export function parseEntityTags(header: string, name: string): '*' | string[] {
  const text = header.trim()
  if (text === '*') return '*'
  const tags: string[] = []
  const pattern = /\s*(?:W\/)?"([\x21\x23-\x7e\x80-\xff]*)"\s*(,|$)/gy
  let index = 0
  while (index < text.length) {
    pattern.lastIndex = index
    const match = pattern.exec(text)
    if (!match) throw new ODataError('BadRequest', `${name} is not * or a list of entity tags (W/"…")`, { target: name })
    tags.push(match[1]!)
    index = pattern.lastIndex
    if (match[2] === '') break
  }
  return tags
}

/**
 * Checks If-Match and If-None-Match of a write against the target's state: `version` is its DataVersion
 * (undefined when the set has none), `exists` whether it is there at all.
 */
export function checkPreconditions(request: ServiceRequest, exists: boolean, version: string | undefined): void {
  const ifMatch = request.headers.get('if-match')
  if (ifMatch !== undefined) {
    const tags = parseEntityTags(ifMatch, 'If-Match')
    const holds = exists && (tags === '*' || (version !== undefined && tags.includes(version)))
    if (!holds)
      throw new ODataError(
        'PreconditionFailed',
        exists
          ? 'If-Match does not match the current version of the entity (it was changed by someone else)'
          : 'If-Match requires an existing entity',
        { target: 'If-Match' },
      )
  }
  const ifNoneMatch = request.headers.get('if-none-match')
  if (ifNoneMatch !== undefined && exists) {
    const tags = parseEntityTags(ifNoneMatch, 'If-None-Match')
    if (tags === '*' || (version !== undefined && tags.includes(version)))
      throw new ODataError('PreconditionFailed', 'If-None-Match does not hold: the entity exists', { target: 'If-None-Match' })
  }
}
