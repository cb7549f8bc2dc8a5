// A $batch request body from a list of operations, as OData 4.0 multipart or OData 4.01 JSON
// (service.md §2.3), for the loader, the load driver, the tests and the benchmarks: operations with the
// same `atomicityGroup`, one after the other, form one change set (multipart) or one atomicity group
// (JSON), the way a client writes them. Written here rather than taken from the service's intake so that
// the tools stay clients of the wire format alone.
import { randomUUID } from 'node:crypto'

export interface OperationSpec {
  readonly method: string
  /** Relative to the service root, or `$<id>/…`. */
  readonly url: string
  /** Header names as the client writes them. */
  readonly headers?: Readonly<Record<string, string>>
  /**
   * Multipart: a string or bytes are written as they are, any other value as JSON text.
   * JSON: the value of the `body` member (a string stays a string; bytes are base64url).
   */
  readonly body?: unknown
  /** Multipart: the Content-ID (none when absent); JSON: the `id` (`r<position>`, 1-based, when absent). */
  readonly id?: string
  readonly atomicityGroup?: string
  /** JSON only. */
  readonly dependsOn?: readonly string[]
}

export interface MultipartBuildOptions {
  /** Defaults to `batch_<counter>`. */
  readonly boundary?: string
  /** CRLF (the standard) by default; LF as Olingo's test files have it. */
  readonly lineEnding?: '\r\n' | '\n'
  /** Where a Content-ID goes: on the MIME part (OData 4.0) or among the embedded headers (Olingo V2). */
  readonly contentIdPlacement?: 'part' | 'request'
}

export interface BuiltBatch {
  readonly body: Buffer
  /** The Content-Type header of the `$batch` request. */
  readonly contentType: string
  /** Multipart only. */
  readonly boundary?: string
}

export type BatchFormat = 'json' | 'multipart'

/**
 * As the tools send a batch: every operation with a body and no Content-Type says `application/json`, and a
 * multipart body has a boundary no row's text can contain.
 */
export function buildBatchBody(operations: readonly OperationSpec[], format: BatchFormat): BuiltBatch {
  const typed = operations.map((operation) =>
    operation.body === undefined || hasHeader(operation.headers, 'content-type')
      ? operation
      : { ...operation, headers: { ...operation.headers, [format === 'json' ? 'content-type' : 'Content-Type']: 'application/json' } },
  )
  return format === 'json' ? buildJsonBatch(typed) : buildMultipartBatch(typed, { boundary: `batch_${randomUUID()}` })
}

let boundaryCounter = 0

export function buildMultipartBatch(operations: readonly OperationSpec[], options: MultipartBuildOptions = {}): BuiltBatch {
  const boundary = options.boundary ?? `batch_${(++boundaryCounter).toString(36)}_4b56-8c71-56071383e77b`
  const lineEnding = options.lineEnding ?? '\r\n'
  const placement = options.contentIdPlacement ?? 'part'
  const pieces: Buffer[] = []
  const write = (text: string): void => {
    pieces.push(Buffer.from(text, 'utf8'))
  }
  let changeSets = 0

  // Each part is followed by a line break that belongs to the next delimiter (RFC 2046 §5.1.1).
  const writeOperationPart = (operation: OperationSpec): void => {
    // A request line is split at blanks: a URL must be percent-encoded to stand in it.
    if (/\s/.test(operation.url)) throw new Error(`buildMultipartBatch: percent-encode the URL "${operation.url}"`)
    write(`Content-Type: application/http${lineEnding}Content-Transfer-Encoding: binary${lineEnding}`)
    if (operation.id !== undefined && placement === 'part') write(`Content-ID: ${operation.id}${lineEnding}`)
    write(`${lineEnding}${operation.method} ${operation.url} HTTP/1.1${lineEnding}`)
    const body = bodyBytes(operation.body)
    const headers = { ...operation.headers }
    if (operation.id !== undefined && placement === 'request') headers['Content-ID'] = operation.id
    if (body !== undefined && !hasHeader(headers, 'content-type')) {
      headers['Content-Type'] = Buffer.isBuffer(operation.body) || typeof operation.body === 'string' ? 'text/plain' : 'application/json'
    }
    for (const [name, value] of Object.entries(headers)) write(`${name}: ${value}${lineEnding}`)
    write(lineEnding)
    if (body !== undefined) pieces.push(body)
    write(lineEnding)
  }

  for (let index = 0; index < operations.length; ) {
    const group = operations[index]!.atomicityGroup
    write(`--${boundary}${lineEnding}`)
    if (group === undefined) {
      writeOperationPart(operations[index++]!)
      continue
    }
    const changeSetBoundary = `changeset_${++changeSets}_${boundary}`
    write(`Content-Type: multipart/mixed; boundary=${changeSetBoundary}${lineEnding}${lineEnding}`)
    while (index < operations.length && operations[index]!.atomicityGroup === group) {
      write(`--${changeSetBoundary}${lineEnding}`)
      writeOperationPart(operations[index++]!)
    }
    write(`--${changeSetBoundary}--${lineEnding}`)
  }
  write(`--${boundary}--${lineEnding}`)
  return { body: Buffer.concat(pieces), contentType: `multipart/mixed; boundary=${boundary}`, boundary }
}

export function buildJsonBatch(operations: readonly OperationSpec[]): BuiltBatch {
  const requests = operations.map((operation, index) => {
    const request: Record<string, unknown> = { id: operation.id ?? `r${index + 1}` }
    if (operation.atomicityGroup !== undefined) request.atomicityGroup = operation.atomicityGroup
    if (operation.dependsOn !== undefined) request.dependsOn = operation.dependsOn
    request.method = operation.method
    request.url = operation.url
    if (operation.headers !== undefined) request.headers = operation.headers
    if (operation.body !== undefined) request.body = Buffer.isBuffer(operation.body) ? operation.body.toString('base64url') : operation.body
    return request
  })
  return { body: Buffer.from(JSON.stringify({ requests }), 'utf8'), contentType: 'application/json' }
}

function hasHeader(headers: Readonly<Record<string, string>> | undefined, lowerCaseName: string): boolean {
  return headers !== undefined && Object.keys(headers).some((name) => name.toLowerCase() === lowerCaseName)
}

function bodyBytes(body: unknown): Buffer | undefined {
  if (body === undefined) return undefined
  if (Buffer.isBuffer(body)) return body
  return Buffer.from(typeof body === 'string' ? body : JSON.stringify(body), 'utf8')
}
