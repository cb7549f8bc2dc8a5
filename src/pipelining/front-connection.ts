// One client connection through the serialising front: the client's requests go to the service one at
// a time, each only after the answer to the one before it is complete, over one connection of the
// front's own. uWS answers a connection's requests in order only while each is answered before the next
// is parsed (docs/decisions.md, HTTP: pipelining); behind the front it never sees a second request early, whatever
// the client sent in one write.
//
// Framing only: heads are read whole (bounded), bodies are counted and forwarded as they arrive, never
// held, with backpressure both ways (the client is not read while the service's connection is full; the
// service's answer is not read while the client's connection is full). Bytes of the next request that
// arrive while an answer is pending are held, and the client is not read further until the answer is
// out, so a pipelining client holds at most one read of memory.
import type { Socket } from 'node:net'
import { ODataError, errorBody } from '../errors.js'
import { type BodyFraming, requestFraming, responseFraming, responseStatus } from './body-framing.js'
import { BodyTracker } from './body-tracker.js'
import { headDefect } from './head-defect.js'
import { headEnd } from './head-end.js'
import { asksToClose, type MessageHead, parseMessageHead } from './message-head.js'

const EMPTY = Buffer.alloc(0)
const HEAD_END = Buffer.from('\r\n\r\n')
const FORWARDED_FOR = /^\s*x-forwarded-for\s*:/i
/** How long a finished connection's remaining input is read and dropped before it is closed. */
const LINGER_MS = 2000
/** A response head from the service is never near this; past it the service's side is broken. */
const MAX_RESPONSE_HEAD_BYTES = 1024 * 1024

export interface FrontConnectionOptions {
  /** The longest request head (request line and headers) the front reads; longer is `431`. */
  readonly maxHeadBytes: number
  /** The client's address, sent to the service as the one `X-Forwarded-For`. */
  readonly clientAddress: string
}

export class FrontConnection {
  /** Client bytes not forwarded yet: a head being read, or the next request while an answer is pending. */
  private held: Buffer = EMPTY
  /** The body of the request being forwarded; undefined between requests. */
  private requestBody: BodyTracker | undefined
  /** A request that cannot be framed: whatever the client sends goes to the service, and it is the last. */
  private forwardingRest = false
  /** A request is out and its final answer is not complete yet. */
  private awaiting = false
  private requestMethod = ''
  /** No request after the current one: it asked to close, could not be framed, or was answered early. */
  private lastRequest = false
  private responseHead: Buffer = EMPTY
  private responseBody: BodyTracker | undefined
  private responseFramingKind: BodyFraming['kind'] = 'none'
  private upstreamFull = false
  private clientEnded = false
  private finished = false

  constructor(
    private readonly client: Socket,
    private readonly upstream: Socket,
    private readonly options: FrontConnectionOptions,
  ) {
    // Corked while one read is handled: the pieces it forwards leave in one write.
    client.on('data', (chunk: Buffer) => {
      // After the last answer the client's bytes are read only to be dropped (finish).
      if (this.finished) return
      this.held = this.held.length === 0 ? chunk : Buffer.concat([this.held, chunk])
      upstream.cork()
      this.pump()
      upstream.uncork()
    })
    client.on('end', () => this.onClientEnd())
    client.on('drain', () => upstream.resume())
    client.on('error', () => undefined)
    client.on('close', () => this.close())
    upstream.on('data', (chunk: Buffer) => {
      this.onUpstreamData(chunk)
      this.flushToClient()
    })
    upstream.on('drain', () => {
      this.upstreamFull = false
      this.updateFlow()
    })
    upstream.on('error', () => undefined)
    upstream.on('close', () => this.onUpstreamClose())
  }

  /**
   * No request is out: what an idle timeout may close. A head that stays half-sent counts as idle, so a
   * client cannot hold a connection by sending a head slowly.
   */
  get idle(): boolean {
    return !this.awaiting
  }

  /** Ends both connections now. */
  close(): void {
    this.finished = true
    this.client.destroy()
    this.upstream.destroy()
  }

  private pump(): void {
    while (!this.finished) {
      if (this.forwardingRest) {
        if (this.held.length > 0) this.toUpstream(this.held)
        this.held = EMPTY
        break
      }
      if (this.requestBody !== undefined) {
        if (this.held.length === 0) break
        const { used, done, malformed } = this.requestBody.track(this.held, this.forward)
        this.held = this.held.subarray(used)
        if (malformed) {
          // A chunk size that does not parse: the service (uWS) refuses it; it gets the bytes as sent.
          this.requestBody = undefined
          this.forwardingRest = true
          this.lastRequest = true
          continue
        }
        if (!done) break
        this.requestBody = undefined
        continue
      }
      // Between requests: the next one waits until the answer to the one before is out.
      if (this.awaiting) break
      if (this.lastRequest) {
        this.held = EMPTY
        break
      }
      // Empty lines before a request line are ignored (RFC 9112 §2.2).
      while (this.held.length >= 2 && this.held[0] === 0x0d && this.held[1] === 0x0a) this.held = this.held.subarray(2)
      const end = headEnd(this.held)
      if (end?.lineEnds === 'bare') {
        // Not a head the front can frame: uWS gets it as sent and answers it as without the front,
        // rather than the front waiting for a CRLF that will not come until the idle timeout.
        this.forwardUnframable()
        continue
      }
      if (end === undefined ? this.held.length > this.options.maxHeadBytes : end.next > this.options.maxHeadBytes) {
        this.refuseHead()
        break
      }
      if (end === undefined) break
      const headBytes = this.held.subarray(0, end.head)
      this.held = this.held.subarray(end.next)
      const defect = end.lineEnds === 'mixed' ? 'mixes line ends of CRLF and bare line feeds' : headDefect(headBytes)
      if (defect !== undefined) {
        this.refuseMalformedHead(defect)
        break
      }
      this.startRequest(headBytes)
    }
    if (this.clientEnded && !this.awaiting && !this.finished) this.finish()
    this.updateFlow()
  }

  private startRequest(headBytes: Buffer): void {
    const head = parseMessageHead(headBytes)
    const framing = requestFraming(head)
    this.requestMethod = head.startLine.slice(0, head.startLine.indexOf(' ')).toUpperCase()
    this.awaiting = true
    this.responseHead = EMPTY
    this.responseBody = undefined
    this.toUpstream(this.forwardedHead(head))
    if (framing.kind === 'unframable') {
      this.forwardingRest = true
      this.lastRequest = true
    } else if (framing.kind !== 'none') this.requestBody = new BodyTracker(framing)
    if (asksToClose(head)) this.lastRequest = true
  }

  /** What the client sent and will send goes to the service as it is; the request is the connection's last. */
  private forwardUnframable(): void {
    this.requestMethod = ''
    this.awaiting = true
    this.responseHead = EMPTY
    this.responseBody = undefined
    this.forwardingRest = true
    this.lastRequest = true
  }

  /**
   * The head as the client sent it, but with the client's address as the one `X-Forwarded-For`: a value
   * the client wrote is dropped, since the service trusts this header from the front alone.
   */
  private forwardedHead(head: MessageHead): Buffer {
    let text = head.startLine
    // Every line as sent, those that do not parse too (uWS refuses those itself, as without the front), but
    // any that names X-Forwarded-For, however spaced, so no parser behind can read the client's value.
    for (const line of head.lines) if (!FORWARDED_FOR.test(line)) text += `\r\n${line}`
    text += `\r\nX-Forwarded-For: ${this.options.clientAddress}\r\n\r\n`
    return Buffer.from(text, 'latin1')
  }

  private refuseHead(): void {
    this.answerAndFinish(
      '431 Request Header Fields Too Large',
      new ODataError('HeaderTooLarge', `The request head passed ${this.options.maxHeadBytes} bytes`),
    )
  }

  /** A head uWS would take without a word (head-defect.ts): answered here, then the connection ends. */
  private refuseMalformedHead(defect: string): void {
    this.answerAndFinish('400 Bad Request', new ODataError('BadRequest', `The request head ${defect}`))
  }

  /** The front's own answer to a request it does not forward; the connection's last. */
  private answerAndFinish(status: string, error: ODataError): void {
    const body = JSON.stringify(errorBody(error))
    this.flushToClient()
    this.client.write(
      `HTTP/1.1 ${status}\r\nContent-Type: application/json;charset=utf-8\r\nOData-Version: 4.0\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    )
    this.finish()
  }

  private onUpstreamData(chunk: Buffer): void {
    let piece = chunk
    while (piece.length > 0 && !this.finished) {
      if (!this.awaiting) {
        // The service answered with no request pending: the two sides no longer agree on the framing.
        this.close()
        return
      }
      if (this.responseBody === undefined) {
        this.responseHead = this.responseHead.length === 0 ? piece : Buffer.concat([this.responseHead, piece])
        const end = this.responseHead.indexOf(HEAD_END)
        if (end < 0) {
          if (this.responseHead.length > MAX_RESPONSE_HEAD_BYTES) this.close()
          return
        }
        const headBytes = this.responseHead.subarray(0, end + 4)
        piece = this.responseHead.subarray(end + 4)
        this.responseHead = EMPTY
        this.toClient(headBytes)
        const head = parseMessageHead(headBytes.subarray(0, end))
        const status = responseStatus(head)
        // 100 Continue (uWS sends it for `Expect: 100-continue`): the final answer follows.
        if (status >= 100 && status < 200) continue
        if (asksToClose(head)) this.lastRequest = true
        const framing = responseFraming(head, this.requestMethod)
        this.responseFramingKind = framing.kind
        this.responseBody = new BodyTracker(framing)
        if (this.responseBody.done) this.responseComplete()
        continue
      }
      const { used, done, malformed } = this.responseBody.track(piece)
      if (used > 0) this.toClient(piece.subarray(0, used))
      piece = piece.subarray(used)
      if (malformed) {
        this.close()
        return
      }
      if (done) this.responseComplete()
    }
  }

  private responseComplete(): void {
    this.awaiting = false
    this.responseBody = undefined
    // Answered before its body was all sent (a 413 by Content-Length): the rest of the body is not worth
    // reading and cannot be told from a next request by the service, so the connection ends here.
    if (this.lastRequest || this.requestBody !== undefined || this.forwardingRest) return this.finish()
    this.pump()
  }

  private onUpstreamClose(): void {
    if (this.finished) return
    if (this.awaiting && this.responseBody !== undefined && this.responseFramingKind === 'until-close') {
      this.awaiting = false
      return this.finish()
    }
    // Cut in the middle of an answer, or closed with none (uWS at a request it refuses that way): the
    // client sees what it would without the front. Closed between answers (uWS's idle timeout, a graceful
    // stop): the client's connection ends the same way.
    if (this.awaiting) this.close()
    else this.finish()
  }

  private onClientEnd(): void {
    this.clientEnded = true
    // A body cut short: the service learns it as it would without the front.
    if (this.requestBody !== undefined || this.forwardingRest) this.upstream.end()
    if (!this.awaiting) this.finish()
  }

  /**
   * The answer is out: the client's connection ends once it has been written, the service's now. A client
   * may still be sending (a body refused by its length, a pipeline after the last request): what it sends
   * is read and dropped for a while, since closing with unread bytes would make the system reset the
   * connection, and a reset can destroy the answer before the client reads it (RFC 9112 §9.6).
   */
  private finish(): void {
    if (this.finished) return
    this.finished = true
    this.held = EMPTY
    this.flushToClient()
    this.client.end()
    this.client.resume()
    setTimeout(() => this.client.destroy(), LINGER_MS).unref()
    this.upstream.destroy()
  }

  private readonly forward = (bytes: Buffer) => this.toUpstream(bytes)

  private toUpstream(bytes: Buffer): void {
    if (!this.upstream.write(bytes)) this.upstreamFull = true
  }

  /**
   * An answer's head and body usually arrive in one read and leave as they came: adjacent pieces of the same
   * read are joined back into one write (one system call, not one per piece).
   */
  private toClient(bytes: Buffer): void {
    const pending = this.pendingToClient
    if (pending !== undefined && pending.buffer === bytes.buffer && pending.byteOffset + pending.length === bytes.byteOffset) {
      this.pendingToClient = Buffer.from(pending.buffer, pending.byteOffset, pending.length + bytes.length)
      return
    }
    this.flushToClient()
    this.pendingToClient = bytes
  }

  private pendingToClient: Buffer | undefined

  private flushToClient(): void {
    const pending = this.pendingToClient
    if (pending === undefined) return
    this.pendingToClient = undefined
    if (!this.client.write(pending)) this.upstream.pause()
  }

  private updateFlow(): void {
    const sendingRequest = this.requestBody !== undefined || this.forwardingRest
    if (this.finished) return
    const hold = this.upstreamFull || (this.awaiting && !sendingRequest && this.held.length > 0)
    if (hold) this.client.pause()
    else if (this.client.isPaused()) this.client.resume()
  }
}
