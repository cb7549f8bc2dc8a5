// HTTP/1.1 pipelining from the client's side: requests written back to back on one connection (in one
// write, or cut at given offsets into writes some milliseconds apart), and the answers read off the byte
// stream in order (Content-Length or chunked bodies; no body
// for HEAD, 204 and 304). Resolves when `expected` answers are read, or when the server closes the
// connection or `deadlineMs` passes, with what was read, and whether the stream ended cleanly between two
// answers (`leftover` holds any bytes that are not a whole answer).
import net from 'node:net'

export interface PipelinedAnswer {
  readonly status: number
  readonly headers: ReadonlyMap<string, string>
  readonly body: string
}

export interface PipelinedResult {
  readonly answers: PipelinedAnswer[]
  readonly closed: boolean
  readonly leftover: string
}

/** Reads one whole answer at `at`, or undefined when the bytes so far do not hold one. */
function parseAnswer(bytes: Buffer, at: number, head: boolean): { answer: PipelinedAnswer; end: number } | undefined {
  const headEnd = bytes.indexOf('\r\n\r\n', at)
  if (headEnd < 0) return undefined
  const lines = bytes.subarray(at, headEnd).toString('latin1').split('\r\n')
  const status = Number(/^HTTP\/1\.1 (\d{3}) /.exec(lines[0]!)?.[1] ?? NaN)
  const headers = new Map<string, string>()
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':')
    headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim())
  }
  let cursor = headEnd + 4
  if (head || status === 204 || status === 304) return { answer: { status, headers, body: '' }, end: cursor }
  if (headers.get('transfer-encoding') === 'chunked') {
    const parts: Buffer[] = []
    for (;;) {
      const lineEnd = bytes.indexOf('\r\n', cursor)
      if (lineEnd < 0) return undefined
      const size = parseInt(bytes.subarray(cursor, lineEnd).toString('latin1'), 16)
      if (bytes.length < lineEnd + 2 + size + 2) return undefined
      parts.push(bytes.subarray(lineEnd + 2, lineEnd + 2 + size))
      cursor = lineEnd + 2 + size + 2
      if (size === 0) return { answer: { status, headers, body: Buffer.concat(parts).toString('utf8') }, end: cursor }
    }
  }
  const length = Number(headers.get('content-length') ?? 0)
  if (bytes.length < cursor + length) return undefined
  return { answer: { status, headers, body: bytes.subarray(cursor, cursor + length).toString('utf8') }, end: cursor + length }
}

export function pipelinedExchange(
  port: number,
  requests: readonly (string | Buffer)[],
  options: {
    heads?: readonly boolean[]
    deadlineMs?: number
    cuts?: readonly number[]
    gapMs?: number
    /** Called once every piece is written (a test releases a lock there, so every request arrived while the first waited). */
    afterWrites?: () => void
  } = {},
): Promise<PipelinedResult> {
  const bytes = Buffer.concat(requests.map((request) => (typeof request === 'string' ? Buffer.from(request) : request)))
  const offsets = [0, ...(options.cuts ?? []).filter((cut) => cut > 0 && cut < bytes.length).sort((a, b) => a - b), bytes.length]
  const pieces = offsets.slice(1).map((end, i) => bytes.subarray(offsets[i], end))
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', async () => {
      socket.setNoDelay(true)
      for (const [i, piece] of pieces.entries()) {
        if (i > 0) await new Promise((wait) => setTimeout(wait, options.gapMs ?? 5))
        if (settled) break
        socket.write(piece)
      }
      afterWrites()
    })
    let received = Buffer.alloc(0)
    const answers: PipelinedAnswer[] = []
    let consumed = 0
    let settled = false
    let writesDone = false
    // Also when the connection ends before every piece is written, so a lock released there never stays held.
    const afterWrites = () => {
      if (writesDone) return
      writesDone = true
      options.afterWrites?.()
    }
    const finish = (closed: boolean) => {
      if (settled) return
      settled = true
      afterWrites()
      clearTimeout(timer)
      socket.destroy()
      resolve({ answers, closed, leftover: received.subarray(consumed).toString('latin1') })
    }
    const timer = setTimeout(() => finish(false), options.deadlineMs ?? 10_000)
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk])
      for (;;) {
        const parsed = parseAnswer(received, consumed, options.heads?.[answers.length] ?? false)
        if (!parsed) break
        answers.push(parsed.answer)
        consumed = parsed.end
      }
      if (answers.length >= requests.length) finish(false)
    })
    socket.on('error', () => undefined)
    socket.on('close', () => finish(true))
  })
}
