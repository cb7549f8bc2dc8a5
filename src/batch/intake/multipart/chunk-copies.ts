// The copies of the pushed chunks that a multipart document points into.
//
// A pushed chunk is valid only during the push (a uWS ArrayBuffer), so whatever the document keeps
// must be copied. Copying every chunk once, into a slab, and handing out views of the slab costs one
// copy per chunk instead of one allocation per body and per header string; and since consecutive
// chunks land next to each other in a slab, a head or body that spans chunks is still one range of
// one slab. Only a head or body that spans two slabs has to be joined (delimiter-scanner.ts and the
// parsers tell by comparing buffers and positions).
//
// Slabs grow with the body (64 KB, then the size received so far, up to 1 MB) and are never larger
// than what `maxBytes` still allows: a small batch costs a small slab, a large one a few allocations,
// and the memory held stays close to the bytes received.

const FIRST_SLAB_BYTES = 64 * 1024
const LARGEST_SLAB_BYTES = 1024 * 1024

export class ChunkCopies {
  private slab: Buffer | undefined
  private fill = 0
  /** Bytes copied into slabs so far. */
  private copied = 0

  /** The range `append` copied to last: `slab[start, end)`. */
  lastSlab: Buffer = Buffer.alloc(0)
  lastStart = 0
  lastEnd = 0

  constructor(private readonly maxBytes: number) {}

  /**
   * Copies `chunk[from, …)` into the current slab, as much as it holds, and sets `lastSlab`,
   * `lastStart` and `lastEnd` to where it went. Returns the position in `chunk` after what was copied;
   * call again while that is before the chunk's end.
   */
  append(chunk: Buffer, from: number): number {
    let slab = this.slab
    if (slab === undefined || this.fill === slab.length) {
      const wanted = Math.max(FIRST_SLAB_BYTES, this.copied, chunk.length - from)
      const allowed = Math.max(this.maxBytes - this.copied, chunk.length - from)
      slab = this.slab = Buffer.allocUnsafeSlow(Math.min(wanted, LARGEST_SLAB_BYTES, allowed))
      this.fill = 0
    }
    const length = Math.min(chunk.length - from, slab.length - this.fill)
    slab.set(from === 0 && length === chunk.length ? chunk : chunk.subarray(from, from + length), this.fill)
    this.lastSlab = slab
    this.lastStart = this.fill
    this.fill += length
    this.lastEnd = this.fill
    this.copied += length
    return from + length
  }

  /** Nothing more will be kept: the current slab goes with the document (the ranges handed out stay valid). */
  release(): void {
    this.slab = undefined
    this.lastSlab = Buffer.alloc(0)
  }
}
