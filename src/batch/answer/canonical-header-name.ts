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

// Called once per distinct name: the JSON batch writer keeps the quoted result (json-batch-writer.ts).
export function canonicalHeaderName(name: string): string {
  const lower = name.toLowerCase()
  return SPECIAL.get(lower) ?? lower.replace(/(^|-)([a-z])/g, (_, dash: string, letter: string) => dash + letter.toUpperCase())
}
