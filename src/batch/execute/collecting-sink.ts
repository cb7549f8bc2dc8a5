// A ResponseSink that keeps one operation's response (status, headers, body) for the batch response.
// Handlers cannot tell it from the HTTP responder; it has no socket, so it is never full.
import { errorBody, ODataError } from '../../errors.js'
import { withoutUserinfoOf } from '../../log/redact-url.js'
import type { ResponseHeaders, ResponseSink } from '../../respond/response-sink.js'

export interface CollectedResponse {
  readonly status: number
  readonly headers: ResponseHeaders
  readonly body: string
  /** The ODataError code of an error answer, kept as a value for the request log (never read back from the body). */
  readonly errorCode?: string
}

export class CollectingSink implements ResponseSink {
  status = 0
  headers: Record<string, string> = {}
  /**
   * The body so far, grown by concatenation: V8 keeps a concatenation as a rope and copies it into one
   * string only when it is written out, where an array of chunks joined here would be copied once more.
   */
  private text = ''
  private finished = false
  private errorCode: string | undefined
  private readonly abortListeners: (() => void)[] = []

  constructor(
    private readonly outer: { readonly aborted: boolean },
    /** The operation's URL as sent: an error's message made from it is answered without its userinfo. */
    private readonly url = '',
  ) {}

  get aborted(): boolean {
    return this.outer.aborted
  }

  get headersSent(): boolean {
    return this.status !== 0
  }

  get done(): boolean {
    return this.finished
  }

  send(status: number, headers: ResponseHeaders, body?: string | Uint8Array): void {
    this.status = status
    this.headers = { ...headers }
    this.text = body === undefined ? '' : typeof body === 'string' ? body : Buffer.from(body).toString('utf8')
    this.finished = true
    this.errorCode = undefined
  }

  sendJson(status: number, body: string, headers: ResponseHeaders = {}): void {
    this.send(status, { 'Content-Type': 'application/json;odata.metadata=minimal;charset=utf-8', ...headers }, body)
  }

  sendError(error: ODataError): void {
    const shown = withoutUrlUserinfo(error, this.url)
    this.send(shown.status, { 'Content-Type': 'application/json;charset=utf-8', ...shown.headers }, JSON.stringify(errorBody(shown)))
    this.errorCode = shown.code
  }

  begin(status: number, headers: ResponseHeaders): void {
    this.status = status
    this.headers = { ...headers }
  }

  write(chunk: string): boolean {
    this.text += chunk
    return true
  }

  drained(): Promise<void> {
    return Promise.resolve()
  }

  end(chunk?: string): void {
    if (chunk) this.text += chunk
    this.finished = true
  }

  abort(): void {
    // A streamed read that failed half-way inside a batch: its part becomes an error.
    this.finished = true
    for (const listener of this.abortListeners) listener()
  }

  onAbort(listener: () => void): void {
    this.abortListeners.push(listener)
  }

  result(): CollectedResponse {
    const response = { status: this.status, headers: this.headers, body: this.text }
    return this.errorCode === undefined ? response : { ...response, errorCode: this.errorCode }
  }
}

/**
 * The error with the userinfo of the operation's URL masked in its message and target: messages quote the
 * URL's parts (an entity set's name, a key's literal), and an answer repeats no password the log masks.
 */
function withoutUrlUserinfo(error: ODataError, url: string): ODataError {
  if (!url.includes('@')) return error
  const message = withoutUserinfoOf(error.message, url)
  const target = error.target === undefined ? undefined : withoutUserinfoOf(error.target, url)
  if (message === error.message && target === error.target) return error
  return new ODataError(error.code, message, { target, details: error.details, headers: error.headers })
}

/** An operation's error answer; `url`, the operation's URL as sent, is kept out of its message. */
export function errorResponse(unmasked: ODataError, url = ''): CollectedResponse {
  const error = withoutUrlUserinfo(unmasked, url)
  return {
    status: error.status,
    headers: { 'Content-Type': 'application/json;charset=utf-8', ...error.headers },
    body: JSON.stringify(errorBody(error)),
    errorCode: error.code,
  }
}
