// One part of a multipart body: its MIME headers, then, by its Content-Type, either an embedded
// request (`application/http`) or, at the batch level only, a change set (`multipart/mixed` with its
// own boundary). Of the part headers only Content-Type and Content-ID matter (the head scanner records
// where they lie); the rest is checked and read past, Content-Transfer-Encoding only for being binary,
// 8bit or 7bit (service.md §2.3; head-scanner.ts).
//
// Parts of one multipart body follow one another, so one parser per level (the batch, the change set)
// reads them all, and so do its request and change-set parsers: `begin` starts the next part.

import type { BatchOperation } from '../batch-document.js'
import { ChangeSetParser } from './change-set-parser.js'
import { boundaryOf, parseContentType } from '../content-type.js'
import { EmbeddedRequestParser, type OperationReceiver } from './embedded-request-parser.js'
import { HeadKind, type HeadOwner } from './head-scanner.js'
import type { MultipartReadState } from './multipart-read-state.js'
import { batchMalformed } from '../intake-errors.js'
import type { PartBodySink } from './part-body-sink.js'

/** Where the parsed operations of a part go. */
export interface PartReceiver {
  operation(operation: BatchOperation): void
  /** Only at the batch level. */
  changeSet(operations: BatchOperation[]): void
}

const APPLICATION_HTTP = 'application/http'
const APPLICATION_HTTP_BYTES = Buffer.from(APPLICATION_HTTP, 'latin1')

export class PartParser implements PartBodySink, HeadOwner, OperationReceiver {
  private content: PartBodySink | undefined
  /** The part's position: the n-th part of the batch, or the m-th member of the change set in part n. */
  private part = 0
  /** 0 at the batch level. */
  private member = 0
  private readonly request: EmbeddedRequestParser
  private changeSetParser: ChangeSetParser | undefined

  constructor(
    private readonly context: MultipartReadState,
    private readonly receiver: PartReceiver,
  ) {
    this.request = new EmbeddedRequestParser(context, this)
  }

  /** Starts the next part: part `part` of the batch, or member `member` of the change set in part `part`. */
  begin(part: number, member = 0): this {
    this.part = part
    this.member = member
    this.content = undefined
    this.context.partsParsed++
    this.context.headScanner.begin(HeadKind.Part, this)
    return this
  }

  describe(): string {
    return this.member === 0 ? `Part ${this.part}` : `Part ${this.member} of the change set in part ${this.part}`
  }

  write(data: Buffer, start: number, end: number): void {
    if (this.content === undefined) {
      const contentStart = this.context.headScanner.read(data, start, end)
      if (contentStart < 0) return
      this.content = this.chooseContent()
      start = contentStart
    }
    if (start < end) this.content.write(data, start, end)
  }

  end(): void {
    if (this.content === undefined) throw batchMalformed(`${this.describe()}: the part headers are not ended by a blank line.`)
    this.content.end()
  }

  // OperationReceiver, for the embedded request of this part

  operation(operation: BatchOperation): void {
    this.receiver.operation(operation)
  }

  private chooseContent(): PartBodySink {
    const head = this.context.headScanner
    if (head.contentTypeStart < 0) throw batchMalformed(`${this.describe()} has no Content-Type.`)
    const start = head.base + head.contentTypeStart
    const end = head.base + head.contentTypeEnd
    // The usual case first, by its bytes.
    if (isApplicationHttp(head.buffer, start, end)) return this.embeddedRequest()
    const written = head.buffer.toString('utf8', start, end)
    const contentType = parseContentType(written)
    if (contentType?.mediaType === APPLICATION_HTTP) return this.embeddedRequest()
    if (contentType?.mediaType === 'multipart/mixed') {
      if (this.member !== 0) throw batchMalformed(`${this.describe()}: a change set cannot contain another change set.`)
      const boundary = boundaryOf(contentType, written)
      return (this.changeSetParser ??= new ChangeSetParser(this.context, this.receiver)).begin(boundary, this.part)
    }
    throw batchMalformed(
      `${this.describe()} has Content-Type "${written}"; a batch part is application/http or a multipart/mixed change set.`,
    )
  }

  private embeddedRequest(): EmbeddedRequestParser {
    // The part's Content-ID is the operation's id: it must outlive this head.
    const head = this.context.headScanner
    if (head.contentIdStart < 0 || !this.context.retaining) return this.request.begin(undefined, 0, 0)
    head.keep(this.context)
    return this.request.begin(head.buffer, head.base + head.contentIdStart, head.base + head.contentIdEnd)
  }
}

/** `application/http` in any case (a media type is ASCII; anything else goes through parseContentType). */
function isApplicationHttp(data: Buffer, start: number, end: number): boolean {
  if (end - start !== APPLICATION_HTTP_BYTES.length) return false
  for (let index = 0; index < APPLICATION_HTTP_BYTES.length; index++) {
    const expected = APPLICATION_HTTP_BYTES[index]
    const code = data[start + index]
    // Setting bit 5 lower-cases a letter; `/` must match as it is.
    if (code !== expected && (code | 0x20) !== expected) return false
  }
  return true
}
