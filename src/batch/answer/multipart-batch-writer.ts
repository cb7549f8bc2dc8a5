// The multipart/mixed batch response (OData 4.0): `batchresponse_<uuid>` around the parts, change sets as
// nested `changesetresponse_<uuid>` parts, each operation an `application/http` part with its Content-ID
// echoed (decisions.md §7). Parts are written as their step completes, each step's with the next step's and
// the last with the end; a failed change set is answered by one error response in its place (service.md
// §4.4 rule 3).
import { randomUUID } from 'node:crypto'
import { statusLine } from '../../respond/status-line.js'
import type { ResponseSink } from '../../respond/response-sink.js'
import type { CollectedResponse } from '../execute/collecting-sink.js'
import type { BatchResultWriter, OperationOutcome } from '../execute/execute-batch.js'

const CRLF = '\r\n'

function httpPart(response: CollectedResponse, contentId: string | undefined): string {
  let text = `Content-Type: application/http${CRLF}Content-Transfer-Encoding: binary${CRLF}`
  if (contentId !== undefined) text += `Content-ID: ${contentId}${CRLF}`
  text += `${CRLF}HTTP/1.1 ${statusLine(response.status)}${CRLF}`
  const headers = response.headers
  for (const name in headers) text += `${name}: ${headers[name]}${CRLF}`
  if (response.body.length > 0) text += `Content-Length: ${Buffer.byteLength(response.body)}${CRLF}`
  return `${text}${CRLF}${response.body}`
}

export class MultipartBatchWriter implements BatchResultWriter {
  readonly boundary = `batchresponse_${randomUUID()}`
  private started = false
  /** The last part emitted, written with the next one or with the end: a batch of one step is one send. */
  private held: string | undefined

  constructor(
    private readonly sink: ResponseSink,
    private readonly headers: Readonly<Record<string, string>>,
  ) {}

  private emit(part: string): void {
    if (!this.started) {
      this.sink.begin(200, { ...this.headers, 'Content-Type': `multipart/mixed; boundary=${this.boundary}` })
      this.started = true
    }
    if (this.held !== undefined) this.sink.write(this.held)
    this.held = `--${this.boundary}${CRLF}${part}${CRLF}`
  }

  operation(outcome: OperationOutcome): void {
    this.emit(httpPart(outcome.response, outcome.planned.operation.id))
  }

  changeSet(_step: unknown, outcomes: readonly OperationOutcome[], failed: OperationOutcome | undefined): void {
    if (failed) {
      this.emit(httpPart(failed.response, failed.planned.operation.id))
      return
    }
    const boundary = `changesetresponse_${randomUUID()}`
    let text = `Content-Type: multipart/mixed; boundary=${boundary}${CRLF}${CRLF}`
    for (const outcome of outcomes) text += `--${boundary}${CRLF}${httpPart(outcome.response, outcome.planned.operation.id)}${CRLF}`
    text += `--${boundary}--`
    this.emit(text)
  }

  finish(): void {
    if (!this.started) this.sink.begin(200, { ...this.headers, 'Content-Type': `multipart/mixed; boundary=${this.boundary}` })
    this.sink.end(`${this.held ?? ''}--${this.boundary}--${CRLF}`)
  }
}
