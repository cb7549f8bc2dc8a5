// Reads one head: the MIME headers of a part, or the request line and headers of an embedded request.
//
// Two steps, so that each stays simple and both stay mostly native:
//   1. bytes: the line ends are found with Buffer.indexOf (LF; a CR just before it is dropped: CRLF and
//      LF bodies both occur), and the caps on line length, head size and field count are checked as
//      the lines arrive, so a hostile head costs at most `maxHeaderBytes` of work and a fixed buffer;
//   2. text: the head is decoded once (one native call instead of one per name and value), refused if
//      it holds a control character other than tab and the line ends (one regular expression) or a CR
//      that does not end a line (a bare CR could split a line for a later reader), and split into the
//      request line and `name: value` fields.
// Every search is bounded by the head: nothing scans the rest of a chunk once per part.
// A head that lies within one chunk is decoded in place; only a head split across chunks is copied
// into the head buffer. Heads follow one another in the byte stream (a change set's head is complete
// before its first member starts), so one reader serves a whole intake: `begin` starts the next head.

import { CARRIAGE_RETURN, LINE_FEED, isBlankByte, isToken } from './http-chars.js'
import { batchMalformed } from './intake-errors.js'
import type { IntakeLimits } from './intake-limits.js'

export interface HeadHandler {
  /** Names the part in error messages ("Part 3"); called only when there is an error to report. */
  describe(): string
  /** The first line of an embedded request's head, without its line break. */
  requestLine(line: string): void
  /** One field: the name lower-cased, the value without surrounding blanks. */
  field(name: string, value: string): void
}

const CARRIAGE_RETURN_CHAR = 0x0d
const LINE_FEED_CHAR = 0x0a

/** Control characters but tab, LF and CR (a CR is allowed just before a LF: checked apart). */
const FORBIDDEN_IN_HEAD = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/

export class HeadReader {
  private readonly headBuffer: Buffer
  private handler: HeadHandler | undefined
  private expectsRequestLine = false
  /** Bytes of the head already copied into the head buffer (a head split across chunks). */
  private bufferedLength = 0
  private headBytes = 0
  /** Bytes of a line begun in an earlier chunk, CR included. */
  private lineLength = 0
  /** Whether the bytes of that line end with a CR (which may belong to the line break). */
  private lineEndsWithCarriageReturn = false
  private lines = 0
  /** Non-blank lines allowed: the fields, and the request line if there is one. */
  private maxLines = 0
  /** Leading blank lines before a request line are skipped (RFC 9112 §2.2). */
  private contentSeen = false

  constructor(private readonly limits: IntakeLimits) {
    this.headBuffer = Buffer.allocUnsafe(limits.maxHeaderBytes)
  }

  /** Starts reading a new head (whatever the previous one left behind is dropped). */
  begin(handler: HeadHandler, startsWithRequestLine: boolean): void {
    this.handler = handler
    this.expectsRequestLine = startsWithRequestLine
    this.bufferedLength = 0
    this.headBytes = 0
    this.lineLength = 0
    this.lineEndsWithCarriageReturn = false
    this.lines = 0
    this.maxLines = this.limits.maxHeaderCount + (startsWithRequestLine ? 1 : 0)
    this.contentSeen = false
  }

  /**
   * Reads head bytes from `data[start, end)`. Returns the index just after the blank line that ends the
   * head (its fields have then been handed to the handler), or -1 when every byte was consumed.
   */
  read(data: Buffer, start: number, end: number): number {
    const maxLine = this.limits.maxPartHeaderLine
    let headStart = start
    let lineStart = start
    while (lineStart < end) {
      // Bounded: the range ends at a chunk's end or at a delimiter, whose line feed stops the search.
      const lineFeed = data.indexOf(LINE_FEED, lineStart)
      if (lineFeed === -1 || lineFeed >= end) {
        // The line goes on in the next chunk; a CR as its last byte may belong to the line break.
        this.lineLength += end - lineStart
        this.lineEndsWithCarriageReturn = data[end - 1] === CARRIAGE_RETURN
        if (this.lineLength > maxLine + 1) throw this.lineTooLong()
        break
      }
      const endsWithCarriageReturn = lineFeed > lineStart ? data[lineFeed - 1] === CARRIAGE_RETURN : this.lineEndsWithCarriageReturn
      const lineLength = this.lineLength + lineFeed - lineStart - (endsWithCarriageReturn ? 1 : 0)
      this.lineLength = 0
      this.lineEndsWithCarriageReturn = false
      if (lineLength > maxLine) throw this.lineTooLong()
      if (this.completeLine(lineLength)) {
        this.finishHead(data, headStart, lineFeed + 1)
        return lineFeed + 1
      }
      // A blank line before the request line is not part of the text.
      if (lineLength === 0 && this.bufferedLength === 0) headStart = lineFeed + 1
      lineStart = lineFeed + 1
    }
    this.keep(data, headStart, end)
    return -1
  }

  /** Accounts for a line of `lineLength` bytes; returns true when it is the blank line that ends the head. */
  private completeLine(lineLength: number): boolean {
    this.headBytes += lineLength + 2
    if (this.headBytes > this.limits.maxHeaderBytes) throw this.malformed(`the head is larger than ${this.limits.maxHeaderBytes} bytes`)
    if (lineLength > 0) {
      this.contentSeen = true
      if (++this.lines > this.maxLines) throw this.malformed(`more than ${this.limits.maxHeaderCount} header fields`)
      return false
    }
    // RFC 9112 §2.2: blank lines before the request line are skipped.
    return this.contentSeen || !this.expectsRequestLine
  }

  /**
   * The part ended before the blank line. For an embedded request this is tolerated: the delimiter's
   * line break ends the last line, and the request simply has no body.
   */
  endWithPart(): void {
    if (this.bufferedLength === 0) return
    const text = this.headBuffer.toString('utf8', 0, this.bufferedLength)
    this.bufferedLength = 0
    this.interpret(text)
  }

  private keep(data: Buffer, start: number, end: number): void {
    if (end <= start) return
    if (this.bufferedLength + end - start > this.headBuffer.length) throw this.malformed(`the head is larger than ${this.limits.maxHeaderBytes} bytes`)
    data.copy(this.headBuffer, this.bufferedLength, start, end)
    this.bufferedLength += end - start
  }

  private finishHead(data: Buffer, start: number, end: number): void {
    let text: string
    if (this.bufferedLength === 0) {
      text = data.toString('utf8', start, end)
    } else {
      this.keep(data, start, end)
      text = this.headBuffer.toString('utf8', 0, this.bufferedLength)
      this.bufferedLength = 0
    }
    this.interpret(text)
  }

  /** Checks the head text and splits it into its request line and fields. */
  private interpret(text: string): void {
    const forbidden = FORBIDDEN_IN_HEAD.exec(text)
    if (forbidden !== null) {
      throw this.malformed(`a header line holds the control character 0x${forbidden[0].charCodeAt(0).toString(16).padStart(2, '0')}`)
    }
    for (let carriageReturn = text.indexOf('\r'); carriageReturn !== -1; carriageReturn = text.indexOf('\r', carriageReturn + 1)) {
      // The part's end may cut the head right after a CR (endWithPart): that CR ends the last line.
      if (carriageReturn + 1 < text.length && text.charCodeAt(carriageReturn + 1) !== LINE_FEED_CHAR) throw this.bareCarriageReturn()
    }
    const handler = this.handler!
    let lineStart = 0
    while (lineStart < text.length) {
      let lineEnd = text.indexOf('\n', lineStart)
      if (lineEnd === -1) lineEnd = text.length
      let contentEnd = lineEnd
      if (contentEnd > lineStart && text.charCodeAt(contentEnd - 1) === CARRIAGE_RETURN_CHAR) contentEnd--
      if (contentEnd > lineStart) {
        if (this.expectsRequestLine) {
          this.expectsRequestLine = false
          handler.requestLine(text.slice(lineStart, contentEnd))
        } else {
          this.interpretField(text, lineStart, contentEnd)
        }
      }
      lineStart = lineEnd + 1
    }
  }

  private interpretField(text: string, start: number, end: number): void {
    if (isBlankByte(text.charCodeAt(start))) {
      // RFC 9112 §5.2 lets a server refuse obsolete line folding; no batch client folds.
      throw this.malformed('a header line starts with a blank (folded headers are not accepted)')
    }
    const colon = text.indexOf(':', start)
    const name = colon === -1 || colon >= end ? '' : text.slice(start, colon)
    if (!isToken(name)) throw this.malformed(`"${text.slice(start, end)}" is not a "Name: value" header line`)
    let valueStart = colon + 1
    let valueEnd = end
    while (valueStart < valueEnd && isBlankByte(text.charCodeAt(valueStart))) valueStart++
    while (valueEnd > valueStart && isBlankByte(text.charCodeAt(valueEnd - 1))) valueEnd--
    this.handler!.field(name.toLowerCase(), text.slice(valueStart, valueEnd))
  }

  private bareCarriageReturn(): Error {
    return this.malformed('a header line holds a bare carriage return')
  }

  private lineTooLong(): Error {
    return this.malformed(`a header line is longer than ${this.limits.maxPartHeaderLine} bytes`)
  }

  private malformed(problem: string): Error {
    return batchMalformed(`${this.handler?.describe() ?? 'A part'}: ${problem}.`)
  }
}
