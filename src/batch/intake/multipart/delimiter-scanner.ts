// Finds the delimiters of one multipart body as its chunks stream by.
//
// The needle is `\n--boundary`. Searching from the line feed rather than from `\r\n` lets the same
// search read CRLF bodies (the standard) and LF bodies (Olingo's test files): a carriage return just
// before a match belongs to the delimiter and is removed here, so the data handed on is exactly the
// part content. The search is primed with a line feed, as busboy primes streamsearch with CRLF, so
// that a body that opens with `--boundary` (no preamble) matches at once.
//
// Why Buffer.indexOf and not streamsearch: streamsearch is a Boyer–Moore–Horspool search written in
// JavaScript; on batch bodies full of hexadecimal keys (the characters of the boundary itself) its skips
// are short: its scan alone runs at about 0.4 of Buffer.indexOf over the same bytes, and the multipart
// reader with streamsearch in this scanner's place takes 1.6 times as long (perf/batch-intake.bench.ts). The one thing a stream adds, a delimiter
// split across two chunks, is handled by holding the end of a chunk that is the start of the needle.
// That is simple because the needle has exactly one line feed, at its start (a boundary holds no CR or
// LF, RFC 2046 §5.1.1; see isValidBoundary): only the last line feed of a chunk can begin a split
// delimiter.
//
// Ranges are reported, never sliced: `onData` receives a buffer with start and end. While the intake
// keeps what it is pushed (chunk-copies.ts), the bytes held back at the end of a chunk (a possible
// delimiter start, a carriage return) are reported from where they lie in that copy, so that data
// spanning chunks stays one range of one slab; otherwise they are reported from the scanner's own
// small copy, valid only during the call.

import { CARRIAGE_RETURN, LINE_FEED } from '../http-chars.js'

export interface DelimiterSink {
  /** Bytes between delimiters: `data[start, end)`. Valid only during the call unless the input is kept (InputLifetime). */
  onData(data: Buffer, start: number, end: number): void
  /** A delimiter line started (`\n--boundary` was matched); what follows it is reported as data. */
  onDelimiter(): void
}

/**
 * While `retaining` is true, the data pushed is the intake's copy (chunk-copies.ts), and every range
 * reported stays valid after the call; otherwise ranges are valid only during the call.
 */
export interface InputLifetime {
  readonly retaining: boolean
}

const HELD_CARRIAGE_RETURN = Buffer.from('\r', 'latin1')
/** `\n--` and a boundary of at most 70 characters (RFC 2046 §5.1.1). */
const LONGEST_NEEDLE = 73

export class DelimiterScanner {
  private needle = Buffer.alloc(0)
  /** The end of the input so far when it is a proper prefix of the needle: it may begin a delimiter. */
  private readonly heldPrefix = Buffer.allocUnsafe(LONGEST_NEEDLE)
  private heldPrefixLength = 0
  /** Where the held prefix lies in kept input (`heldSource[heldSourceStart, …)`), if it does. */
  private heldSource: Buffer | undefined
  private heldSourceStart = 0
  /**
   * A carriage return that ended the data reported last: it belongs to the delimiter if one follows at
   * once, to the data otherwise. Reported from `carriageReturnSource` when that is kept input.
   */
  private carriageReturnHeld = false
  private carriageReturnSource: Buffer = HELD_CARRIAGE_RETURN
  private carriageReturnAt = 0

  constructor(
    boundary: string,
    private readonly sink: DelimiterSink,
    private readonly input: InputLifetime,
  ) {
    this.begin(boundary)
  }

  /** Starts scanning another body, delimited by `boundary` (at most 70 characters, isValidBoundary). */
  begin(boundary: string): void {
    this.needle = Buffer.from(`\n--${boundary}`, 'latin1')
    if (this.needle.length > LONGEST_NEEDLE) throw new Error(`unreachable: the boundary "${boundary}" is longer than 70 characters`)
    // Primed with a line feed: a body that opens with the delimiter matches.
    this.heldPrefix[0] = LINE_FEED
    this.heldPrefixLength = 1
    this.heldSource = undefined
    this.carriageReturnHeld = false
  }

  /** Scans `data[start, end)`. */
  push(data: Buffer, start: number, end: number): void {
    if (end <= start) return
    // Buffer.indexOf has no end position: search a view of the range.
    const chunk = start === 0 && end === data.length ? data : data.subarray(start, end)
    const needle = this.needle
    const length = chunk.length
    let position = 0
    if (this.heldPrefixLength > 0) {
      position = this.continueHeldPrefix(data, start, end)
      if (position < 0) return // the whole chunk extended the held prefix
    }
    for (let match = chunk.indexOf(needle, position); match !== -1; match = chunk.indexOf(needle, position)) {
      this.reportData(data, start + position, start + match)
      this.reportDelimiter()
      position = match + needle.length
    }
    // Hold the end of the chunk if it is the start of the needle (only its last line feed can begin one).
    let lineFeed = length - 1
    const earliest = Math.max(position, length - needle.length + 1)
    while (lineFeed >= earliest && chunk[lineFeed] !== LINE_FEED) lineFeed--
    if (lineFeed >= earliest && chunk.compare(needle, 0, length - lineFeed, lineFeed, length) === 0) {
      this.reportData(data, start + position, start + lineFeed)
      chunk.copy(this.heldPrefix, 0, lineFeed, length)
      this.heldPrefixLength = length - lineFeed
      this.heldSource = this.input.retaining ? data : undefined
      this.heldSourceStart = start + lineFeed
    } else {
      this.reportData(data, start + position, end)
    }
  }

  /** End of input: whatever is held was data after all. */
  flush(): void {
    if (this.heldPrefixLength > 0) this.reportHeldPrefix()
    if (this.carriageReturnHeld) {
      this.carriageReturnHeld = false
      this.sink.onData(this.carriageReturnSource, this.carriageReturnAt, this.carriageReturnAt + 1)
    }
  }

  /**
   * The input so far ends with a prefix of the needle: see whether `data[start, end)` completes it.
   * Returns the position in the range where the search goes on, or -1 when the range is all consumed.
   */
  private continueHeldPrefix(data: Buffer, start: number, end: number): number {
    const held = this.heldPrefixLength
    const missing = this.needle.length - held
    const available = Math.min(missing, end - start)
    if (data.compare(this.needle, held, held + available, start, start + available) === 0) {
      if (available === missing) {
        this.heldPrefixLength = 0
        this.reportDelimiter()
        return missing
      }
      data.copy(this.heldPrefix, held, start, start + available)
      // Still one range of kept input only if this data follows the held bytes in the same buffer.
      if (this.heldSource !== data || this.heldSourceStart + held !== start || !this.input.retaining) this.heldSource = undefined
      this.heldPrefixLength += available
      return -1
    }
    // Not a delimiter: the held bytes are data, and the chunk is searched from its start.
    this.reportHeldPrefix()
    return 0
  }

  private reportHeldPrefix(): void {
    const held = this.heldPrefixLength
    this.heldPrefixLength = 0
    const source = this.heldSource
    this.heldSource = undefined
    if (source !== undefined) this.reportData(source, this.heldSourceStart, this.heldSourceStart + held)
    // Kept input must stay valid: the held bytes get a copy of their own (this happens when they were
    // split between two slabs, rarely).
    else if (this.input.retaining) this.reportData(Buffer.from(this.heldPrefix.subarray(0, held)), 0, held)
    else this.reportData(this.heldPrefix, 0, held)
  }

  private reportData(data: Buffer, start: number, end: number): void {
    if (end <= start) return
    if (this.carriageReturnHeld) {
      this.carriageReturnHeld = false
      this.sink.onData(this.carriageReturnSource, this.carriageReturnAt, this.carriageReturnAt + 1)
    }
    if (data[end - 1] === CARRIAGE_RETURN) {
      end--
      this.carriageReturnHeld = true
      if (this.input.retaining) {
        this.carriageReturnSource = data
        this.carriageReturnAt = end
      } else {
        this.carriageReturnSource = HELD_CARRIAGE_RETURN
        this.carriageReturnAt = 0
      }
      if (end === start) return
    }
    this.sink.onData(data, start, end)
  }

  private reportDelimiter(): void {
    // The carriage return of a CRLF before the delimiter belongs to the delimiter (RFC 2046 §5.1.1).
    this.carriageReturnHeld = false
    this.sink.onDelimiter()
  }
}
