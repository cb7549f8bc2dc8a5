// One part of a multipart body: its MIME headers, then, by its Content-Type, either an embedded
// request (`application/http`) or, at the batch level only, a change set (`multipart/mixed` with its
// own boundary). Of the part headers only Content-Type and Content-ID matter; the rest, such as
// Content-Transfer-Encoding (always binary for OData, service.md §2.3), is read past.

import type { BatchOperation } from './batch-document.js'
import { ChangeSetParser } from './change-set-parser.js'
import { boundaryOf, parseContentType } from './content-type.js'
import { EmbeddedRequestParser, type OperationReceiver } from './embedded-request-parser.js'
import type { HeadHandler } from './head-reader.js'
import type { IntakeContext } from './intake-context.js'
import { batchMalformed } from './intake-errors.js'
import type { PartBodySink } from './part-body-sink.js'

/** Where the parsed operations of a part go. */
export interface PartReceiver {
  operation(operation: BatchOperation): void
  /** Only at the batch level. */
  changeSet(operations: BatchOperation[]): void
}

/** Where a part stands: the n-th part of the batch, or the m-th of the change set in part n. */
export interface PartPosition {
  readonly part: number
  /** Set for a member of a change set: its position within the change set. */
  readonly member?: number
}

const APPLICATION_HTTP = 'application/http'

export class PartParser implements PartBodySink, HeadHandler, OperationReceiver {
  private content: PartBodySink | undefined
  private contentType: string | undefined
  private contentId: string | undefined

  constructor(
    private readonly context: IntakeContext,
    private readonly position: PartPosition,
    private readonly receiver: PartReceiver,
  ) {
    context.partsParsed++
    context.headReader.begin(this, false)
  }

  describe(): string {
    const { part, member } = this.position
    return member === undefined ? `Part ${part}` : `Part ${member} of the change set in part ${part}`
  }

  write(data: Buffer, start: number, end: number): void {
    if (this.content === undefined) {
      const contentStart = this.context.headReader.read(data, start, end)
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

  // HeadHandler

  requestLine(): void {
    throw new Error('unreachable: a MIME part head has no request line')
  }

  field(name: string, value: string): void {
    if (name === 'content-type') {
      if (this.contentType !== undefined) throw batchMalformed(`${this.describe()} has two Content-Type headers.`)
      this.contentType = value
    } else if (name === 'content-id') {
      if (this.contentId !== undefined) throw batchMalformed(`${this.describe()} has two Content-ID headers.`)
      if (value !== '') this.contentId = value
    }
  }

  // OperationReceiver, for the embedded request of this part

  operation(operation: BatchOperation): void {
    this.receiver.operation(operation)
  }

  private chooseContent(): PartBodySink {
    const written = this.contentType
    if (written === undefined) throw batchMalformed(`${this.describe()} has no Content-Type.`)
    // The usual case first, without parsing.
    if (written === APPLICATION_HTTP || (written.length === APPLICATION_HTTP.length && written.toLowerCase() === APPLICATION_HTTP)) {
      return new EmbeddedRequestParser(this.context, this.contentId, this)
    }
    const contentType = parseContentType(written)
    if (contentType?.mediaType === APPLICATION_HTTP) return new EmbeddedRequestParser(this.context, this.contentId, this)
    if (contentType?.mediaType === 'multipart/mixed') {
      if (this.position.member !== undefined) throw batchMalformed(`${this.describe()}: a change set cannot contain another change set.`)
      return new ChangeSetParser(this.context, boundaryOf(contentType, written), this.position.part, (operations) =>
        this.receiver.changeSet(operations),
      )
    }
    throw batchMalformed(
      `${this.describe()} has Content-Type "${written}"; a batch part is application/http or a multipart/mixed change set.`,
    )
  }
}
