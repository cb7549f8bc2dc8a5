// CSV records out of bytes (RFC 4180: fields split by a one-byte delimiter, quoted fields may hold the
// delimiter, line breaks and `""` for a quote), strictly and in bounded memory. The scanner is fed chunks
// and hands out one record at a time with the line it began on and its byte range, so that nothing of
// a bad record is lost or shifted into its neighbours:
//
// - A record longer than `maxRecordBytes` is scanned on to its end without being kept (the reject holds its
//   first bytes); a field longer than `maxFieldBytes` makes its record a reject.
// - A record whose field count differs from the header's is a reject naming both counts.
// - A quote that closes ends its field wherever it is: a quoted field may hold line breaks, so the record
//   is the whole of it, and when it is a reject (wrong field count, too long) every line of it is in that
//   one reject — none is read again as a record of its own.
// - A quote that is never closed (to the end of the input) makes the record from the line it opened on a
//   reject (UnclosedQuote), and scanning starts again on the next line (the record's bytes are at hand
//   below the limit; past it the reader must read the input again from there).
// - A quote inside an unquoted field (`ab"c`) is not RFC 4180: its record is a reject (MalformedCsv).
//
// Fields come out as bytes (quotes taken off, `""` made `"`, unquoted blanks trimmed); the caller decodes
// them, so that invalid UTF-8 is a reject rather than U+FFFD.
import { EXCERPT_BYTES, type InputLimits, type ReadProblem } from './input-limits.js'

export interface CsvRecord {
  /** Line of the input the record begins on (1 for the first). */
  readonly line: number
  /** Its byte range in the input. */
  readonly start: number
  readonly end: number
  /** Every field when the record was kept whole; those before the cut when it was too long. */
  readonly fields: Buffer[]
  readonly fieldCount: number
  readonly problem?: ReadProblem
  /** The record's bytes, or its first bytes when `cut`. */
  readonly text: Buffer
  readonly cut: boolean
}

/** What `next()` gives: a record, a need for more bytes, the end, or where to read again from. */
export type ScanStep =
  | { readonly kind: 'record'; readonly record: CsvRecord }
  | { readonly kind: 'more' }
  | { readonly kind: 'end' }
  | { readonly kind: 'reread'; readonly record: CsvRecord; readonly offset: number; readonly line: number }

const QUOTE = 0x22
const LF = 0x0a
const CR = 0x0d
const SPACE = 0x20
const TAB = 0x09

const enum State {
  FieldStart,
  Unquoted,
  Quoted,
  QuoteInQuoted,
  AfterQuoted,
}

export class CsvScanner {
  /** Bytes from the current record's start (or from the scan position once the record is cut). */
  private buf: Buffer = Buffer.alloc(0)
  /** Absolute offset of buf[0]. */
  private base: number
  private pos = 0
  private line: number
  /** Field count of the header (the first record), once read. */
  expectedFields: number | undefined

  // The record being scanned.
  private recordStart = 0
  /** Absolute offset of the record's first byte (kept when the record is cut). */
  private recordStartAt = 0
  private recordLine: number
  private state = State.FieldStart
  private fields: Buffer[] = []
  private fieldCount = 0
  private fieldStartAbs = 0
  private contentStart = 0
  private contentEnd = 0
  private escapes = false
  private problem: ReadProblem | undefined
  private cut: Buffer | undefined
  /** Where to read again from when a quote that opened on an earlier line turns out to be stray. */
  private quoteOpenLine = 0
  /** Fields the record had whole before that quote opened. */
  private fieldsBeforeQuote = 0
  private resyncAt: number | undefined
  private resyncLine = 0

  constructor(
    private readonly delimiter: number,
    private readonly limits: InputLimits,
    offset = 0,
    line = 1,
  ) {
    this.base = offset
    this.line = line
    this.recordLine = line
    this.startRecord(0)
  }

  feed(chunk: Buffer): void {
    if (this.cut) {
      // Nothing of a cut record is kept: only the bytes not scanned yet.
      this.base += this.pos
      this.buf = this.pos < this.buf.length ? Buffer.concat([this.buf.subarray(this.pos), chunk]) : chunk
      this.pos = 0
      return
    }
    const keep = this.recordStart
    this.buf = keep < this.buf.length ? Buffer.concat([this.buf.subarray(keep), chunk]) : chunk
    this.base += keep
    this.pos -= keep
    this.contentStart -= keep
    this.contentEnd -= keep
    this.recordStart = 0
  }

  next(eof: boolean): ScanStep {
    if (this.base === 0 && this.pos === 0) {
      // A byte order mark at the start of the input is no part of the first column's name.
      const bom = [0xef, 0xbb, 0xbf]
      const prefix = Math.min(3, this.buf.length)
      if (bom.slice(0, prefix).every((byte, k) => this.buf[k] === byte)) {
        if (prefix < 3 && !eof) return { kind: 'more' }
        if (prefix === 3) this.startRecord(3)
      }
    }
    const delimiter = this.delimiter
    let b = this.buf
    let i = this.pos
    while (i < b.length) {
      const c = b[i]!
      switch (this.state) {
        case State.FieldStart:
          if (c === QUOTE) {
            this.state = State.Quoted
            this.quoteOpenLine = this.line
            this.contentStart = i + 1
            this.escapes = false
            i++
          } else if ((c === SPACE || c === TAB) && c !== delimiter) i++
          else {
            this.state = State.Unquoted
            this.contentStart = i
          }
          continue
        case State.Unquoted:
          if (c === QUOTE)
            this.problem ??= {
              code: 'MalformedCsv',
              message: `line ${this.line}: a quote inside a field that does not begin with one (quote the whole field and write the quote as "")`,
            }
          else if (c === delimiter || c === LF) {
            const step = this.separator(i, c === LF, false)
            if (step) return step
            b = this.buf
            i = this.pos
            continue
          }
          i++
          continue
        case State.Quoted:
          if (c === QUOTE) this.state = State.QuoteInQuoted
          else if (c === LF) {
            this.line++
            if (this.resyncAt === undefined) {
              this.resyncAt = this.base + i + 1
              this.resyncLine = this.line
              this.fieldsBeforeQuote = this.fields.length
            }
          }
          i++
          continue
        case State.QuoteInQuoted:
          if (c === QUOTE) {
            this.state = State.Quoted
            this.escapes = true
            i++
            continue
          }
          this.contentEnd = i - 1
          this.state = State.AfterQuoted
          continue
        case State.AfterQuoted:
          if (c === delimiter || c === LF) {
            const step = this.separator(i, c === LF, true)
            if (step) return step
            b = this.buf
            i = this.pos
            continue
          }
          if (c !== CR && c !== SPACE && c !== TAB) {
            this.problem ??= {
              code: 'MalformedCsv',
              message: `line ${this.line}: text follows the quote that closes a field (a quote opened on line ${this.quoteOpenLine})`,
            }
            // Read on as an unquoted field, to find where the record ends.
            this.contentStart = this.contentEnd
            this.state = State.Unquoted
          }
          i++
          continue
      }
    }
    // Checked once a chunk: the record in memory stays under the limit and one chunk.
    if (!this.cut && i - this.recordStart > this.limits.maxRecordBytes) {
      this.cutRecord(i)
      i = this.pos
    }
    this.pos = i
    if (!eof) return { kind: 'more' }
    return this.endOfInput()
  }

  private endOfInput(): ScanStep {
    const i = this.pos
    if (this.state === State.FieldStart && this.fieldCount === 0 && !this.cut && this.base + i === this.recordStartAt)
      return { kind: 'end' }
    if (this.state === State.Quoted) {
      this.problem = {
        code: 'UnclosedQuote',
        message: `line ${this.quoteOpenLine}: a quote opens a field that is not closed before the end of the input`,
      }
      if (this.resyncAt !== undefined) return this.reread()
    } else if (this.state === State.QuoteInQuoted) {
      this.contentEnd = i - 1
      this.state = State.AfterQuoted
    }
    if (this.state === State.FieldStart && this.fieldCount === 0 && this.blank(i)) return { kind: 'end' }
    this.endField(i, this.state === State.AfterQuoted)
    return this.endRecord(i) ?? { kind: 'end' }
  }

  private blank(end: number): boolean {
    if (this.cut) return false
    for (let k = this.recordStart; k < end; k++) {
      const c = this.buf[k]
      if (c !== SPACE && c !== TAB && c !== CR && c !== LF) return false
    }
    return true
  }

  /** A delimiter or line break at `at` ends the field, a line break the record too; scanning goes on at `pos`. */
  private separator(at: number, lineBreak: boolean, quoted: boolean): ScanStep | undefined {
    this.endField(at, quoted)
    if (!lineBreak) {
      this.beginField(at + 1)
      this.pos = at + 1
      return undefined
    }
    this.line++
    return this.endRecord(at + 1)
  }

  private beginField(at: number): void {
    this.state = State.FieldStart
    this.contentStart = at
    this.fieldStartAbs = this.base + at
  }

  private endField(at: number, quoted: boolean): void {
    this.fieldCount++
    const length = this.base + at - this.fieldStartAbs
    if (length > this.limits.maxFieldBytes && !this.problem)
      this.problem = {
        code: 'FieldTooLong',
        message: `line ${this.recordLine}: field ${this.fieldCount} has ${length} bytes, more than --max-field-bytes (${this.limits.maxFieldBytes})`,
      }
    if (this.cut) return
    let content: Buffer
    if (quoted) {
      content = this.buf.subarray(this.contentStart, this.contentEnd)
      if (this.escapes) content = Buffer.from(content.toString('latin1').replaceAll('""', '"'), 'latin1')
    } else {
      let end = at
      while (end > this.contentStart && (this.buf[end - 1] === SPACE || this.buf[end - 1] === TAB || this.buf[end - 1] === CR)) end--
      content = this.buf.subarray(this.contentStart, end)
    }
    this.fields.push(content)
  }

  private cutRecord(at: number): void {
    this.cut = Buffer.from(this.buf.subarray(this.recordStart, this.recordStart + EXCERPT_BYTES))
    this.problem ??= this.tooLong()
    this.base += at
    this.buf = this.buf.subarray(at)
    this.pos = 0
  }

  private tooLong(): ReadProblem {
    return {
      code: 'RecordTooLong',
      message: `line ${this.recordLine}: the record is longer than --max-record-bytes (${this.limits.maxRecordBytes})`,
    }
  }

  /** The record that ended at `end` (just past its line break), or undefined for a blank line (skipped). */
  private endRecord(end: number): ScanStep | undefined {
    if (!this.cut && this.fieldCount === 1 && this.fields[0]!.length === 0 && this.state !== State.AfterQuoted && this.blank(end)) {
      this.startRecord(end)
      return undefined
    }
    if (this.expectedFields === undefined) this.expectedFields = this.fieldCount
    else if (this.fieldCount !== this.expectedFields && !this.problem)
      this.problem = {
        code: 'FieldCount',
        message: `line ${this.recordLine}: ${this.fieldCount} fields where the header has ${this.expectedFields}`,
      }
    if (!this.cut && end - this.recordStart > this.limits.maxRecordBytes) {
      // As when the record is cut while it is read: the record's length is the problem named.
      if (!this.problem || this.problem.code === 'FieldTooLong') this.problem = this.tooLong()
      this.cut = Buffer.from(this.buf.subarray(this.recordStart, this.recordStart + EXCERPT_BYTES))
    }
    const record = this.record(this.base + end, this.cut ?? this.buf.subarray(this.recordStart, end))
    this.startRecord(end)
    return { kind: 'record', record }
  }

  /**
   * A quote that opened on an earlier line is not closed before the end of the input: the reject is the
   * record up to the line the quote opened on, and scanning starts again on the next line.
   */
  private reread(): ScanStep {
    const offset = this.resyncAt!
    const line = this.resyncLine
    const problem: ReadProblem = {
      code: 'UnclosedQuote',
      message: `line ${this.quoteOpenLine}: a quote opens a field that is not closed before the end of the input; the record of lines ${this.recordLine}-${this.quoteOpenLine} is refused and reading goes on from line ${line}`,
    }
    const text = this.cut ?? this.buf.subarray(this.recordStart, offset - this.base)
    const record: CsvRecord = {
      line: this.recordLine,
      start: this.recordStartAt,
      end: offset,
      // The fields before the stray quote are whole (a lines file still tells the document of this one).
      fields: this.fields.slice(0, this.fieldsBeforeQuote),
      fieldCount: this.fieldsBeforeQuote,
      problem,
      text: Buffer.from(text.subarray(0, EXCERPT_BYTES)),
      cut: this.cut !== undefined || text.length > EXCERPT_BYTES,
    }
    if (this.cut || offset < this.base || offset > this.base + this.buf.length) {
      // The bytes are gone: the reader reads the input again from `offset` with a new scanner.
      return { kind: 'reread', record, offset, line }
    }
    this.line = line
    this.startRecord(offset - this.base)
    return { kind: 'record', record }
  }

  private record(endAbs: number, text: Buffer): CsvRecord {
    return {
      line: this.recordLine,
      start: this.recordStartAt,
      end: endAbs,
      fields: this.fields,
      fieldCount: this.fieldCount,
      problem: this.problem,
      text,
      cut: this.cut !== undefined,
    }
  }

  private startRecord(at: number): void {
    this.recordStart = at
    this.recordStartAt = this.base + at
    this.pos = at
    this.recordLine = this.line
    this.fields = []
    this.fieldCount = 0
    this.problem = undefined
    this.cut = undefined
    this.resyncAt = undefined
    this.beginField(at)
  }
}
