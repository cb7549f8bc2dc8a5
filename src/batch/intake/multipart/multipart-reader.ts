// The general streaming intake of a multipart `$batch` body (OData 4.0, service.md §2.3): every
// spelling the standard and real clients allow, and every verdict with its message.
//
// The checks run in the order decisions.md §7 gives, although the bytes arrive in one pass:
//   1. size: the running byte count; past `maxBytes` push throws BatchTooLarge at once (413, and the
//      HTTP layer closes the connection);
//   2. top-level part count: every delimiter of the batch boundary is counted as it passes, without
//      reading any part (service.md §8 rule 1). Past the operation limit nothing more is parsed or
//      kept, but the scan goes on, so that the answer states the actual figure;
//   3. parsing: a corrupt part is remembered, not thrown, because a top-level count over the limit
//      found later still takes precedence; from then on only the count goes on;
//   4. operation count, change-set members included;
//   5. at least one operation.
// `end()` applies this order to what was found. Reading on after a certain failure costs a boundary
// scan (a few milliseconds for 10 MB) and keeps nothing.
//
// Validate eagerly, materialise lazily: while operations are kept, each chunk is copied once into a
// slab (chunk-copies.ts); the parts are checked where they lie, and each operation records positions in
// the copy and makes its strings and body view when first read (multipart-operation.ts).

import { asBuffer } from '../as-buffer.js'
import type { BatchDocument, BatchOperation } from '../batch-document.js'
import type { BatchIntake, IntakeProgress } from '../batch-intake.js'
import { MultipartReadState } from './multipart-read-state.js'
import { batchMalformed, batchTooLarge, tooManyOperations } from '../intake-errors.js'
import type { IntakeLimits } from '../intake-limits.js'
import { type FramingEvents, MultipartFraming } from './multipart-framing.js'
import type { PartBodySink } from './part-body-sink.js'
import { PartParser, type PartReceiver } from './part-parser.js'
import type { ODataError } from '../../../errors.js'

export function createMultipartReader(boundary: string, limits: IntakeLimits): BatchIntake {
  return new GeneralMultipartIntake(boundary, limits)
}

class GeneralMultipartIntake implements BatchIntake, FramingEvents, PartReceiver {
  readonly format = 'multipart' as const
  private readonly context: MultipartReadState
  private readonly framing: MultipartFraming
  private readonly parts: PartParser
  private bytesReceived = 0
  private topLevelParts = 0
  /** The first corrupt part or delimiter found; reported by end() unless the top-level count wins. */
  private malformation: ODataError | undefined
  /** Set once an error was thrown: the intake answers every later call with it. */
  private thrown: ODataError | undefined
  private ended = false

  constructor(
    boundary: string,
    private readonly limits: IntakeLimits,
  ) {
    this.context = new MultipartReadState(limits)
    this.framing = new MultipartFraming(boundary, this, 'the batch', this.context)
    this.parts = new PartParser(this.context, this)
  }

  get progress(): IntakeProgress {
    const context = this.context
    return {
      bytesReceived: this.bytesReceived,
      retainedBytes: context.retainedBytes,
      topLevelParts: this.topLevelParts,
      operations: context.operationCount,
      partsParsed: context.partsParsed,
      failureCertain: this.thrown !== undefined || !context.retaining,
    }
  }

  push(chunk: Uint8Array): void {
    if (this.thrown !== undefined) throw this.thrown
    if (this.ended) throw new Error('BatchIntake.push called after end()')
    this.bytesReceived += chunk.byteLength
    if (this.bytesReceived > this.limits.maxBytes) {
      this.context.stopRetaining()
      throw (this.thrown = batchTooLarge(this.limits.maxBytes))
    }
    const input = asBuffer(chunk)
    const context = this.context
    // While operations are kept, the chunk is copied once into a slab and read there (chunk-copies.ts):
    // the operations point into the copy. The copy may take two slabs; retaining may stop on the way.
    let from = 0
    while (from < input.length && context.retaining) {
      from = context.slabs.append(input, from)
      const slabs = context.slabs
      context.retainedBytes += slabs.lastEnd - slabs.lastStart
      this.framing.push(slabs.lastSlab, slabs.lastStart, slabs.lastEnd)
    }
    if (from < input.length) this.framing.push(input, from, input.length)
  }

  end(): BatchDocument {
    if (this.thrown !== undefined) throw this.thrown
    if (this.ended) throw new Error('BatchIntake.end called twice')
    this.ended = true
    this.framing.end()
    const failure = this.verdict()
    if (failure !== undefined) {
      this.context.stopRetaining()
      throw (this.thrown = failure)
    }
    return {
      format: 'multipart',
      items: this.context.items,
      operations: this.context.operations,
      byteLength: this.bytesReceived,
      // The slabs are the document's alone: the collector takes them with it.
      release: () => undefined,
    }
  }

  /** decisions.md §7: top-level count, then parsing, then operation count. */
  private verdict(): ODataError | undefined {
    const allowed = this.limits.maxOperations
    if (this.topLevelParts > allowed) return tooManyOperations(this.topLevelParts, allowed)
    if (this.malformation !== undefined) return this.malformation
    if (this.context.operationCount > allowed) return tooManyOperations(this.context.operationCount, allowed)
    if (this.context.operationCount === 0) return batchMalformed('The batch has no operations.')
    return undefined
  }

  // FramingEvents of the batch level

  openPart(): PartBodySink | undefined {
    this.topLevelParts++
    if (this.topLevelParts > this.limits.maxOperations) {
      // service.md §8 rule 1: refused on the count alone; from here on only delimiters are counted.
      this.context.stopRetaining()
      return undefined
    }
    if (this.malformation !== undefined) return undefined
    return this.parts.begin(this.topLevelParts)
  }

  fail(error: ODataError): void {
    this.malformation ??= error
    this.context.stopRetaining()
  }

  // PartReceiver of the batch level

  operation(operation: BatchOperation): void {
    if (!this.context.retaining) return
    this.context.items.push(operation)
    this.context.operations.push(operation)
  }

  changeSet(operations: BatchOperation[]): void {
    if (!this.context.retaining) return
    this.context.items.push({ kind: 'changeSet', atomicityGroup: undefined, operations })
    for (const operation of operations) this.context.operations.push(operation)
  }
}
