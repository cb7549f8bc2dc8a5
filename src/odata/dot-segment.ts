// A `.` or `..` segment, however its dots are spelt, in a path a client gives the service to follow: a
// batch operation's URL (UnsafeOperationUrl) or an `@odata.bind` address (InvalidValue). Refused in both:
// what one reader resolves away another may not, and the two must not disagree on what is addressed.

/** True when a path has a `.` or `..` segment, however its dots are spelt. */
export function hasDotSegment(path: string): boolean {
  // Most paths have no dot in any spelling: no need to split them.
  if (!path.includes('.') && !path.includes('%2')) return false
  for (const raw of path.split('/')) {
    const segment = raw.replace(/%2e/gi, '.')
    if (segment === '.' || segment === '..') return true
  }
  return false
}
