// The framing of one multipart body (the batch, or one change set), RFC 2046 §5.1.1:
//
//   preamble  delimiter transport-padding CRLF part  ( delimiter … part )*  close-delimiter  epilogue
//
// where a delimiter is CRLF "--" boundary and the close delimiter adds "--". This class turns the
// delimiters found by the scanner into part streams; what a part means is its sink's business.
// Every malformation goes to `events.fail`: a change set throws it (its whole part is refused), the
// batch level records it and skips to the next delimiter so that the top-level count can go on.
// Data is passed on as ranges of the buffers pushed, never sliced (see delimiter-scanner.ts).

import { DelimiterScanner, type DelimiterSink, type InputLifetime } from './delimiter-scanner.js'
import { CARRIAGE_RETURN, HYPHEN, LINE_FEED, isBlankByte } from '../http-chars.js'
import { ODataError } from '../../../errors.js'
import { batchMalformed } from '../intake-errors.js'
import type { PartBodySink } from './part-body-sink.js'

export interface FramingEvents {
  /**
   * A delimiter opened a part (it is not the close delimiter). Returns the sink for the part's bytes,
   * or undefined to skip them unread.
   */
  openPart(): PartBodySink | undefined
  /** A malformation. Returning (instead of throwing) makes the framing skip to the next delimiter. */
  fail(error: ODataError): void
}

const enum FramingState {
  /** Before the first delimiter: ignored (RFC 2046). */
  Preamble,
  /** Just after `--boundary`: `--` closes, otherwise blanks and a line break open a part. */
  DelimiterStart,
  /** Saw one `-` after the boundary. */
  DelimiterHyphen,
  /** A part is open; blanks (transport padding) until the line break. */
  DelimiterPadding,
  /** Saw a CR after the padding; the LF must follow. */
  DelimiterCarriageReturn,
  /** Inside a part: bytes go to its sink. */
  Part,
  /** Inside a part whose bytes are not read (skipped, or refused). */
  SkippedPart,
  /** After the close delimiter: ignored (RFC 2046). */
  Epilogue,
}

export class MultipartFraming implements DelimiterSink {
  private readonly scanner: DelimiterScanner
  private state = FramingState.Preamble
  private sink: PartBodySink | undefined

  constructor(
    boundary: string,
    private readonly events: FramingEvents,
    /** Names this body in messages: "the batch", "the change set in part 2". */
    private what: string,
    input: InputLifetime,
  ) {
    this.scanner = new DelimiterScanner(boundary, this, input)
  }

  /** Starts framing another body (the next change set). */
  begin(boundary: string, what: string): void {
    this.scanner.begin(boundary)
    this.what = what
    this.state = FramingState.Preamble
    this.sink = undefined
  }

  /** Reads `data[start, end)`. */
  push(data: Buffer, start: number, end: number): void {
    this.scanner.push(data, start, end)
  }

  /** End of input. A body without its close delimiter is truncated: its last part is not delivered. */
  end(): void {
    this.scanner.flush()
    if (this.state === FramingState.Epilogue) return
    this.sink = undefined
    this.events.fail(
      batchMalformed(
        this.state === FramingState.Preamble
          ? `No delimiter of the boundary was found in ${this.what}.`
          : `${capitalised(this.what)} ends without its closing delimiter (truncated?).`,
      ),
    )
    this.state = FramingState.Epilogue
  }

  onDelimiter(): void {
    switch (this.state) {
      case FramingState.Epilogue:
        return // RFC 2046: the epilogue is ignored, whatever it holds
      case FramingState.Part:
        this.endPart()
        break
      case FramingState.DelimiterStart:
      case FramingState.DelimiterHyphen:
        // Two delimiters with no line break between them: the first one opened an empty part.
        this.openPart()
        this.refuse(batchMalformed(`A delimiter in ${this.what} is followed by another delimiter on the same line.`))
        break
      case FramingState.DelimiterPadding:
      case FramingState.DelimiterCarriageReturn:
        this.refuse(batchMalformed(`A delimiter line in ${this.what} is not ended by a line break.`))
        break
      default:
        break
    }
    this.sink = undefined
    this.state = FramingState.DelimiterStart
  }

  onData(data: Buffer, start: number, end: number): void {
    let position = start
    while (position < end) {
      switch (this.state) {
        case FramingState.Part:
          this.deliver(data, position, end)
          return
        case FramingState.Preamble:
        case FramingState.SkippedPart:
        case FramingState.Epilogue:
          return
        default:
          position = this.readDelimiterLine(data, position, end)
      }
    }
  }

  /** Reads the rest of a delimiter line, a few bytes; returns the position after what it consumed. */
  private readDelimiterLine(data: Buffer, position: number, end: number): number {
    const code = data[position]
    switch (this.state) {
      case FramingState.DelimiterStart:
        if (code === HYPHEN) {
          this.state = FramingState.DelimiterHyphen
          return position + 1
        }
        this.openPart()
        this.state = FramingState.DelimiterPadding
        return position // read again as padding
      case FramingState.DelimiterHyphen:
        if (code === HYPHEN) {
          this.state = FramingState.Epilogue
          return end
        }
        this.openPart()
        this.refuse(batchMalformed(`A delimiter in ${this.what} is followed by "-${String.fromCharCode(code)}".`))
        return end
      case FramingState.DelimiterPadding:
        if (isBlankByte(code)) return position + 1
        if (code === CARRIAGE_RETURN) {
          this.state = FramingState.DelimiterCarriageReturn
          return position + 1
        }
        if (code === LINE_FEED) return this.beginPartContent(position + 1)
        this.refuse(batchMalformed(`A delimiter in ${this.what} is followed by other characters on its line.`))
        return end
      case FramingState.DelimiterCarriageReturn:
        if (code === LINE_FEED) return this.beginPartContent(position + 1)
        this.refuse(batchMalformed(`A delimiter line in ${this.what} has a carriage return without a line feed.`))
        return end
      default:
        return end
    }
  }

  /** Counts the part at once (the top-level count must not wait for the part's content). */
  private openPart(): void {
    this.sink = this.events.openPart()
  }

  private beginPartContent(position: number): number {
    this.state = this.sink === undefined ? FramingState.SkippedPart : FramingState.Part
    return position
  }

  private deliver(data: Buffer, start: number, end: number): void {
    try {
      this.sink!.write(data, start, end)
    } catch (error) {
      this.refuse(error)
    }
  }

  private endPart(): void {
    const sink = this.sink
    this.sink = undefined
    if (sink === undefined) return
    try {
      sink.end()
    } catch (error) {
      this.refuse(error)
    }
  }

  /** The current part is refused: report it, and skip to the next delimiter if the owner goes on. */
  private refuse(error: unknown): void {
    // Only our own errors are a verdict on the input; anything else is a bug and must surface as one.
    if (!(error instanceof ODataError)) throw error
    this.sink = undefined
    this.state = FramingState.SkippedPart
    this.events.fail(error)
  }
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1)
}
