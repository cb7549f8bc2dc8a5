// Writes one HTTP response to a uWS socket, whole or streamed, with backpressure.
//
// uWS rules this class keeps in one place:
// - after `onAborted` fires the response object must not be touched again (`aborted` guards every call);
// - writes from outside the request callback are wrapped in `cork` so headers and body leave in one packet;
// - a streamed response's status and headers wait for its first chunk (or its end) and leave in the same
//   `cork`: each cork is a send to the socket of its own, and a send costs more than the bytes it carries;
// - `write` returning false means the chunk was queued but the socket is full: the producer must wait
//   for `onWritable` before writing more, so a slow reader holds the query, not the memory.
// After the status line is out, a failure can no longer become an error body: `abort()` closes the socket
// so the client sees a truncated response instead of a well-formed wrong one.
import type { HttpResponse } from 'uWebSockets.js'
import { errorBody, type ODataError } from '../errors.js'
import { statusLine } from '../respond/status-line.js'

export type Headers = Readonly<Record<string, string>>

/** Every response carries these (OData-Version per the OData protocol, §8.1.5). */
const COMMON_HEADERS: Headers = { 'OData-Version': '4.0' }

export interface CloseOptions {
  /** The connection ends after this answer. */
  readonly closeConnection?: boolean
  /** The request's socket was paused (`res.pause()`): uWS reads, and so parses, nothing more of it. */
  readonly paused?: boolean
}

export class Responder {
  aborted = false
  private started = false
  private finished = false
  private writableWaiter: (() => void) | undefined
  /** A streamed response's status and headers, given to `begin` and not yet written. */
  private pendingHead: { readonly status: number; readonly headers: Headers } | undefined
  private readonly abortListeners: (() => void)[] = []
  private readonly doneListeners: (() => void)[] = []
  /** The status the response was sent with, for the request log. */
  status = 0
  /** A HEAD request: status and headers as for GET, never a body. */
  headOnly = false
  /** Headers every answer to this request carries besides its own (CORS, src/http/cors.ts). */
  extraHeaders: Headers | undefined
  /**
   * The server listens behind the pipelining front (src/pipelining): a connection uWS stopped reading is closed
   * by the front once the answer is through, with the lingering close a client still sending needs.
   */
  behindFront = false

  constructor(private readonly res: HttpResponse) {
    res.onAborted(() => {
      this.aborted = true
      this.finished = true
      const waiter = this.writableWaiter
      this.writableWaiter = undefined
      waiter?.()
      for (const listener of this.abortListeners) listener()
      this.notifyDone()
    })
  }

  get headersSent(): boolean {
    return this.started
  }

  get done(): boolean {
    return this.finished
  }

  /** Called once when the client goes away (to stop a query and free its connection). */
  onAbort(listener: () => void): void {
    this.abortListeners.push(listener)
  }

  /**
   * Called once when the response is complete, closed or abandoned by the client: what a graceful stop
   * waits for and what the metrics count (src/http/in-flight.ts, src/metrics).
   */
  onDone(listener: () => void): void {
    if (this.doneNotified) listener()
    else this.doneListeners.push(listener)
  }

  private doneNotified = false

  private notifyDone(): void {
    if (this.doneNotified) return
    this.doneNotified = true
    for (const listener of this.doneListeners.splice(0)) listener()
  }

  private writeHead(status: number, headers: Headers): void {
    this.res.writeStatus(statusLine(status))
    for (const name in COMMON_HEADERS) this.res.writeHeader(name, COMMON_HEADERS[name]!)
    for (const name in headers) this.res.writeHeader(name, headers[name]!)
    if (this.extraHeaders !== undefined) for (const name in this.extraHeaders) this.res.writeHeader(name, this.extraHeaders[name]!)
    this.started = true
    this.status = status
  }

  /** A whole response in one go. `body` undefined sends no body (204, HEAD). */
  send(status: number, headers: Headers, body?: string | Uint8Array, options: CloseOptions = {}): void {
    if (this.finished) return
    this.finished = true
    // uWS closes at once: the front, still writing the body it is forwarding, would fail its next write, and
    // Node destroys a socket whose write failed before it reads the answer waiting in it. So behind the
    // front uWS leaves the paused connection open, says `Connection: close`, and the front ends both sides.
    const closeByFront = options.closeConnection === true && options.paused === true && this.behindFront
    if (closeByFront) options = {}
    this.res.cork(() => {
      this.writeHead(status, closeByFront ? { ...headers, Connection: 'close' } : headers)
      // No body (204): uWS writes no Content-Length when called without arguments; passing `undefined`
      // would be read as a length.
      if (body === undefined) options.closeConnection ? this.res.end('', true) : this.res.endWithoutBody()
      else if (this.headOnly)
        this.res.endWithoutBody(typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength, options.closeConnection)
      else this.res.end(body, options.closeConnection)
    })
    this.notifyDone()
  }

  sendJson(status: number, body: string, headers: Headers = {}): void {
    this.send(
      status,
      { 'Content-Type': 'application/json;odata.metadata=minimal;odata.streaming=true;IEEE754Compatible=false;charset=utf-8', ...headers },
      body,
    )
  }

  /** The one error writer: the body of decisions.md §4, headers the error carries (Allow, Retry-After, …). */
  sendError(error: ODataError, options: CloseOptions = {}): void {
    if (this.started) {
      this.abort()
      return
    }
    this.send(
      error.status,
      { 'Content-Type': 'application/json;charset=utf-8', ...error.headers },
      JSON.stringify(errorBody(error)),
      options,
    )
  }

  /**
   * Starts a streamed response: from here on the status is decided (an error can only abort), but the
   * head is written with the first chunk or the end, in one send.
   */
  begin(status: number, headers: Headers): void {
    if (this.finished || this.started) return
    this.started = true
    this.status = status
    this.pendingHead = { status, headers }
  }

  /** Inside a cork: the head that `begin` left to write. */
  private writePendingHead(): void {
    const head = this.pendingHead
    if (head === undefined) return
    this.pendingHead = undefined
    this.writeHead(head.status, head.headers)
  }

  /** Writes a chunk; false means the socket is full: await `drained()` before the next write. */
  write(chunk: string | Uint8Array): boolean {
    if (this.finished) return false
    if (this.headOnly) return true
    let ok = true
    this.res.cork(() => {
      this.writePendingHead()
      ok = this.res.write(chunk)
    })
    return ok
  }

  /** Resolves when the socket can take more (or the client went away: check `aborted`). */
  drained(): Promise<void> {
    if (this.finished) return Promise.resolve()
    return new Promise((resolve) => {
      this.writableWaiter = resolve
      this.res.onWritable(() => {
        const waiter = this.writableWaiter
        this.writableWaiter = undefined
        waiter?.()
        return true
      })
    })
  }

  end(chunk?: string | Uint8Array): void {
    if (this.finished) return
    this.finished = true
    this.res.cork(() => {
      // A response begun and ended without a chunk between leaves whole, with a Content-Length.
      this.writePendingHead()
      if (this.headOnly) this.res.endWithoutBody()
      else this.res.end(chunk ?? '')
    })
    this.notifyDone()
  }

  /** Closes the connection: the only honest answer once a streamed response has failed half-way. */
  abort(): void {
    if (this.finished) return
    this.finished = true
    this.res.close()
    this.notifyDone()
  }
}
