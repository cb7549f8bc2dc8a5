// Where a handler writes its answer. The HTTP responder implements it for single requests; `$batch`
// implements it to collect each operation's response. Handlers never know which one they write to,
// which is what makes a batch operation and a single request the same thing (docs/architecture.md).
import type { ODataError } from '../errors.js'

export type ResponseHeaders = Readonly<Record<string, string>>

export interface ResponseSink {
  /** True once the client is gone: producers stop and release what they hold. */
  readonly aborted: boolean
  /** True once the status line has left (an error can then only abort). */
  readonly headersSent: boolean
  send(status: number, headers: ResponseHeaders, body?: string | Uint8Array): void
  sendJson(status: number, body: string, headers?: ResponseHeaders): void
  sendError(error: ODataError): void
  /** Streaming: status and headers first, then chunks with backpressure, then end. */
  begin(status: number, headers: ResponseHeaders): void
  write(chunk: string): boolean
  drained(): Promise<void>
  end(chunk?: string): void
  abort(): void
  onAbort(listener: () => void): void
}
