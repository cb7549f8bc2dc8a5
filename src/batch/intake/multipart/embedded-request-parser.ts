// The content of an `application/http` part: one HTTP request written out (service.md §2.3), read as
// the part's bytes stream by. Its head is checked by the head scanner; where its request line, headers
// and body lie goes into the operation table, and the operation makes its strings when they are read
// (multipart-operation.ts).
//
// Its body is everything after the blank line up to the line break that belongs to the next delimiter
// (the delimiter scanner has already removed that line break). It is never framed by the embedded
// `Content-Length`: the standard's examples write `Content-Length: ###`, Olingo's files give wrong
// figures, and the boundary is the one framing a multipart body has (RFC 2046 §5.1.1). The body is a
// view of the kept input; only a body that is not one range of it (split between two slabs) is joined.

import type { BatchOperation } from '../batch-document.js'
import { HeadKind, type HeadOwner } from './head-scanner.js'
import type { MultipartReadState } from './multipart-read-state.js'
import { batchMalformed } from '../intake-errors.js'
import { MultipartOperation } from './multipart-operation.js'
import { Cell } from './operation-positions.js'
import type { PartBodySink } from './part-body-sink.js'

/** Where a parsed operation goes, and how its part is named in messages. */
export interface OperationReceiver {
  operation(operation: BatchOperation): void
  describe(): string
}

export class EmbeddedRequestParser implements PartBodySink, HeadOwner {
  private headDone = false
  /** Whether the head holds a request line (known once the head is read). */
  private hasRequestLine = false
  /** Fixed when the part's head was read: the operation is counted before its bytes arrive. */
  private index = 0
  /** False past the operation limit: the bytes are only read (a corrupt part still counts), not kept. */
  private retain = false
  /** The operation's row in the operation table, once its head is read. */
  private at = -1
  // Where the MIME part's Content-ID lies (`partHead[partIdStart, partIdEnd)`), if it has one.
  private partHead: Buffer | undefined
  private partIdStart = 0
  private partIdEnd = 0
  // The body: the range being extended, and the ranges before it when it is not one range.
  private bodyBytes: Buffer | undefined
  private bodyStart = 0
  private bodyEnd = 0
  private earlierBodyRanges: Buffer[] | undefined

  constructor(
    private readonly context: MultipartReadState,
    private readonly receiver: OperationReceiver,
  ) {}

  /** Starts the next request; `partHead[partIdStart, partIdEnd)` is its part's Content-ID, if it has one. */
  begin(partHead: Buffer | undefined, partIdStart: number, partIdEnd: number): this {
    this.headDone = false
    this.hasRequestLine = false
    this.at = -1
    this.partHead = partHead
    this.partIdStart = partIdStart
    this.partIdEnd = partIdEnd
    this.bodyBytes = undefined
    this.earlierBodyRanges = undefined
    this.index = this.context.countOperation()
    this.retain = this.context.retaining
    this.context.headScanner.begin(HeadKind.Request, this)
    return this
  }

  describe(): string {
    return this.receiver.describe()
  }

  write(data: Buffer, start: number, end: number): void {
    if (!this.headDone) {
      const bodyStart = this.context.headScanner.read(data, start, end)
      if (bodyStart < 0) return
      this.takeHead()
      start = bodyStart
    }
    if (this.retain && start < end) this.appendBody(data, start, end)
  }

  end(): void {
    if (!this.headDone) {
      this.context.headScanner.endWithPart()
      this.takeHead()
    }
    if (!this.hasRequestLine) throw batchMalformed(`${this.describe()}: the application/http part holds no request line.`)
    if (!this.retain || !this.context.retaining) return
    const table = this.context.table
    const cells = table.cells
    const at = this.at
    let body = this.bodyBytes
    if (body === undefined) {
      cells[at + Cell.Body] = -1
    } else {
      let bodyStart = this.bodyStart
      let bodyEnd = this.bodyEnd
      if (this.earlierBodyRanges !== undefined) {
        const ranges = this.earlierBodyRanges
        ranges.push(body.subarray(bodyStart, bodyEnd))
        body = Buffer.concat(ranges)
        bodyStart = 0
        bodyEnd = body.length
        this.context.retainedBytes += body.length
      }
      cells[at + Cell.Body] = table.bufferNumber(body)
      cells[at + Cell.BodyStart] = bodyStart
      cells[at + Cell.BodyEnd] = bodyEnd
    }
    if (at !== this.index * Cell.Width) throw new Error('unreachable: an operation kept without its row in the operation table')
    this.receiver.operation(new MultipartOperation(table, at))
  }

  /** Records where the head's parts lie, from the scanner that has just read it. */
  private takeHead(): void {
    this.headDone = true
    const scanner = this.context.headScanner
    this.hasRequestLine = scanner.requestStart >= 0
    if (!this.hasRequestLine || !this.retain) return
    scanner.keep(this.context)
    const base = scanner.base
    const table = this.context.table
    const at = (this.at = table.addRow())
    const cells = table.cells
    cells[at + Cell.Head] = table.bufferNumber(scanner.buffer)
    cells[at + Cell.RequestStart] = base + scanner.requestStart
    cells[at + Cell.MethodEnd] = base + scanner.methodEnd
    cells[at + Cell.UrlStart] = base + scanner.urlStart
    cells[at + Cell.UrlEnd] = base + scanner.urlEnd
    cells[at + Cell.FieldsStart] = base + scanner.fieldsStart
    cells[at + Cell.HeadEnd] = base + scanner.length
    if (this.partHead === undefined) {
      cells[at + Cell.PartHead] = -1
    } else {
      cells[at + Cell.PartHead] = table.bufferNumber(this.partHead)
      cells[at + Cell.PartIdStart] = this.partIdStart
      cells[at + Cell.PartIdEnd] = this.partIdEnd
    }
  }

  /** While the input is kept, `data[start, end)` stays valid: a range that follows the last one extends it. */
  private appendBody(data: Buffer, start: number, end: number): void {
    if (this.bodyBytes === undefined) {
      this.bodyBytes = data
      this.bodyStart = start
    } else if (data !== this.bodyBytes || start !== this.bodyEnd) {
      ;(this.earlierBodyRanges ??= []).push(this.bodyBytes.subarray(this.bodyStart, this.bodyEnd))
      this.bodyBytes = data
      this.bodyStart = start
    }
    this.bodyEnd = end
  }
}
