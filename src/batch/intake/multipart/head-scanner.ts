// Reads one head: the MIME headers of a part, or the request line and headers of an embedded request.
//
// Validate eagerly, materialise lazily: every check is made here, in one loop over the head's bytes,
// and what the document needs later is recorded as positions, not as strings (the operation makes its
// strings when they are read, multipart-operation.ts). No string, Map or copy is made for a head that
// lies within one range of the input, the usual case.
//
// The checks, and the order of their verdicts (the same however the body is cut into chunks):
//   - the caps on line length, head size and field count are checked as the lines arrive, and thrown
//     at once: a hostile head costs at most its caps of work and a fixed buffer;
//   - the other problems are remembered and thrown when the head is complete: a control character
//     other than tab and the line ends, then a bare CR (a CR that does not end a line could split a line
//     for a later reader), then, line by line, the first malformed line: a folded line, a line that is
//     not `Name: value` with a token name, a request line that is not `<METHOD> <url> [HTTP/d.d]`, a
//     second Content-Type or Content-ID on a part.
//
// A head lies where the input put it while the input is kept (chunk-copies.ts) and its ranges follow one
// another; only a head whose bytes are not one range (split between two slabs, or by a chunk that is
// not kept) is copied into the head buffer, then, if it is kept, into a buffer of its own. Heads follow
// one another in the byte stream (a change set's head is complete before its first member starts), so
// one scanner serves a whole intake: `begin` starts the next head.

import type { InputLifetime } from './delimiter-scanner.js'
import { CARRIAGE_RETURN, HORIZONTAL_TAB, LINE_FEED, TOKEN_BYTE, hasControlOrDelete, isBlankByte } from '../http-chars.js'
import { batchMalformed } from '../intake-errors.js'
import type { IntakeLimits } from '../intake-limits.js'
import { FieldName, commonHeaderLineAt } from './common-header-lines.js'
import { type RequestLineRanges, checkRequestLine } from './request-line.js'
import type { ODataError } from '../../../errors.js'

export const enum HeadKind {
  /** MIME part headers: Content-Type and Content-ID are recorded. */
  Part,
  /** An embedded request: the request line, then headers. */
  Request,
}

/** Names the part in error messages ("Part 3"); called only when there is an error to report. */
export interface HeadOwner {
  describe(): string
}

const COLON = 0x3a
const DELETE = 0x7f

const enum Phase {
  /** A field name, from the line's start. */
  Name,
  /** The rest of a line: a field value, the request line, a blank or a malformed line. */
  Value,
}

export class HeadScanner implements RequestLineRanges {
  // Where the head lies once read: `buffer[base + position]` for the positions below, which are
  // relative to the head's first byte.
  buffer: Buffer
  base = 0
  /** The head's length: up to and including its blank line, or up to the part's end. */
  length = 0

  // A part head: the values of Content-Type and Content-ID, blanks removed (start -1 when absent; an
  // empty Content-ID counts as absent).
  contentTypeStart = -1
  contentTypeEnd = -1
  contentIdStart = -1
  contentIdEnd = -1

  // An embedded request: its request line (start -1 when there is none), and where its headers start.
  requestStart = -1
  methodEnd = 0
  urlStart = 0
  urlEnd = 0
  fieldsStart = 0

  /** Holds a head whose bytes are not one range of the input. */
  private readonly scratch: Buffer
  private kind = HeadKind.Part
  private owner: HeadOwner | undefined
  /** Bytes of the head scanned so far (all of them available at `buffer[base, …)`). */
  private scanned = 0
  // The line being read, as the scan left it at the end of the last range.
  private lineStart = 0
  private phase = Phase.Value
  /** Position of the colon that ends a field name; -1 before it, and for a line whose name is not a token. */
  private colon = -1
  /** A DataView of `buffer`, for reading four bytes at a time. */
  private words: DataView
  private wordsOf: Buffer
  /** The last byte scanned is a CR: the next one must be its LF. */
  private carriageReturnPending = false
  /** Counted as decided by the caps: line length plus two, for every line. */
  private headBytes = 0
  private lines = 0
  private maxLines = 0
  // Problems found, thrown when the head is complete (see the header of this file for their order).
  private controlCharacter: ODataError | undefined
  private bareCarriageReturn: ODataError | undefined
  private malformedLine: ODataError | undefined

  constructor(
    private readonly limits: IntakeLimits,
    private readonly input: InputLifetime,
  ) {
    // Enough for the largest head that can still be accepted plus a line that proves it too long.
    this.scratch = Buffer.allocUnsafe(limits.maxHeaderBytes + limits.maxPartHeaderLine + 2)
    this.buffer = this.scratch
    this.wordsOf = this.scratch
    this.words = new DataView(this.scratch.buffer, this.scratch.byteOffset, this.scratch.length)
  }

  /** Starts reading a new head. */
  begin(kind: HeadKind, owner: HeadOwner): void {
    this.kind = kind
    this.owner = owner
    this.scanned = 0
    this.length = 0
    this.lineStart = 0
    this.phase = kind === HeadKind.Part ? Phase.Name : Phase.Value
    this.colon = -1
    this.carriageReturnPending = false
    this.headBytes = 0
    this.lines = 0
    this.maxLines = this.limits.maxHeaderCount + (kind === HeadKind.Request ? 1 : 0)
    this.contentTypeStart = -1
    this.contentIdStart = -1
    this.requestStart = -1
    this.controlCharacter = undefined
    this.bareCarriageReturn = undefined
    this.malformedLine = undefined
  }

  /**
   * Reads head bytes from `data[start, end)`. Returns the index just after the blank line that ends the
   * head (the head is then checked and its positions recorded), or -1 when every byte was consumed.
   */
  read(data: Buffer, start: number, end: number): number {
    const before = this.scanned
    let available: number
    if (before === 0) {
      this.buffer = data
      this.base = start
      available = end - start
    } else if (data === this.buffer && start === this.base + before && this.input.retaining) {
      available = before + end - start // the next range of the same kept input: the head stays in place
    } else {
      this.moveToScratch()
      const count = Math.min(this.scratch.length - before, end - start)
      data.copy(this.scratch, before, start, start + count)
      available = before + count
    }
    const headEnd = this.scan(available)
    if (headEnd >= 0) return start + headEnd - before
    if (available - this.lineStart > this.limits.maxPartHeaderLine + 1) throw this.lineTooLong()
    // The caps make a full head buffer impossible without an error thrown above.
    if (available === this.scratch.length) throw new Error('unreachable: the head buffer is full')
    // Input that is not kept is valid only during the push.
    if (!this.input.retaining) this.moveToScratch()
    return -1
  }

  /**
   * The part ended before the blank line. For an embedded request this is tolerated: the delimiter's
   * line break ends the last line (a CR just before the part's end ends it too), and the request has
   * no body.
   */
  endWithPart(): void {
    const end = this.scanned - (this.carriageReturnPending ? 1 : 0)
    this.carriageReturnPending = false
    const base = this.base
    if (end > this.lineStart)
      this.completeLine(base + this.lineStart, base + end, base + this.scanned, this.colon < 0 ? -1 : base + this.colon)
    this.length = this.scanned
    this.finish()
  }

  /** Makes the head's bytes the document's: a head in the head buffer is copied into its own buffer. */
  keep(retained: { retainedBytes: number }): void {
    if (this.buffer !== this.scratch) return
    this.buffer = Buffer.from(this.scratch.subarray(0, this.length))
    retained.retainedBytes += this.length
  }

  private moveToScratch(): void {
    if (this.buffer === this.scratch) return
    this.buffer.copy(this.scratch, 0, this.base, this.base + this.scanned)
    this.buffer = this.scratch
    this.base = 0
  }

  /**
   * Scans from where the last range ended up to `available` bytes of the head. Returns the head's length
   * when its blank line was found, -1 otherwise.
   */
  private scan(available: number): number {
    const data = this.buffer
    const base = this.base
    const end = base + available
    const words = this.wordsFor(data)
    let position = base + this.scanned
    if (this.carriageReturnPending && position < end) {
      this.carriageReturnPending = false
      if (data[position] !== LINE_FEED) this.noteBareCarriageReturn()
    }
    let lineStart = base + this.lineStart
    let colon = this.colon < 0 ? -1 : base + this.colon
    let phase = this.phase
    while (position < end) {
      if (phase === Phase.Name) {
        const known = position === lineStart ? commonHeaderLineAt(data, words, position, end) : undefined
        if (known !== undefined) {
          // The whole line, its break included, is one every client writes (common-header-lines.ts).
          const contentEnd = position + known.length
          const next = data[contentEnd] === LINE_FEED ? contentEnd + 1 : contentEnd + 2
          this.completeLine(lineStart, contentEnd, next, position + known.colon, known.name)
          position = lineStart = next
          continue
        }
        // A field name: token bytes up to its colon. Any other byte ends it, and the line is read on as a
        // value; without the colon it is reported as malformed when complete.
        while (position < end && TOKEN_BYTE[data[position]] === 1) position++
        if (position === end) break
        if (data[position] === COLON) colon = position++
        phase = Phase.Value
        continue
      }
      // The rest of the line: printable words are passed four bytes at a time, others byte by byte.
      while (position + 4 <= end && !hasControlOrDelete(words.getInt32(position, true))) position += 4
      if (position === end) break
      const code = data[position]
      if (code > 0x1f && code !== DELETE) {
        position++
        continue
      }
      if (code === LINE_FEED) {
        const contentEnd = position > lineStart && data[position - 1] === CARRIAGE_RETURN ? position - 1 : position
        if (this.completeLine(lineStart, contentEnd, position + 1, colon)) {
          this.length = position + 1 - base
          this.finish()
          return this.length
        }
        lineStart = ++position
        colon = -1
        phase = this.kind === HeadKind.Part || this.requestStart >= 0 ? Phase.Name : Phase.Value
        continue
      }
      if (code === CARRIAGE_RETURN) {
        if (position + 1 === end) this.carriageReturnPending = true
        else if (data[position + 1] !== LINE_FEED) this.noteBareCarriageReturn()
      } else if (code !== HORIZONTAL_TAB) {
        this.controlCharacter ??= this.malformed(`a header line holds the control character 0x${code.toString(16).padStart(2, '0')}`)
      }
      position++
    }
    this.scanned = available
    this.lineStart = lineStart - base
    this.colon = colon < 0 ? -1 : colon - base
    this.phase = phase
    return -1
  }

  private wordsFor(data: Buffer): DataView {
    if (data !== this.wordsOf) {
      this.wordsOf = data
      this.words = new DataView(data.buffer, data.byteOffset, data.length)
    }
    return this.words
  }

  /**
   * Accounts for the line `buffer[lineStart, contentEnd)` (absolute positions, line break excluded;
   * the next line starts at `next`) and interprets it. Returns true when it is the blank line that
   * ends the head.
   */
  private completeLine(lineStart: number, contentEnd: number, next: number, colon: number, name = FieldName.Unknown): boolean {
    const limits = this.limits
    const lineLength = contentEnd - lineStart
    if (lineLength > limits.maxPartHeaderLine) throw this.lineTooLong()
    this.headBytes += lineLength + 2
    if (this.headBytes > limits.maxHeaderBytes) throw this.malformed(`the head is larger than ${limits.maxHeaderBytes} bytes`)
    if (lineLength === 0) {
      // RFC 9112 §2.2: blank lines before the request line are skipped.
      return this.kind === HeadKind.Part || this.requestStart >= 0
    }
    if (++this.lines > this.maxLines) throw this.malformed(`more than ${limits.maxHeaderCount} header fields`)
    if (this.kind === HeadKind.Request && this.requestStart < 0) this.requestLine(lineStart, contentEnd, next)
    else this.field(lineStart, contentEnd, colon, name)
    return false
  }

  private requestLine(lineStart: number, contentEnd: number, next: number): void {
    const base = this.base
    this.requestStart = lineStart - base
    this.fieldsStart = next - base
    const problem = checkRequestLine(this.buffer, this.wordsFor(this.buffer), lineStart, contentEnd, this)
    if (problem !== undefined) {
      this.malformedLine ??= this.malformed(problem)
      return
    }
    this.methodEnd -= base
    this.urlStart -= base
    this.urlEnd -= base
  }

  private field(lineStart: number, contentEnd: number, colon: number, name: FieldName): void {
    if (this.malformedLine !== undefined) return // only the first malformed line is reported
    const data = this.buffer
    if (isBlankByte(data[lineStart])) {
      // RFC 9112 §5.2 lets a server refuse obsolete line folding; no batch client folds.
      this.malformedLine = this.malformed('a header line starts with a blank (folded headers are not accepted)')
      return
    }
    if (colon < 0 || colon === lineStart) {
      this.malformedLine = this.malformed(`"${data.toString('utf8', lineStart, contentEnd)}" is not a "Name: value" header line`)
      return
    }
    if (this.kind !== HeadKind.Part) return // an embedded request's headers are read when the operation is
    let valueStart = colon + 1
    let valueEnd = contentEnd
    while (valueStart < valueEnd && isBlankByte(data[valueStart])) valueStart++
    while (valueEnd > valueStart && isBlankByte(data[valueEnd - 1])) valueEnd--
    const base = this.base
    if (name === FieldName.Unknown)
      name = nameIs(data, lineStart, colon, CONTENT_TYPE)
        ? FieldName.ContentType
        : nameIs(data, lineStart, colon, CONTENT_ID)
          ? FieldName.ContentId
          : FieldName.Other
    if (
      name === FieldName.Other &&
      nameIs(data, lineStart, colon, CONTENT_TRANSFER_ENCODING) &&
      !isIdentityEncoding(data, valueStart, valueEnd)
    ) {
      // service.md §2.3: parts are binary. 8bit and 7bit are identities too (RFC 2045 §6.2); any other
      // encoding (base64, quoted-printable) would change the bytes the operation reads.
      this.malformedLine = batchMalformed(
        `${this.describe()} has Content-Transfer-Encoding "${data.toString('utf8', valueStart, valueEnd)}"; a batch part is sent as binary (or 8bit, 7bit).`,
      )
      return
    }
    if (name === FieldName.ContentType) {
      if (this.contentTypeStart >= 0) this.malformedLine = batchMalformed(`${this.describe()} has two Content-Type headers.`)
      this.contentTypeStart = valueStart - base
      this.contentTypeEnd = valueEnd - base
    } else if (name === FieldName.ContentId) {
      if (this.contentIdStart >= 0) this.malformedLine = batchMalformed(`${this.describe()} has two Content-ID headers.`)
      if (valueEnd > valueStart) {
        this.contentIdStart = valueStart - base
        this.contentIdEnd = valueEnd - base
      }
    }
  }

  /** The head is complete: its first problem, if any, is the verdict. */
  private finish(): void {
    const problem = this.controlCharacter ?? this.bareCarriageReturn ?? this.malformedLine
    if (problem !== undefined) throw problem
  }

  private noteBareCarriageReturn(): void {
    this.bareCarriageReturn ??= this.malformed('a header line holds a bare carriage return')
  }

  private lineTooLong(): ODataError {
    return this.malformed(`a header line is longer than ${this.limits.maxPartHeaderLine} bytes`)
  }

  private describe(): string {
    return this.owner?.describe() ?? 'A part'
  }

  private malformed(problem: string): ODataError {
    return batchMalformed(`${this.describe()}: ${problem}.`)
  }
}

const CONTENT_TYPE = Buffer.from('content-type', 'latin1')
const CONTENT_ID = Buffer.from('content-id', 'latin1')
const CONTENT_TRANSFER_ENCODING = Buffer.from('content-transfer-encoding', 'latin1')
const IDENTITY_ENCODINGS = ['binary', '8bit', '7bit'].map((encoding) => Buffer.from(encoding, 'latin1'))

/** `binary`, `8bit` or `7bit` in any case: the encodings that leave the bytes as they are (RFC 2045 §6.2). */
function isIdentityEncoding(data: Buffer, start: number, end: number): boolean {
  return IDENTITY_ENCODINGS.some((encoding) => nameIs(data, start, end, encoding))
}

/** Whether `data[start, end)` is the lower-case ASCII `name` in any case. */
function nameIs(data: Buffer, start: number, end: number, name: Buffer): boolean {
  if (end - start !== name.length) return false
  for (let index = 0; index < name.length; index++) {
    // Setting bit 5 lower-cases a letter; the names hold letters, digits and `-`, which have that bit already.
    if ((data[start + index] | 0x20) !== name[index]) return false
  }
  return true
}
