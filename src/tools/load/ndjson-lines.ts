// The lines of an NDJSON input as bytes, in bounded memory: a line longer than `maxRecordBytes` is read
// on to its end without being kept (its first bytes stay, for the reject file), so an endless line costs
// the limit and no more.
import { EXCERPT_BYTES, type InputLimits } from './input-limits.js'
import { readBytes } from './input-source.js'

export interface NdjsonLine {
  /** Line of the input (1 for the first). */
  readonly line: number
  /** Offset just past the line's end. */
  readonly end: number
  /** The line's bytes (without its line break), or its first bytes when `cut`. */
  readonly bytes: Buffer
  /** The line's length in bytes, whole. */
  readonly length: number
  readonly cut: boolean
}

export async function* ndjsonLines(path: string, limits: InputLimits): AsyncGenerator<NdjsonLine> {
  let pending: Buffer[] = []
  let pendingBytes = 0
  let excerpt: Buffer | undefined
  let line = 0
  let offset = 0
  const finish = (tail: Buffer): NdjsonLine => {
    line++
    const length = pendingBytes + tail.length
    offset += length + 1
    let bytes: Buffer
    if (excerpt) bytes = excerpt
    else bytes = pending.length === 0 ? tail : Buffer.concat([...pending, tail])
    const cut = excerpt !== undefined || length > limits.maxRecordBytes
    if (cut && !excerpt) bytes = Buffer.from(bytes.subarray(0, EXCERPT_BYTES))
    pending = []
    pendingBytes = 0
    excerpt = undefined
    return { line, end: offset, bytes, length, cut }
  }
  for await (const chunk of readBytes(path)) {
    const data = chunk as Buffer
    let from = 0
    for (;;) {
      const newline = data.indexOf(0x0a, from)
      if (newline < 0) break
      yield finish(data.subarray(from, newline))
      from = newline + 1
    }
    if (from < data.length) {
      const rest = data.subarray(from)
      if (excerpt) pendingBytes += rest.length
      else {
        pending.push(rest)
        pendingBytes += rest.length
        if (pendingBytes > limits.maxRecordBytes) {
          // Past the limit: keep the first bytes and count the rest.
          excerpt = Buffer.from(Buffer.concat(pending).subarray(0, EXCERPT_BYTES))
          pending = []
        }
      }
    }
  }
  if (pendingBytes > 0) yield finish(Buffer.alloc(0))
}
