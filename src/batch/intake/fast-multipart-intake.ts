// The multipart intake as the service runs it: the fast path (wasm/multipart-scan.ts) reads the body,
// and hands over to the general intake (general-multipart-intake.ts) the moment it meets anything it
// does not prove well formed.
//
// The fast path copies each chunk once, into the memory of its WebAssembly instance
// (multipart-scanner.ts), where the scan checks every complete part and writes where its operation
// lies, in the operation table's layout. Nothing else is built until the operations are read
// (multipart-operation.ts), exactly as with the general intake.
//
// Handing over: the general intake is given every byte received so far, as one chunk, and from then on
// every later one; it reads the batch from its start, so its verdict (which error, with which message
// and figures, in the order of decisions.md §7) or its document is the same as if it had read the batch
// alone. The fast path gives no verdict of its own but one: `413`, which depends on the byte count only.
// The instance goes back at once, since the general intake keeps copies of its own.

import type { BatchDocument, BatchItem } from './batch-document.js'
import type { BatchIntake, IntakeProgress } from './batch-intake.js'
import { createGeneralMultipartIntake } from './general-multipart-intake.js'
import { batchTooLarge } from './intake-errors.js'
import type { IntakeLimits } from './intake-limits.js'
import { MultipartOperation } from './multipart-operation.js'
import { MultipartScanner, ScanStatus } from './multipart-scanner.js'
import { Cell, OperationTable } from './operation-table.js'
import type { ODataError } from '../../errors.js'

export class FastMultipartIntake implements BatchIntake {
  readonly format = 'multipart' as const
  /** Until the document is released, or the general intake took over. */
  private scanner: MultipartScanner | undefined
  private general: BatchIntake | undefined
  private bytesReceived = 0
  /** The close delimiter was read: what follows is the epilogue, not read (RFC 2046). */
  private complete = false
  private thrown: ODataError | undefined
  private ended = false
  // The rows the scan writes, taken as they come; the operations are made from them at the end, all at
  // once (a burst of small objects costs the garbage collector less than a trickle over the whole read).
  // The rows all name one buffer, the scan's memory, set at the end (the memory may grow until then).
  private readonly table: OperationTable
  private rowCount = 0
  /** For each row, its change set: 0 outside change sets, else its number from 1. */
  private changeSets: Int32Array

  /** @param expectedBytes the declared Content-Length, if any: the memory is sized for it at once. */
  constructor(
    private readonly boundary: string,
    private readonly limits: IntakeLimits,
    expectedBytes?: number,
  ) {
    this.scanner = MultipartScanner.acquire(boundary, limits, expectedBytes)
    // Room for the operations a batch may hold, up to a few thousand: then the rows are copied once.
    const room = Math.min(limits.maxOperations, 4096)
    this.table = new OperationTable(new Int32Array(room * Cell.Width))
    this.changeSets = new Int32Array(room)
  }

  /** Whether the general intake took over (for tests and benchmarks: the outcome is the same). */
  get handedOver(): boolean {
    return this.general !== undefined
  }

  get progress(): IntakeProgress {
    if (this.general !== undefined) return this.general.progress
    const scanner = this.scanner
    return {
      bytesReceived: this.bytesReceived,
      retainedBytes: scanner?.received ?? 0,
      topLevelParts: scanner?.topLevelParts ?? 0,
      operations: scanner?.operations ?? 0,
      partsParsed: scanner?.partsParsed ?? 0,
      failureCertain: this.thrown !== undefined,
    }
  }

  push(chunk: Uint8Array): void {
    if (this.general !== undefined) return this.general.push(chunk)
    if (this.thrown !== undefined) throw this.thrown
    if (this.ended) throw new Error('BatchIntake.push called after end()')
    this.bytesReceived += chunk.byteLength
    if (this.bytesReceived > this.limits.maxBytes) {
      this.releaseScanner()
      throw (this.thrown = batchTooLarge(this.limits.maxBytes))
    }
    if (chunk.byteLength === 0) return
    // The epilogue is kept too (it is rare and short): a hand-over must give every byte received.
    this.scanner!.append(chunk)
    if (!this.complete) void this.read(false)
  }

  end(): BatchDocument {
    if (this.general !== undefined) return this.general.end()
    if (this.thrown !== undefined) throw this.thrown
    if (this.ended) throw new Error('BatchIntake.end called twice')
    this.ended = true
    // A body without its close delimiter, or without operations, gets the general intake's verdict.
    const general = (this.complete ? undefined : this.read(true)) ?? (this.rowCount === 0 ? this.handOver() : undefined)
    if (general !== undefined) return general.end()
    const scanner = this.scanner!
    this.table.buffers.push(scanner.buffer())
    const operations = sizedArray<MultipartOperation>(this.rowCount)
    for (let row = 0; row < this.rowCount; row++) operations[row] = new MultipartOperation(this.table, row * Cell.Width)
    let released = false
    return {
      format: 'multipart',
      items: this.items(operations),
      operations,
      byteLength: this.bytesReceived,
      release: () => {
        if (released) return
        released = true
        this.table.buffers.length = 0 // what was not read yet can no longer be (OperationTable.buffer)
        this.releaseScanner()
      },
    }
  }

  /** Scans what has arrived and takes the rows written; hands over when the scan gives up (and returns the general intake). */
  private read(final: boolean): BatchIntake | undefined {
    const scanner = this.scanner!
    for (;;) {
      const status = scanner.scan(final)
      if (status === ScanStatus.Fallback) return this.handOver()
      this.takeRows(scanner)
      if (status === ScanStatus.RowsFull) continue
      if (status === ScanStatus.Complete) this.complete = true
      return undefined
    }
  }

  /** Copies the rows written, and the change set beside each, out of the scan's memory. */
  private takeRows(scanner: MultipartScanner): void {
    const count = scanner.rowCount
    if (count === 0) return
    this.table.addRows(scanner.rows())
    const first = this.rowCount
    this.rowCount += count
    if (this.rowCount > this.changeSets.length) {
      const larger = new Int32Array(Math.max(this.rowCount, 2 * this.changeSets.length))
      larger.set(this.changeSets)
      this.changeSets = larger
    }
    // Beside each row, three cells: its change set, part and member numbers.
    const places = scanner.places()
    for (let row = 0; row < count; row++) this.changeSets[first + row] = places[row * 3]
    scanner.clearRows()
  }

  /** The top-level items: operations outside change sets, and each change set with its operations. */
  private items(operations: readonly MultipartOperation[]): BatchItem[] {
    const changeSets = this.changeSets
    const rows = operations.length
    let count = 0
    for (let row = 0; row < rows; row++) if (changeSets[row] === 0 || row === 0 || changeSets[row] !== changeSets[row - 1]) count++
    const items = sizedArray<BatchItem>(count)
    let item = 0
    for (let row = 0; row < rows; ) {
      const changeSet = changeSets[row]
      if (changeSet === 0) {
        items[item++] = operations[row++]
        continue
      }
      const start = row
      while (row < rows && changeSets[row] === changeSet) row++
      items[item++] = { kind: 'changeSet', atomicityGroup: undefined, operations: operations.slice(start, row) }
    }
    return items
  }

  private handOver(): BatchIntake {
    const scanner = this.scanner!
    const general = createGeneralMultipartIntake(this.boundary, this.limits)
    // At most maxBytes: this push cannot be refused; the general intake copies what it keeps.
    general.push(scanner.data())
    this.general = general
    this.releaseScanner()
    return general
  }

  private releaseScanner(): void {
    this.scanner?.release()
    this.scanner = undefined
  }
}

/**
 * An array of `length` elements to fill by index: a few times faster than pushing thousands of
 * operations one by one. Above V8's limit for such arrays (100,000), one that grows instead.
 */
function sizedArray<T>(length: number): T[] {
  return length <= 100_000 ? (new Array(length) as T[]) : []
}
