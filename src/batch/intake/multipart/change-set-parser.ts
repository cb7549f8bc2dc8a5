// The content of a change-set part: a multipart body of its own, with its own boundary, whose parts
// are operations only (a change set inside a change set is refused by PartParser). Its operations
// run as one transaction (service.md §4.4 rule 3). Any malformation refuses the whole part.
//
// Change sets do not nest and follow one another, so the batch level has one of these parsers and
// `begin` starts the next change set.

import type { ODataError } from '../../../errors.js'
import type { BatchOperation } from '../batch-document.js'
import type { MultipartReadState } from './multipart-read-state.js'
import { batchMalformed } from '../intake-errors.js'
import { type FramingEvents, MultipartFraming } from './multipart-framing.js'
import type { PartBodySink } from './part-body-sink.js'
import { PartParser, type PartReceiver } from './part-parser.js'

export class ChangeSetParser implements PartBodySink, FramingEvents, PartReceiver {
  private framing: MultipartFraming | undefined
  private readonly members: PartParser
  private operations: BatchOperation[] = []
  private memberCount = 0
  /** The position of the change set's part in the batch (for messages). */
  private part = 0

  /** @param receiver where the change set goes once complete. */
  constructor(
    private readonly context: MultipartReadState,
    private readonly receiver: PartReceiver,
  ) {
    this.members = new PartParser(context, this)
  }

  /** Starts reading the change set of part `part`, delimited by `boundary`. */
  begin(boundary: string, part: number): this {
    this.part = part
    this.operations = []
    this.memberCount = 0
    const what = `the change set in part ${part}`
    if (this.framing === undefined) this.framing = new MultipartFraming(boundary, this, what, this.context)
    else this.framing.begin(boundary, what)
    return this
  }

  write(data: Buffer, start: number, end: number): void {
    this.framing!.push(data, start, end)
  }

  end(): void {
    this.framing!.end()
    if (this.memberCount === 0) throw batchMalformed(`The change set in part ${this.part} has no operations.`)
    if (this.context.retaining) this.receiver.changeSet(this.operations)
  }

  // FramingEvents of the change set's own multipart body

  openPart(): PartBodySink {
    this.memberCount++
    return this.members.begin(this.part, this.memberCount)
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
