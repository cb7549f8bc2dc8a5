// A $batch request body from a list of operations, as OData 4.01 JSON or OData 4.0 multipart
// (service.md §2.3): operations sharing an `atomicityGroup` form one change set. Written here rather
// than taken from the service's intake so that the tools stay clients of the wire format alone.
import { randomUUID } from 'node:crypto'

export interface BatchOperation {
  readonly id: string
  readonly method: string
  /** Relative to the service root, or `$<id>/…`. */
  readonly url: string
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: unknown
  readonly atomicityGroup?: string
}

export type BatchFormat = 'json' | 'multipart'

export interface BatchBody {
  readonly contentType: string
  readonly body: Buffer
}

export function buildBatchBody(operations: readonly BatchOperation[], format: BatchFormat): BatchBody {
  return format === 'json' ? jsonBatch(operations) : multipartBatch(operations)
}

function jsonBatch(operations: readonly BatchOperation[]): BatchBody {
  const requests = operations.map((op) => {
    const item: Record<string, unknown> = { id: op.id, method: op.method, url: op.url }
    if (op.atomicityGroup !== undefined) item.atomicityGroup = op.atomicityGroup
    const headers: Record<string, string> = { ...(op.headers ?? {}) }
    if (op.body !== undefined) headers['content-type'] ??= 'application/json'
    if (Object.keys(headers).length > 0) item.headers = headers
    if (op.body !== undefined) item.body = op.body
    return item
  })
  return { contentType: 'application/json', body: Buffer.from(JSON.stringify({ requests })) }
}

const CRLF = '\r\n'

function httpPart(op: BatchOperation): string {
  let text = `Content-Type: application/http${CRLF}Content-Transfer-Encoding: binary${CRLF}Content-ID: ${op.id}${CRLF}${CRLF}`
  text += `${op.method} ${op.url} HTTP/1.1${CRLF}`
  for (const [name, value] of Object.entries(op.headers ?? {})) text += `${name}: ${value}${CRLF}`
  if (op.body === undefined) return `${text}${CRLF}`
  const json = JSON.stringify(op.body)
  if (!op.headers || !Object.keys(op.headers).some((h) => h.toLowerCase() === 'content-type'))
    text += `Content-Type: application/json${CRLF}`
  return `${text}${CRLF}${json}${CRLF}`
}

function multipartBatch(operations: readonly BatchOperation[]): BatchBody {
  const boundary = `batch_${randomUUID()}`
  let text = ''
  for (let i = 0; i < operations.length; ) {
    const group = operations[i]!.atomicityGroup
    if (group === undefined) {
      text += `--${boundary}${CRLF}${httpPart(operations[i]!)}`
      i++
      continue
    }
    const changeSet = `changeset_${randomUUID()}`
    text += `--${boundary}${CRLF}Content-Type: multipart/mixed; boundary=${changeSet}${CRLF}${CRLF}`
    while (i < operations.length && operations[i]!.atomicityGroup === group) {
      text += `--${changeSet}${CRLF}${httpPart(operations[i]!)}`
      i++
    }
    text += `--${changeSet}--${CRLF}`
  }
  text += `--${boundary}--${CRLF}`
  return { contentType: `multipart/mixed; boundary=${boundary}`, body: Buffer.from(text) }
}
