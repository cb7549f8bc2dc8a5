// The content of a change-set part: a multipart body of its own, with its own boundary, whose parts
// are operations only (a change set inside a change set is refused by PartParser). Its operations
// run as one transaction (service.md §4.4 rule 3). Any malformation refuses the whole part.

import type { ODataError } from '../../errors.js'
import type { BatchOperation } from './batch-document.js'
import type { IntakeContext } from './intake-context.js'
import { batchMalformed } from './intake-errors.js'
import { type FramingEvents, MultipartFraming } from './multipart-framing.js'
import type { PartBodySink } from './part-body-sink.js'
import { PartParser, type PartReceiver } from './part-parser.js'

export class ChangeSetParser implements PartBodySink, FramingEvents, PartReceiver {
  private readonly framing: MultipartFraming
  private readonly operations: BatchOperation[] = []
  private memberCount = 0

  /** @param part the position of the change set's part in the batch (for messages). */
  constructor(
    private readonly context: IntakeContext,
    boundary: string,
    private readonly part: number,
    private readonly deliver: (operations: BatchOperation[]) => void,
  ) {
    this.framing = new MultipartFraming(boundary, this, `the change set in part ${part}`)
  }

  write(data: Buffer, start: number, end: number): void {
    this.framing.push(data.subarray(start, end))
  }

  end(): void {
    this.framing.end()
    if (this.memberCount === 0) throw batchMalformed(`The change set in part ${this.part} has no operations.`)
    if (this.context.retaining) this.deliver(this.operations)
  }

  // FramingEvents of the change set's own multipart body

  openPart(): PartBodySink {
    this.memberCount++
    return new PartParser(this.context, { part: this.part, member: this.memberCount }, this)
  }

  fail(error: ODataError): void {
    throw error
  }

  // PartReceiver of the members

  operation(operation: BatchOperation): void {
    if (this.context.retaining) this.operations.push(operation)
    else this.operations.length = 0
  }

  changeSet(): void {
    throw new Error('unreachable: PartParser refuses a change set inside a change set')
  }
}
