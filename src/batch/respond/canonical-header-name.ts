// Header names in a JSON batch answer are written in their canonical casing (`Content-Type`, `Location`,
// `ETag`, `OData-EntityId`, `Preference-Applied`): HTTP names are case-insensitive, but a widely used
// client reads the members of a JSON batch item's `headers` object case-sensitively.

/** Names whose canonical casing is not the capitalised words between dashes. */
const SPECIAL: ReadonlyMap<string, string> = new Map(
  ['ETag', 'OData-EntityId', 'OData-Version', 'OData-MaxVersion', 'OData-Error', 'Content-ID', 'WWW-Authenticate'].map((name) => [
    name.toLowerCase(),
    name,
  ]),
)

/** Names seen so far: a batch answer repeats the same few names in every item. Bounded, as names come from handlers. */
const known = new Map<string, string>()
const KNOWN_LIMIT = 1000

export function canonicalHeaderName(name: string): string {
  let canonical = known.get(name)
  if (canonical !== undefined) return canonical
  const lower = name.toLowerCase()
  canonical = SPECIAL.get(lower) ?? lower.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase())
  if (known.size < KNOWN_LIMIT) known.set(name, canonical)
  return canonical
}
