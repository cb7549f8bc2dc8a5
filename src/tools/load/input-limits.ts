// How much of one row the loader holds (docs/loading.md, "Limits"): a line or record longer than
// `maxRecordBytes`, or a field longer than `maxFieldBytes`, is a reject, and the reader keeps no more than
// the limit of it in memory whatever the input holds (an endless line, a 200 MB field). The reject file
// then has the row's first bytes, marked as cut, rather than all of it.
export interface InputLimits {
  readonly maxRecordBytes: number
  readonly maxFieldBytes: number
}

export const DEFAULT_LIMITS: InputLimits = { maxRecordBytes: 4 * 1024 * 1024, maxFieldBytes: 1024 * 1024 }

/** Bytes of a cut row kept for the reject file. */
export const EXCERPT_BYTES = 4096

/** A problem of a row as read: its reject's code and message. */
export interface ReadProblem {
  readonly code: string
  readonly message: string
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/** The text of bytes that must be UTF-8 without NUL, or the problem that makes them a reject. */
export function decodeText(bytes: Uint8Array, what: string): string | ReadProblem {
  if (bytes.includes(0)) return { code: 'NulCharacter', message: `${what} holds a NUL character` }
  try {
    return strictUtf8.decode(bytes)
  } catch {
    return { code: 'InvalidUtf8', message: `${what} is not valid UTF-8` }
  }
}

/** How the reject file shows a row it could not read: its text (the first bytes when cut), and its size. */
export function rawRecord(bytes: Uint8Array, totalBytes: number): { text: string; bytes: number; cut?: true } {
  const shown = bytes.subarray(0, EXCERPT_BYTES)
  // Lossy on purpose: the reject file is for a person, and the row was refused for its bytes.
  const text = Buffer.from(shown.buffer, shown.byteOffset, shown.byteLength).toString('utf8')
  return totalBytes > shown.byteLength ? { text, bytes: totalBytes, cut: true } : { text, bytes: totalBytes }
}

export function megabytes(bytes: number): string {
  return `${Math.round((bytes / 1024 / 1024) * 100) / 100} MiB`
}
