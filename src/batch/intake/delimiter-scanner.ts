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
// are short, and it scans at about 0.5 of Buffer.indexOf over the same bytes (perf/batch-intake.bench.ts),
// where this scanner, framing included, reaches about 0.85. The one thing a stream adds, a delimiter
// split across two chunks, is handled by holding the end of a chunk that is the start of the needle.
// That is simple because the needle has exactly one line feed, at its start (a boundary holds no CR or
// LF, RFC 2046 §5.1.1; see isValidBoundary): only the last line feed of a chunk can begin a split
// delimiter.
//
// Ranges are reported, never sliced: `onData` receives the caller's chunk (or the scanner's own small
// buffer) with start and end, valid only during the call.

import { CARRIAGE_RETURN, LINE_FEED } from './http-chars.js'

export interface DelimiterSink {
  /** Bytes between delimiters. `data` is valid only during the call: copy what you keep. */
  onData(data: Buffer, start: number, end: number): void
  /** A delimiter line started (`\n--boundary` was matched); what follows it is reported as data. */
  onDelimiter(): void
}

const HELD_CARRIAGE_RETURN = Buffer.from('\r', 'latin1')

export class DelimiterScanner {
  private readonly needle: Buffer
  /** The end of the input so far when it is a proper prefix of the needle: it may begin a delimiter. */
  private readonly heldPrefix: Buffer
  private heldPrefixLength: number
  /**
   * A carriage return that ended the data reported last: it belongs to the delimiter if one follows at
   * once, to the data otherwise.
   */
  private carriageReturnHeld = false

  constructor(
    boundary: string,
    private readonly sink: DelimiterSink,
  ) {
    this.needle = Buffer.from(`\n--${boundary}`, 'latin1')
    this.heldPrefix = Buffer.allocUnsafe(this.needle.length)
    // Primed with a line feed: a body that opens with the delimiter matches.
    this.heldPrefix[0] = LINE_FEED
    this.heldPrefixLength = 1
  }

  push(chunk: Buffer): void {
    const needle = this.needle
    const length = chunk.length
    let position = 0
    if (this.heldPrefixLength > 0) {
      position = this.continueHeldPrefix(chunk)
      if (position < 0) return // the whole chunk extended the held prefix
    }
    for (let match = chunk.indexOf(needle, position); match !== -1; match = chunk.indexOf(needle, position)) {
      this.reportData(chunk, position, match)
      this.reportDelimiter()
      position = match + needle.length
    }
    // Hold the end of the chunk if it is the start of the needle (only its last line feed can begin one).
    let lineFeed = length - 1
    const earliest = Math.max(position, length - needle.length + 1)
    while (lineFeed >= earliest && chunk[lineFeed] !== LINE_FEED) lineFeed--
    if (lineFeed >= earliest && chunk.compare(needle, 0, length - lineFeed, lineFeed, length) === 0) {
      this.reportData(chunk, position, lineFeed)
      chunk.copy(this.heldPrefix, 0, lineFeed, length)
      this.heldPrefixLength = length - lineFeed
    } else {
      this.reportData(chunk, position, length)
    }
  }

  /** End of input: whatever is held was data after all. */
  flush(): void {
    if (this.heldPrefixLength > 0) {
      const held = this.heldPrefixLength
      this.heldPrefixLength = 0
      this.reportData(this.heldPrefix, 0, held)
    }
    if (this.carriageReturnHeld) {
      this.carriageReturnHeld = false
      this.sink.onData(HELD_CARRIAGE_RETURN, 0, 1)
    }
  }

  /**
   * The input so far ends with a prefix of the needle: see whether `chunk` completes it. Returns the
   * position in `chunk` where the search goes on, or -1 when the chunk is all consumed.
   */
  private continueHeldPrefix(chunk: Buffer): number {
    const held = this.heldPrefixLength
    const missing = this.needle.length - held
    const available = Math.min(missing, chunk.length)
    if (chunk.compare(this.needle, held, held + available, 0, available) === 0) {
      if (available === missing) {
        this.heldPrefixLength = 0
        this.reportDelimiter()
        return missing
      }
      chunk.copy(this.heldPrefix, held, 0, available)
      this.heldPrefixLength += available
      return -1
    }
    // Not a delimiter: the held bytes are data, and the chunk is searched from its start.
    this.heldPrefixLength = 0
    this.reportData(this.heldPrefix, 0, held)
    return 0
  }

  private reportData(data: Buffer, start: number, end: number): void {
    if (end <= start) return
    if (this.carriageReturnHeld) {
      this.carriageReturnHeld = false
      this.sink.onData(HELD_CARRIAGE_RETURN, 0, 1)
    }
    if (data[end - 1] === CARRIAGE_RETURN) {
      end--
      this.carriageReturnHeld = true
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
