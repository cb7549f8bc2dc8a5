// A page of the service's JSON answer split into its rows without parsing them: where each entity of
// `value` starts and ends in the bytes, and whether it carries annotations (a member whose name starts
// with `@`: `@odata.etag`, `@id`, `@removed`). The members besides `value` (`@odata.nextLink`,
// `@odata.deltaLink`) are parsed as usual.
//
// Why: an NDJSON export of rows the service wrote without annotations, with no column renamed, is those
// bytes with a line end after each row. Parsing each row to an object and writing it back out cost the
// export most of its time (docs/export.md, "Measured"); scanning the bytes once costs a fraction of it.
// The scan follows the JSON structure (strings, with their escapes, and nesting), so braces or `"@`
// inside a string value are not mistaken for structure or an annotation.

const QUOTE = 0x22
const BACKSLASH = 0x5c
const AT = 0x40
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

export interface PageRows {
  readonly body: Buffer
  /** The answer's members besides `value`. */
  readonly members: Record<string, unknown>
  /** Row i is `body[starts[i], ends[i])`. */
  readonly starts: readonly number[]
  readonly ends: readonly number[]
  /** Whether row i has an annotation, its own or in a table part row. */
  readonly annotated: readonly boolean[]
  /** Where the `value` array closes. */
  readonly arrayEnd: number
}

/** The index just past the string whose opening quote is at `at`. */
function skipString(body: Buffer, at: number): number {
  let end = body.indexOf(QUOTE, at + 1)
  for (;;) {
    if (end < 0) throw new Error('the page ends inside a string')
    let backslashes = 0
    while (body[end - 1 - backslashes] === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return end + 1
    end = body.indexOf(QUOTE, end + 1)
  }
}

/** The page's rows and other members; throws when the body is not an object with a `value` array. */
export function splitPageRows(body: Buffer): PageRows {
  const marker = body.indexOf('"value":[')
  if (marker < 0) throw new Error('the answer has no value array')
  const starts: number[] = []
  const ends: number[] = []
  const annotated: boolean[] = []
  // Depth inside the array: 0 between rows, 1 at a row's own members, more inside its table parts.
  let depth = 0
  let i = marker + 9
  let start = -1
  let annotation = false
  let arrayEnd = -1
  while (i < body.length) {
    const byte = body[i]!
    if (byte === QUOTE) {
      if (depth >= 1 && body[i + 1] === AT && body[i - 1] !== 0x3a) annotation = true
      i = skipString(body, i)
      continue
    }
    if (byte === OPEN_BRACE || byte === OPEN_BRACKET) {
      if (depth === 0) {
        start = i
        annotation = false
      }
      depth++
    } else if (byte === CLOSE_BRACE || byte === CLOSE_BRACKET) {
      if (depth === 0) {
        arrayEnd = i
        break
      }
      depth--
      if (depth === 0) {
        starts.push(start)
        ends.push(i + 1)
        annotated.push(annotation)
      }
    }
    i++
  }
  if (arrayEnd < 0) throw new Error('the page ends inside its value array')
  // The rest of the answer, with an empty array in place of the rows.
  const rest = `${body.toString('utf8', 0, marker + 9)}${body.toString('utf8', arrayEnd)}`
  const members = JSON.parse(rest) as Record<string, unknown>
  delete members.value
  return { body, members, starts, ends, annotated, arrayEnd }
}

/** How many `]` from the end `peekMembers` tries before it leaves the members to the scan. */
const PEEK_TRIES = 4

/**
 * The members after the `value` array (`@odata.nextLink`, `@odata.deltaLink`; not those before it), read from the end of the page
 * without scanning its rows: the text after the last `]` of the body that is followed by the rest of a JSON
 * object (a `]` inside a link is not: the text after it is not JSON). So the next page can be asked for at
 * once, while this one is scanned. Whatever the rows hold comes before the array's real end, which is
 * found first from the end; still the scan confirms it (run-export.ts). Undefined when no `]` near the end
 * is followed by members.
 */
export function peekMembers(body: Buffer): { members: Record<string, unknown>; arrayEnd: number } | undefined {
  let at = body.length
  for (let tries = 0; tries < PEEK_TRIES; tries++) {
    at = body.lastIndexOf(CLOSE_BRACKET, at - 1)
    if (at < 0) return undefined
    const rest = body.toString('utf8', at + 1).trimEnd()
    if (rest === '}') return { members: {}, arrayEnd: at }
    if (rest.startsWith(',')) {
      try {
        const members = JSON.parse(`{${rest.slice(1)}`) as unknown
        if (typeof members === 'object' && members !== null && !Array.isArray(members))
          return { members: members as Record<string, unknown>, arrayEnd: at }
      } catch {
        // Not the array's end: a `]` inside the members or the last row.
      }
    }
  }
  return undefined
}

const NEWLINE = Buffer.from('\n')

/**
 * The page's rows as NDJSON: a row without annotations as the service wrote it, any other row as
 * `rewrite` makes it from its text (it loses its annotations, or becomes a removed row's line). Rows
 * that follow one another separated by a bare comma are written as one piece, the comma turned into the
 * line end in place (the body is the page's own, read once).
 */
export function pageAsNdjson(page: PageRows, rewrite: (rowText: string) => string): Buffer[] {
  const { body, starts, ends, annotated } = page
  const pieces: Buffer[] = []
  let run = -1
  for (let i = 0; i < starts.length; i++) {
    if (annotated[i]) {
      if (run >= 0) pieces.push(body.subarray(run, ends[i - 1]), NEWLINE)
      run = -1
      pieces.push(Buffer.from(`${rewrite(body.toString('utf8', starts[i], ends[i]))}\n`))
      continue
    }
    if (run < 0) run = starts[i]!
    else if (ends[i - 1]! + 1 === starts[i] && body[ends[i - 1]!] === 0x2c) body[ends[i - 1]!] = 0x0a
    else {
      pieces.push(body.subarray(run, ends[i - 1]), NEWLINE)
      run = starts[i]!
    }
  }
  if (run >= 0) pieces.push(body.subarray(run, ends[starts.length - 1]), NEWLINE)
  return pieces
}
