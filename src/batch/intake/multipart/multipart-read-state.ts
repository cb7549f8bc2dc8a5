// What all the parsers of one multipart intake share: the limits, the running counts, the document
// being built, the copies of the input it points into and the table of where its operations lie, the
// one head scanner, and the decision whether operations are still worth keeping.
//
// Once the batch is certain to be refused (decisions.md §7: too many operations, a corrupt part)
// everything kept so far is released; later operations are parsed (a corrupt part found later still
// comes first in the checks order) and counted (for the actual figure) but no longer stored, and the
// input is no longer copied.

import type { BatchItem, BatchOperation } from '../batch-document.js'
import { ChunkCopies } from './chunk-copies.js'
import type { InputLifetime } from './delimiter-scanner.js'
import { HeadScanner } from './head-scanner.js'
import type { IntakeLimits } from '../intake-limits.js'
import { OperationPositions } from './operation-positions.js'

export class MultipartReadState implements InputLifetime {
  readonly items: BatchItem[] = []
  readonly operations: BatchOperation[] = []
  /** Operations seen, stored or not; the next operation's index. */
  operationCount = 0
  /** Parts whose headers were read (top-level parts and change-set members). */
  partsParsed = 0
  /** Bytes copied out of the input and still held; see IntakeProgress.retainedBytes. */
  retainedBytes = 0
  /**
   * False once the batch is certain to be refused: store nothing more. While true, every chunk pushed
   * was copied into `slabs`, so the ranges the parsers see stay valid (InputLifetime).
   */
  retaining = true
  readonly slabs: ChunkCopies
  /** Where the operations kept lie in the slabs. */
  table = new OperationPositions()
  readonly headScanner: HeadScanner

  constructor(readonly limits: IntakeLimits) {
    this.slabs = new ChunkCopies(limits.maxBytes)
    this.headScanner = new HeadScanner(limits, this)
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
    this.slabs.release()
    this.table = new OperationPositions()
  }
}
