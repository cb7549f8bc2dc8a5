// Finds where a chunked body ends (RFC 9112 §7.1): the front needs to know which bytes still belong to the
// message. A byte state machine fed piece by piece, so a chunk-size line, a chunk or the trailer may be
// split anywhere between packets. Given an `emit`, it also writes the body out again in the plainest form
// of the coding: chunk extensions and trailer fields dropped (RFC 9112 §7.1.1 lets a recipient ignore the
// one, RFC 9110 §6.5.1 discard the other). uWS parses neither: it refuses an extension with 400 and reads a
// trailer field as the next request, which is a request the front never framed.
// Bounds: a chunk-size line (with its extensions) and the trailer section are limited, so a peer cannot
// make the front hold an unbounded line; the chunk data itself is only counted, never held.

const MAX_SIZE_LINE_BYTES = 4096
const MAX_TRAILER_BYTES = 64 * 1024
const CR = 0x0d
const LF = 0x0a
const CRLF = Buffer.from('\r\n', 'latin1')
const LAST_CHUNK = Buffer.from('0\r\n\r\n', 'latin1')

type State = 'size' | 'extension' | 'size-lf' | 'data' | 'data-cr' | 'data-lf' | 'trailer-line' | 'trailer-lf' | 'done'

export interface ScanResult {
  /** How many bytes from the start of the piece belong to the body. */
  readonly used: number
  /** The body's last byte was among them. */
  readonly done: boolean
}

export class ChunkedScanner {
  private state: State = 'size'
  private size = 0
  private sizeDigits = 0
  private lineBytes = 0
  private trailerBytes = 0
  private lineEmpty = true
  /** Set when the bytes are not chunked framing: the rest of the connection cannot be framed. */
  malformed = false

  get done(): boolean {
    return this.state === 'done'
  }

  /**
   * Consumes a piece; stops at the end of the body. On malformed framing `malformed` is set and `used` is
   * where it was found. `emit`, when given, receives the body in its plain form (chunk data as subarrays).
   */
  scan(piece: Buffer, emit?: (bytes: Buffer) => void): ScanResult {
    let at = 0
    while (at < piece.length && this.state !== 'done' && !this.malformed) {
      const byte = piece[at]!
      switch (this.state) {
        case 'size': {
          const digit = hexValue(byte)
          if (digit >= 0) {
            // More than 13 hex digits is past 2^52: no real body, and beyond exact integers.
            if (++this.sizeDigits > 13) return this.fail(at)
            this.size = this.size * 16 + digit
          } else if (this.sizeDigits === 0) return this.fail(at)
          else if (byte === CR) this.state = 'size-lf'
          else if (byte === 0x3b || byte === 0x20 || byte === 0x09) this.state = 'extension'
          else return this.fail(at)
          if (++this.lineBytes > MAX_SIZE_LINE_BYTES) return this.fail(at)
          at++
          break
        }
        case 'extension':
          if (byte === CR) this.state = 'size-lf'
          else if (byte === LF) return this.fail(at)
          if (++this.lineBytes > MAX_SIZE_LINE_BYTES) return this.fail(at)
          at++
          break
        case 'size-lf':
          if (byte !== LF) return this.fail(at)
          at++
          // The last chunk leaves whole with the blank line after its (dropped) trailer: one piece, never split.
          if (this.size > 0) emit?.(Buffer.from(`${this.size.toString(16)}\r\n`, 'latin1'))
          if (this.size === 0) {
            this.state = 'trailer-line'
            this.lineEmpty = true
          } else this.state = 'data'
          break
        case 'data': {
          const take = Math.min(this.size, piece.length - at)
          emit?.(piece.subarray(at, at + take))
          this.size -= take
          at += take
          if (this.size === 0) this.state = 'data-cr'
          break
        }
        case 'data-cr':
          if (byte !== CR) return this.fail(at)
          this.state = 'data-lf'
          at++
          break
        case 'data-lf':
          if (byte !== LF) return this.fail(at)
          emit?.(CRLF)
          this.state = 'size'
          this.sizeDigits = 0
          this.lineBytes = 0
          at++
          break
        case 'trailer-line':
          if (++this.trailerBytes > MAX_TRAILER_BYTES) return this.fail(at)
          if (byte === CR) this.state = 'trailer-lf'
          else if (byte === LF) return this.fail(at)
          else this.lineEmpty = false
          at++
          break
        case 'trailer-lf':
          if (byte !== LF) return this.fail(at)
          at++
          if (this.lineEmpty) {
            this.state = 'done'
            emit?.(LAST_CHUNK)
          } else {
            this.state = 'trailer-line'
            this.lineEmpty = true
          }
          break
      }
    }
    return { used: at, done: this.state === 'done' }
  }

  private fail(at: number): ScanResult {
    this.malformed = true
    return { used: at, done: false }
  }
}

function hexValue(byte: number): number {
  if (byte >= 0x30 && byte <= 0x39) return byte - 0x30
  if (byte >= 0x61 && byte <= 0x66) return byte - 0x57
  if (byte >= 0x41 && byte <= 0x46) return byte - 0x37
  return -1
}
