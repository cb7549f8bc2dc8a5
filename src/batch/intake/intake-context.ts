// What all the parsers of one multipart intake share: the limits, the running counts, the document
// being built, the one head reader, and the decision whether operations are still worth keeping.
//
// Once the batch is certain to be refused (decisions.md §7: too many operations, a corrupt part)
// everything kept so far is released; later operations are parsed (a corrupt part found later still
// comes first in the checks order) and counted (for the actual figure) but no longer stored.

import type { BatchItem, BatchOperation } from './batch-document.js'
import { HeadReader } from './head-reader.js'
import type { IntakeLimits } from './intake-limits.js'

export class IntakeContext {
  readonly items: BatchItem[] = []
  readonly operations: BatchOperation[] = []
  /** Operations seen, stored or not; the next operation's index. */
  operationCount = 0
  /** Parts whose headers were read (top-level parts and change-set members). */
  partsParsed = 0
  /** Bytes copied out of the input and still held; see IntakeProgress.retainedBytes. */
  retainedBytes = 0
  /** False once the batch is certain to be refused: store nothing more. */
  retaining = true
  readonly headReader: HeadReader

  constructor(readonly limits: IntakeLimits) {
    this.headReader = new HeadReader(limits)
  }

  /** Counts an operation and returns its index; past the limit, releases everything kept. */
  countOperation(): number {
    const index = this.operationCount++
    if (this.operationCount > this.limits.maxOperations) this.stopRetaining()
    return index
  }

  stopRetaining(): void {
    if (!this.retaining) return
    this.retaining = false
    this.items.length = 0
    this.operations.length = 0
    this.retainedBytes = 0
  }
}
