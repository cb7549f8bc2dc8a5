// A buffer that answers' bodies are read into, kept from one answer to the next. The export reads pages
// of several megabytes; a fresh buffer per page made V8 count each page as new external memory and run a
// full garbage collection every page or two (about a fifth of the tool's CPU over a million rows,
// docs/export.md). A body read here is valid until the next one is read into the same buffer.
//
// The body's chunks are taken as `data` events, each copied here as it arrives: an async iterator over
// the stream reads whatever has piled up since its last turn as one buffer, which the stream first
// concatenates from its chunks, a copy of every page more and a new large buffer each time (the
// stream's `fromList`, the largest part of the tool's CPU after the row scan, docs/performance.md).
import type { Readable } from 'node:stream'

/** Never less than this, so that small answers do not grow it step by step. */
const INITIAL_BYTES = 1 << 20

export class ReusableBody {
  private buffer = Buffer.allocUnsafe(0)

  /** Reads the whole body into the buffer (grown when it is too small) and returns it as a view of it. */
  fill(body: Readable): Promise<Buffer> {
    return new Promise((resolve, reject) => {
      let length = 0
      body.on('data', (chunk: Buffer) => {
        if (length + chunk.length > this.buffer.length) {
          const grown = Buffer.allocUnsafe(Math.max(2 * this.buffer.length, length + chunk.length, INITIAL_BYTES))
          this.buffer.copy(grown, 0, 0, length)
          this.buffer = grown
        }
        this.buffer.set(chunk, length)
        length += chunk.length
      })
      body.once('end', () => resolve(this.buffer.subarray(0, length)))
      body.once('error', reject)
    })
  }
}
