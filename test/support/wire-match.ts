// How a wire case's expected value meets what came back (protocol/README.md): `{ "match": "<regex>" }`
// matches a string; objects compare field by field, whole (the same fields) or partly (the fields named);
// arrays always have the same length and compare item by item; anything else is strictly equal, except
// that database rows (`loose`) let a number equal its text, as the driver gives BIGINT and COUNT(*).
export interface Matcher {
  readonly match: string
}

export const isMatcher = (value: unknown): value is Matcher =>
  value !== null &&
  typeof value === 'object' &&
  !Array.isArray(value) &&
  Object.keys(value).length === 1 &&
  typeof (value as Matcher).match === 'string'

export interface MatchOptions {
  /** Objects must have exactly the expected fields (a whole body), not only them. */
  readonly whole?: boolean
  readonly loose?: boolean
}

/** Adds a line to `problems` for every difference. */
export function matchExpected(actual: unknown, expected: unknown, path: string, problems: string[], options: MatchOptions = {}): void {
  if (isMatcher(expected)) {
    if (typeof actual !== 'string' || !new RegExp(expected.match).test(actual))
      problems.push(`${path}: ${JSON.stringify(actual)} does not match /${expected.match}/`)
    return
  }
  if (Array.isArray(expected)) {
    if (!Array.isArray(actual) || actual.length !== expected.length)
      return void problems.push(`${path}: expected an array of ${expected.length}, got ${JSON.stringify(actual)?.slice(0, 300)}`)
    for (const [i, item] of expected.entries()) matchExpected(actual[i], item, `${path}[${i}]`, problems, options)
    return
  }
  if (expected !== null && typeof expected === 'object') {
    if (actual === null || typeof actual !== 'object' || Array.isArray(actual))
      return void problems.push(`${path}: expected an object, got ${JSON.stringify(actual)?.slice(0, 300)}`)
    for (const [key, value] of Object.entries(expected))
      matchExpected((actual as Record<string, unknown>)[key], value, `${path}.${key}`, problems, options)
    if (options.whole)
      for (const key of Object.keys(actual))
        if (!(key in expected))
          problems.push(`${path}.${key}: not expected, got ${JSON.stringify((actual as Record<string, unknown>)[key])?.slice(0, 200)}`)
    return
  }
  if (options.loose && typeof expected === 'number' && typeof actual === 'string' && actual === String(expected)) return
  if (actual !== expected) problems.push(`${path}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)?.slice(0, 300)}`)
}
