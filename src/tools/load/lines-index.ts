// The lines file of documents loaded from two CSV files, indexed by its join column before the first
// document is sent, so that lines may come in any order and a document is sent only with all of its lines
// (docs/loading.md, "Documents from two files"). The index holds, per line, a 64-bit hash of its join
// value, its byte range and its line number in typed arrays — about 40 bytes a line, no object per line —
// and the lines themselves stay in the file, read back by their byte range when their document comes. A
// line that could not be read is kept with its problem, so that its document is rejected whole with it; so
// is every document a damaged record may hold a line of (damaged-line-joins.ts), when it cannot be placed or
// spans lines.
import { createHash } from 'node:crypto'
import { closeSync, openSync, readSync } from 'node:fs'
import { csvRecords } from './csv-records.js'
import { CsvScanner, type CsvRecord } from './csv-scanner.js'
import { damagedLineJoins } from './damaged-line-joins.js'
import { decodeText, type InputLimits, type ReadProblem, rawRecord } from './input-limits.js'
import { headerColumns, recordOf } from './input-rows.js'
import { InputError } from './input-source.js'

/** A line of a document, as read back: its values, or the problem that rejects its document. */
export interface DocumentLine {
  readonly line: number
  /** Its number among the lines file's records (1 for the first after the header). */
  readonly row: number
  readonly values?: Record<string, unknown>
  readonly problem?: ReadProblem
  /** The line as the reject file shows it, when it has a problem. */
  readonly raw?: unknown
}

/** A line no document takes: its join value names no header, or cannot be read. */
export interface LooseLine extends DocumentLine {
  readonly joinValue: string | undefined
}

class GrowingArrays {
  length = 0
  hashHigh = new Uint32Array(1024)
  hashLow = new Uint32Array(1024)
  start = new Float64Array(1024)
  end = new Float64Array(1024)
  line = new Float64Array(1024)
  row = new Float64Array(1024)

  push(high: number, low: number, start: number, end: number, line: number, row: number): number {
    if (this.length === this.line.length) {
      const grow = <T extends Uint32Array | Float64Array>(array: T): T => {
        const bigger = new (array.constructor as new (n: number) => T)(array.length * 2)
        bigger.set(array)
        return bigger
      }
      this.hashHigh = grow(this.hashHigh)
      this.hashLow = grow(this.hashLow)
      this.start = grow(this.start)
      this.end = grow(this.end)
      this.line = grow(this.line)
      this.row = grow(this.row)
    }
    const i = this.length++
    this.hashHigh[i] = high
    this.hashLow[i] = low
    this.start[i] = start
    this.end[i] = end
    this.line[i] = line
    this.row[i] = row
    return i
  }
}

function hashOf(bytes: Uint8Array): [number, number] {
  const digest = createHash('md5').update(bytes).digest()
  return [digest.readUInt32BE(0), digest.readUInt32BE(4)]
}

export class LinesIndex {
  private readonly entries = new GrowingArrays()
  /** Entry numbers sorted by hash (then by line), for a binary search. */
  private order = new Uint32Array(0)
  private used = new Uint8Array(0)
  /** Lines read with a problem, by entry number (few: the bad lines of the file). */
  private readonly problems = new Map<number, { problem: ReadProblem; raw: unknown }>()
  /** Lines whose join value could not be read: no document can take them. */
  private readonly unplaced: LooseLine[] = []
  /** Documents (by their join value's hash) a damaged record may hold a line of, with that record. */
  private readonly suspects = new Map<string, DocumentLine>()
  private columns: string[] = []
  private fd: number | undefined
  private joinColumn = 0

  private constructor(
    private readonly path: string,
    private readonly join: string,
    private readonly delimiter: string,
    private readonly limits: InputLimits,
  ) {}

  static async build(path: string, join: string, delimiter: string, limits: InputLimits): Promise<LinesIndex> {
    if (path === '-') throw new InputError('the lines file must be a file (it is read twice: indexed, then read back)')
    const index = new LinesIndex(path, join, delimiter, limits)
    await index.read()
    return index
  }

  private async read(): Promise<void> {
    let header = true
    let row = 0
    for await (const record of csvRecords(this.path, this.delimiter, this.limits)) {
      if (header) {
        this.columns = headerColumns(this.path, record)
        this.joinColumn = this.columns.indexOf(this.join)
        if (this.joinColumn < 0) throw new InputError(`${this.path}: the lines file has no column ${this.join} (the join column)`)
        header = false
        continue
      }
      row++
      const joinBytes = record.fields[this.joinColumn]
      // A join value that is no text (bad bytes, NUL) names no document: the line is unplaced, not an orphan.
      const joinText = joinBytes === undefined ? undefined : decodeText(joinBytes, `line ${record.line}: the field ${this.join}`)
      if (joinBytes === undefined || typeof joinText !== 'string') {
        const why = typeof joinText === 'object' ? joinText : record.problem
        this.unplaced.push({
          line: record.line,
          row,
          joinValue: undefined,
          problem: {
            code: 'UnplacedLine',
            message: `line ${record.line} of the lines file: its ${this.join} cannot be read, so no document can take it${why ? ` (${why.message})` : ''}`,
          },
          raw: rawRecord(record.text, record.end - record.start),
        })
        this.suspect(record, row, this.unplaced[this.unplaced.length - 1]!.problem!, undefined)
        continue
      }
      const [high, low] = hashOf(joinBytes)
      const entry = this.entries.push(high, low, record.start, record.end, record.line, row)
      if (record.problem) {
        this.problems.set(entry, { problem: record.problem, raw: rawRecord(record.text, record.end - record.start) })
        this.suspect(record, row, record.problem, joinBytes)
      }
    }
    if (header) throw new InputError(`${this.path}: the lines file is empty (it needs a header line)`)
    const n = this.entries.length
    const { hashHigh, hashLow } = this.entries
    this.order = new Uint32Array(n)
    for (let i = 0; i < n; i++) this.order[i] = i
    this.order.sort((a, b) => hashHigh[a]! - hashHigh[b]! || hashLow[a]! - hashLow[b]! || a - b)
    this.used = new Uint8Array(n)
  }

  /** The documents whose lines a damaged record may hold, but for its own join value (`placed`). */
  private suspect(record: CsvRecord, row: number, problem: ReadProblem, placed: Buffer | undefined): void {
    const raw = rawRecord(record.text, record.end - record.start)
    for (const value of damagedLineJoins(this.path, record, this.joinColumn, this.delimiter.charCodeAt(0))) {
      if (placed?.equals(value)) continue
      const key = hashOf(value).join('/')
      if (!this.suspects.has(key))
        this.suspects.set(key, {
          line: record.line,
          row,
          problem: { code: problem.code, message: `it may hold a line of this document: ${problem.message}` },
          raw,
        })
    }
  }

  /** Entry numbers of the lines whose join value hashes as `value`'s, in file order. */
  private candidates(value: string): number[] {
    const [high, low] = hashOf(Buffer.from(value))
    const { hashHigh, hashLow } = this.entries
    let lo = 0
    let hi = this.order.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      const e = this.order[mid]!
      if (hashHigh[e]! < high || (hashHigh[e] === high && hashLow[e]! < low)) lo = mid + 1
      else hi = mid
    }
    const found: number[] = []
    for (let k = lo; k < this.order.length; k++) {
      const e = this.order[k]!
      if (hashHigh[e] !== high || hashLow[e] !== low) break
      found.push(e)
    }
    return found
  }

  /** The lines of the document whose join value is `value`, read back from the file. */
  linesOf(value: string): DocumentLine[] {
    const lines: DocumentLine[] = []
    for (const entry of this.candidates(value)) {
      const known = this.problems.get(entry)
      const record = known ? undefined : this.readRecord(entry)
      // A hash shared by another value (2^-64): not this document's line.
      const joinBytes = known ? undefined : record?.fields[this.joinColumn]
      if (!known && !joinBytes?.equals(Buffer.from(value))) continue
      this.used[entry] = 1
      const line = this.entries.line[entry]!
      const row = this.entries.row[entry]!
      if (known) {
        lines.push({ line, row, problem: known.problem, raw: known.raw })
        continue
      }
      const read = recordOf(this.columns, record!)
      if ('problem' in read) lines.push({ line, row, problem: read.problem, raw: rawRecord(record!.text, record!.end - record!.start) })
      else {
        const { [this.join]: _join, ...values } = read.values
        lines.push({ line, row, values })
      }
    }
    const suspect = this.suspects.get(hashOf(Buffer.from(value)).join('/'))
    if (suspect && !lines.some((l) => l.line === suspect.line)) lines.push(suspect)
    return lines
  }

  /** Marks the lines of a document as taken without reading them (the document was loaded by an earlier run). */
  take(value: string): void {
    for (const entry of this.candidates(value)) this.used[entry] = 1
  }

  /** Lines no document took, and lines whose document cannot be told. */
  *loose(): Iterable<LooseLine> {
    yield* this.unplaced
    for (let entry = 0; entry < this.entries.length; entry++) {
      if (this.used[entry]) continue
      const line = this.entries.line[entry]!
      const row = this.entries.row[entry]!
      const known = this.problems.get(entry)
      if (known) {
        yield { line, row, joinValue: undefined, problem: known.problem, raw: known.raw }
        continue
      }
      const record = this.readRecord(entry)
      const read = recordOf(this.columns, record)
      yield {
        line,
        row,
        joinValue: 'values' in read ? String(read.values[this.join]) : undefined,
        raw: 'values' in read ? read.values : rawRecord(record.text, record.end - record.start),
      }
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd)
    this.fd = undefined
  }

  private readRecord(entry: number): CsvRecord {
    const start = this.entries.start[entry]!
    const length = this.entries.end[entry]! - start
    const bytes = Buffer.allocUnsafe(length)
    // Read synchronously: the bytes were read moments ago and sit in the page cache, and a line is small.
    this.fd ??= openSync(this.path, 'r')
    let read = 0
    while (read < length) {
      const n = readSync(this.fd, bytes, read, length - read, start + read)
      if (n === 0) throw new InputError(`${this.path} changed while it was loaded (line ${this.entries.line[entry]} is gone)`)
      read += n
    }
    const scanner = new CsvScanner(this.delimiter.charCodeAt(0), this.limits, start, this.entries.line[entry]!)
    scanner.expectedFields = this.columns.length
    scanner.feed(bytes)
    const step = scanner.next(true)
    if (step.kind !== 'record') throw new InputError(`${this.path} changed while it was loaded (line ${this.entries.line[entry]})`)
    return step.record
  }
}
