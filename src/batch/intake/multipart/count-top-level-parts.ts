// The top-level part count of a multipart body that is already in memory, by the boundary alone
// (service.md §8 rule 1, decisions.md §7): no part is read.
//
// It counts exactly what the streaming intake counts: every `--boundary` at the start of a line
// (or of the body) that is followed by at least one byte and is not the close delimiter `--boundary--`;
// nothing after the close delimiter. So `countTopLevelParts(body, b)` equals
// `progress.topLevelParts` after the same bytes went through `createMultipartIntake({ boundary: b })`.

import { asBuffer } from '../as-buffer.js'
import { HYPHEN } from '../http-chars.js'

export function countTopLevelParts(body: Uint8Array, boundary: string): number {
  const bytes = asBuffer(body)
  const needle = Buffer.from(`\n--${boundary}`, 'latin1')
  const delimiter = needle.subarray(1)
  const opensWithDelimiter = bytes.length >= delimiter.length && bytes.compare(delimiter, 0, delimiter.length, 0, delimiter.length) === 0
  let afterDelimiter = opensWithDelimiter ? delimiter.length : positionAfterNext(bytes, needle, 0)
  let count = 0
  while (afterDelimiter !== -1 && afterDelimiter < bytes.length) {
    const closes = bytes[afterDelimiter] === HYPHEN && (afterDelimiter + 1 === bytes.length || bytes[afterDelimiter + 1] === HYPHEN)
    if (closes) break
    count++
    afterDelimiter = positionAfterNext(bytes, needle, afterDelimiter)
  }
  return count
}

function positionAfterNext(bytes: Buffer, needle: Buffer, from: number): number {
  const match = bytes.indexOf(needle, from)
  return match === -1 ? -1 : match + needle.length
}
