// The join values a damaged record of a lines file may hold. A record that is a reject can span lines (a
// quoted field holds line breaks, or a stray quote is closed by another one further down), and each of
// those lines may be the line of another document; a record whose join column cannot be read at all
// still has, most often, its join value at the start of its line. Every physical line of the record is
// split naively at the delimiter (quotes around the value and blanks taken off), and its join column's
// text is a value whose document must not be sent without this line: it is rejected whole with it.
import { closeSync, openSync, readSync } from 'node:fs'
import type { CsvRecord } from './csv-scanner.js'

const CHUNK_BYTES = 64 * 1024
/** The most of a line kept to find its join column (a join value sits near the start of its line). */
const LINE_HEAD_BYTES = 64 * 1024
const LF = 0x0a

export function damagedLineJoins(path: string, record: CsvRecord, joinColumn: number, delimiter: number): Buffer[] {
  if (!record.cut) return joinValuesInText(record.text, joinColumn, delimiter)
  const values: Buffer[] = []
  const take = (line: Buffer) => {
    const value = naiveField(line, joinColumn, delimiter)
    if (value !== undefined && value.length > 0) values.push(value)
  }
  // A cut record keeps only its first bytes: its lines are read again from the file, a chunk at a time.
  const fd = openSync(path, 'r')
  try {
    let head: Buffer = Buffer.alloc(0)
    let skipping = false
    const chunk = Buffer.allocUnsafe(CHUNK_BYTES)
    for (let at = record.start; at < record.end; ) {
      const n = readSync(fd, chunk, 0, Math.min(CHUNK_BYTES, record.end - at), at)
      if (n === 0) break
      at += n
      let from = 0
      for (let k = 0; k < n; k++) {
        if (chunk[k] !== LF) continue
        if (!skipping) take(Buffer.concat([head, chunk.subarray(from, k)]))
        head = Buffer.alloc(0)
        skipping = false
        from = k + 1
      }
      if (!skipping) {
        head = Buffer.concat([head, chunk.subarray(from, n)])
        if (head.length > LINE_HEAD_BYTES) {
          take(head)
          head = Buffer.alloc(0)
          skipping = true
        }
      }
    }
    if (!skipping && head.length > 0) take(head)
  } finally {
    closeSync(fd)
  }
  return values
}

/** The join values of the lines of a damaged record's text, each line split naively at the delimiter. */
export function joinValuesInText(bytes: Buffer, joinColumn: number, delimiter: number): Buffer[] {
  const values: Buffer[] = []
  forEachLine(bytes, (line) => {
    const value = naiveField(line, joinColumn, delimiter)
    if (value !== undefined && value.length > 0) values.push(value)
  })
  return values
}

function forEachLine(bytes: Buffer, take: (line: Buffer) => void): void {
  let from = 0
  for (let k = bytes.indexOf(LF); k >= 0; k = bytes.indexOf(LF, from)) {
    take(bytes.subarray(from, k))
    from = k + 1
  }
  if (from < bytes.length) take(bytes.subarray(from))
}

/** The text of field `column` of a line split at every delimiter, without blanks and enclosing quotes. */
function naiveField(line: Buffer, column: number, delimiter: number): Buffer | undefined {
  let start = 0
  for (let c = 0; c < column; c++) {
    const next = line.indexOf(delimiter, start)
    if (next < 0) return undefined
    start = next + 1
  }
  let end = line.indexOf(delimiter, start)
  if (end < 0) end = line.length
  const isBlank = (b: number | undefined) => b === 0x20 || b === 0x09 || b === 0x0d
  while (start < end && isBlank(line[start])) start++
  while (end > start && isBlank(line[end - 1])) end--
  if (line[start] === 0x22) start++
  if (end > start && line[end - 1] === 0x22) end--
  return line.subarray(start, end)
}
