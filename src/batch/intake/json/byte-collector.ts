// Copies the ranges of one JSON request item out of the passing chunks and joins them once at the end.
//
// A chunk is valid only while it is being pushed, so every byte of an item that spans chunks is copied
// once (and joined once at its end); an item that lies within one chunk (the usual case for 64 KB chunks)
// is not copied at all: the scanner hands over its place in that chunk (`holdsBytes` is false).

export class ByteCollector {
  private first: Buffer | undefined
  private more: Buffer[] | undefined
  private length = 0

  /** `retained.retainedBytes` grows with every copy; whoever takes the bytes accounts for their release. */
  constructor(private readonly retained: { retainedBytes: number }) {}

  append(data: Buffer, start: number, end: number): void {
    const length = end - start
    if (length <= 0) return
    const copy = Buffer.allocUnsafe(length)
    data.copy(copy, 0, start, end)
    if (this.first === undefined) this.first = copy
    else (this.more ??= []).push(copy)
    this.length += length
    this.retained.retainedBytes += length
  }

  /** Whether bytes of earlier chunks are held (a text that spans chunks); if not, the text lies in one chunk. */
  get holdsBytes(): boolean {
    return this.first !== undefined
  }

  /** The bytes collected followed by `data[start, end)`, joined, and a fresh start. */
  takeWith(data: Buffer, start: number, end: number): Buffer {
    this.append(data, start, end)
    return this.take() ?? Buffer.alloc(0)
  }

  /** The bytes collected (undefined when none), and a fresh start. */
  take(): Buffer | undefined {
    const first = this.first
    const more = this.more
    const result = more === undefined ? first : Buffer.concat([first!, ...more], this.length)
    this.first = undefined
    this.more = undefined
    this.length = 0
    return result
  }
}
