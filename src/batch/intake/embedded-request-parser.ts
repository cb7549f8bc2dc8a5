// The content of an `application/http` part: one HTTP request written out (service.md §2.3), read as
// the part's bytes stream by.
//
// Its body is everything after the blank line up to the line break that belongs to the next delimiter
// (the delimiter scanner has already removed that line break). It is never framed by the embedded
// `Content-Length`: the standard's examples write `Content-Length: ###`, Olingo's files give wrong
// figures, and the boundary is the one framing a multipart body has (RFC 2046 §5.1.1).

import { type BatchOperation, addHeader } from './batch-document.js'
import { ByteCollector } from './byte-collector.js'
import type { HeadHandler } from './head-reader.js'
import type { IntakeContext } from './intake-context.js'
import { batchMalformed } from './intake-errors.js'
import type { PartBodySink } from './part-body-sink.js'
import { type RequestLine, parseRequestLine } from './request-line.js'

/** Where a parsed operation goes, and how its part is named in messages. */
export interface OperationReceiver {
  operation(operation: BatchOperation): void
  describe(): string
}

export class EmbeddedRequestParser implements PartBodySink, HeadHandler {
  private headDone = false
  private parsedRequestLine: RequestLine | undefined
  private readonly headers = new Map<string, string>()
  private readonly body: ByteCollector
  /** Fixed when the part's head was read: the operation is counted before its bytes arrive. */
  private readonly index: number
  /** False past the operation limit: the bytes are only read (a corrupt part still counts), not kept. */
  private readonly retain: boolean

  /** @param partContentId the `Content-ID` of the MIME part, if it had one. */
  constructor(
    private readonly context: IntakeContext,
    private readonly partContentId: string | undefined,
    private readonly receiver: OperationReceiver,
  ) {
    this.index = context.countOperation()
    this.retain = context.retaining
    this.body = new ByteCollector(context)
    context.headReader.begin(this, true)
  }

  describe(): string {
    return this.receiver.describe()
  }

  write(data: Buffer, start: number, end: number): void {
    if (!this.headDone) {
      const bodyStart = this.context.headReader.read(data, start, end)
      if (bodyStart < 0) return
      this.headDone = true
      start = bodyStart
    }
    if (this.retain) this.body.append(data, start, end)
  }

  end(): void {
    if (!this.headDone) this.context.headReader.endWithPart()
    const requestLine = this.parsedRequestLine
    if (requestLine === undefined) throw batchMalformed(`${this.describe()}: the application/http part holds no request line.`)
    if (!this.retain || !this.context.retaining) return
    const headers = this.headers
    const bytes = this.body.take()
    this.receiver.operation({
      kind: 'operation',
      index: this.index,
      method: requestLine.method,
      url: requestLine.url,
      headers,
      body: bytes === undefined ? undefined : { kind: 'bytes', bytes },
      // Olingo V2 clients put Content-ID among the embedded request's headers, not on the MIME part.
      id: this.partContentId ?? headers.get('content-id'),
      atomicityGroup: undefined,
      dependsOn: NO_DEPENDENCIES,
    })
  }

  // HeadHandler

  requestLine(line: string): void {
    this.parsedRequestLine = parseRequestLine(line, this)
    if (this.retain) this.context.retainedBytes += line.length
  }

  field(name: string, value: string): void {
    if (!this.retain) return
    addHeader(this.headers, name, value)
    this.context.retainedBytes += name.length + value.length
  }
}

const NO_DEPENDENCIES: readonly string[] = Object.freeze([])
