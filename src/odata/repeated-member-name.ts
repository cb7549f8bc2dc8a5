// The first member name that a JSON object's text repeats within one object, at any depth: JSON.parse
// keeps the last of two `"Description"` members silently, so a body (or a batch's request item) that says
// two things would be written as one of them. RFC 7493 §2.3 (I-JSON, which OData JSON follows) forbids
// duplicate names; an entity body, an action's parameters and a JSON batch's request item holding one are
// refused (400).
//
// Called on text that JSON.parse has accepted, so the grammar is known to hold: the scan only tracks
// nesting and skips strings (Buffer.indexOf for their closing quote).

const QUOTE = 0x22
const BACKSLASH = 0x5c
const COMMA = 0x2c
const OPEN_BRACE = 0x7b
const CLOSE_BRACE = 0x7d
const OPEN_BRACKET = 0x5b
const CLOSE_BRACKET = 0x5d

/** `text` is JSON text; returns a name one of its objects holds twice (decoded), or undefined. */
export function repeatedMemberName(text: Buffer): string | undefined {
  // The names of each open container: a Set for an object, undefined for an array.
  const open: (Set<string> | undefined)[] = []
  let expectName = false
  for (let position = 0; position < text.length; position++) {
    const code = text[position]
    if (code === QUOTE) {
      const close = closingQuote(text, position + 1)
      if (expectName) {
        const names = open[open.length - 1]!
        const name = decodeName(text, position, close + 1)
        if (names.has(name)) return name
        names.add(name)
        expectName = false
      }
      position = close
    } else if (code === OPEN_BRACE) {
      open.push(new Set())
      expectName = true
    } else if (code === OPEN_BRACKET) {
      open.push(undefined)
    } else if (code === CLOSE_BRACE || code === CLOSE_BRACKET) {
      open.pop()
      expectName = false
    } else if (code === COMMA) {
      expectName = open[open.length - 1] !== undefined
    }
  }
  return undefined
}

/** The position of the quote that closes the string whose content starts at `from`. */
function closingQuote(text: Buffer, from: number): number {
  for (let quote = text.indexOf(QUOTE, from); quote !== -1; quote = text.indexOf(QUOTE, quote + 1)) {
    let backslashes = 0
    while (text[quote - 1 - backslashes] === BACKSLASH) backslashes++
    if (backslashes % 2 === 0) return quote
  }
  throw new Error('unreachable: a string of parsed JSON text is not closed')
}

/** A name as JSON.parse reads it: `"met\u0068od"` is `method`. */
function decodeName(text: Buffer, start: number, end: number): string {
  const backslash = text.indexOf(BACKSLASH, start)
  if (backslash === -1 || backslash >= end) return text.toString('utf8', start + 1, end - 1)
  return JSON.parse(text.toString('utf8', start, end)) as string
}
