// Where the operations of one multipart document lie in the kept input: one row of positions per
// operation in an Int32Array, and the buffers the rows point into.
//
// A batch may hold thousands of operations that all stay alive until the batch has run. Kept as
// fields of an object each, their positions would make every operation an object of some twenty
// fields for the garbage collector to copy out of the young generation; in a typed array they cost it
// nothing. The operation object itself (multipart-operation.ts) is then a handful of fields.

/** The cells of a row; positions are absolute in the buffer named by the cell before them. */
export const enum Cell {
  /** The embedded request's head: request line, then headers up to the head's end. */
  Head,
  RequestStart,
  MethodEnd,
  UrlStart,
  UrlEnd,
  FieldsStart,
  HeadEnd,
  /** The MIME part head holding a non-empty Content-ID value, or -1. */
  PartHead,
  PartIdStart,
  PartIdEnd,
  /** The body's buffer, or -1 when the part has nothing after its blank line. */
  Body,
  BodyStart,
  BodyEnd,
  Width,
}

export class OperationPositions {
  /** The buffers the rows name, by number. */
  readonly buffers: Buffer[] = []
  private rows = 0

  /** @param cells room for the rows to come (it grows as needed). */
  constructor(public cells: Int32Array = new Int32Array(64 * Cell.Width)) {}

  /** Adds a row; returns the index of its first cell in `cells` (the array may be replaced by a larger one). */
  addRow(): number {
    const at = this.rows++ * Cell.Width
    this.ensureCells(at + Cell.Width)
    return at
  }

  /**
   * Buffer number `number`. Releasing a document empties its buffers (its bytes may serve another batch
   * then), and a row always names one: reading a released operation throws.
   */
  buffer(number: number): Buffer {
    const buffer = this.buffers[number]
    if (buffer === undefined) throw new Error('unreachable: an operation of a released batch document was read')
    return buffer
  }

  private ensureCells(length: number): void {
    if (length <= this.cells.length) return
    const larger = new Int32Array(Math.max(length, this.cells.length * 2))
    larger.set(this.cells)
    this.cells = larger
  }

  /** The number of `buffer` in `buffers`: consecutive operations mostly lie in the same slab. */
  bufferNumber(buffer: Buffer): number {
    const buffers = this.buffers
    const last = buffers.length - 1
    if (last >= 0 && buffers[last] === buffer) return last
    if (last >= 1 && buffers[last - 1] === buffer) return last - 1
    buffers.push(buffer)
    return last + 1
  }
}
