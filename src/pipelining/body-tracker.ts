// Counts a message body off the byte stream by its framing, so the front knows which bytes are this
// message's and where the next one begins; the bytes themselves pass through untouched.
import type { BodyFraming } from './body-framing.js'
import { ChunkedScanner } from './chunked-scanner.js'

export interface TrackResult {
  /** How many bytes from the start of the piece belong to the body. */
  readonly used: number
  readonly done: boolean
  /** Chunked framing that does not parse: the bytes from `used` on cannot be framed. */
  readonly malformed: boolean
}

export class BodyTracker {
  private remaining: number
  private readonly chunked: ChunkedScanner | undefined

  constructor(private readonly framing: BodyFraming) {
    this.remaining = framing.kind === 'length' ? framing.length : 0
    this.chunked = framing.kind === 'chunked' ? new ChunkedScanner() : undefined
  }

  get done(): boolean {
    switch (this.framing.kind) {
      case 'length':
        return this.remaining === 0
      case 'chunked':
        return this.chunked!.done
      case 'none':
        return true
      default:
        return false
    }
  }

  /**
   * `emit`, when given, receives the bytes to forward: a chunked body in its plain form (chunked-scanner.ts),
   * any other as it came. Without it the caller forwards the `used` bytes as they came.
   */
  track(piece: Buffer, emit?: (bytes: Buffer) => void): TrackResult {
    switch (this.framing.kind) {
      case 'length': {
        const used = Math.min(this.remaining, piece.length)
        if (used > 0) emit?.(piece.subarray(0, used))
        this.remaining -= used
        return { used, done: this.remaining === 0, malformed: false }
      }
      case 'chunked': {
        const { used, done } = this.chunked!.scan(piece, emit)
        return { used, done, malformed: this.chunked!.malformed }
      }
      case 'none':
        return { used: 0, done: true, malformed: false }
      default:
        // Until the connection closes (a response without a length), or a request that cannot be
        // framed: everything that comes belongs to it.
        emit?.(piece)
        return { used: piece.length, done: false, malformed: false }
    }
  }
}
