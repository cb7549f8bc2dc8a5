// The operations' answers in a $batch response, JSON (`{"responses": […]}`) or multipart (an
// application/http part per operation, Content-ID echoed; a failed change set answered by one part in
// its place, service.md §4.4 rule 3). Only what a client acts on: id, status, headers, body, and the
// change set or atomicity group an answer stands in.
export interface OperationAnswer {
  readonly id: string | undefined
  /** The atomicity group (JSON) or the change set's boundary (multipart) the answer belongs to; none for an answer alone. */
  readonly group: string | undefined
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
  /** The parsed JSON body, when there is one (the raw text when it is not JSON). */
  readonly body: unknown
}

/** A member of a parsed JSON value (`memberOf(answer.body, 'error')`); undefined when the value is no object. */
export function memberOf(value: unknown, name: string): unknown {
  return typeof value === 'object' && value !== null ? (value as Record<string, unknown>)[name] : undefined
}

export function readBatchAnswer(contentType: string, body: Buffer): OperationAnswer[] {
  if (contentType.startsWith('application/json')) {
    const parsed = JSON.parse(body.toString('utf8')) as {
      responses?: { id?: string; atomicityGroup?: string; status: number; headers?: Record<string, string>; body?: unknown }[]
    }
    return (parsed.responses ?? []).map((r) => ({
      id: r.id,
      group: r.atomicityGroup,
      status: r.status,
      headers: lowerCase(r.headers ?? {}),
      body: r.body,
    }))
  }
  return readMultipart(body.toString('utf8'))
}

function lowerCase(headers: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [name, value] of Object.entries(headers)) out[name.toLowerCase()] = value
  return out
}

/** Every application/http part, nested change sets included, in order. */
function readMultipart(text: string): OperationAnswer[] {
  const answers: OperationAnswer[] = []
  const changeSets = changeSetSpans(text)
  const partHead =
    /Content-Type: application\/http\r?\n((?:[^\r\n]+\r?\n)*?)\r?\nHTTP\/1\.1 (\d{3})[^\r\n]*\r?\n((?:[^\r\n]+\r?\n)*?)\r?\n/gi
  let match: RegExpExecArray | null
  while ((match = partHead.exec(text)) !== null) {
    const partHeaders = headerLines(match[1]!)
    const headers = headerLines(match[3]!)
    const start = partHead.lastIndex
    const end = text.indexOf('\r\n--', start)
    const raw = text.slice(start, end < 0 ? text.length : end).trim()
    let parsed: unknown
    if (raw !== '') {
      try {
        parsed = JSON.parse(raw)
      } catch {
        parsed = raw
      }
    }
    const group = changeSets.find((span) => span.start < match!.index && match!.index < span.end)?.boundary
    answers.push({ id: partHeaders['content-id'], group, status: Number(match[2]), headers, body: parsed })
  }
  return answers
}

/** Where each nested change set stands: from the part that opens it to its close delimiter. */
function changeSetSpans(text: string): { boundary: string; start: number; end: number }[] {
  const spans: { boundary: string; start: number; end: number }[] = []
  const nested = /Content-Type: multipart\/mixed;\s*boundary=("?)([^";\r\n]+)\1/gi
  let match: RegExpExecArray | null
  while ((match = nested.exec(text)) !== null) {
    const boundary = match[2]!
    const close = text.indexOf(`--${boundary}--`, nested.lastIndex)
    spans.push({ boundary, start: match.index, end: close < 0 ? text.length : close })
  }
  return spans
}

function headerLines(block: string): Record<string, string> {
  const headers: Record<string, string> = {}
  for (const line of block.split(/\r?\n/)) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim()
  }
  return headers
}
