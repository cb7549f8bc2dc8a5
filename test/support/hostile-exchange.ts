// The hostile-input cases of protocol/hostile/ (README there): each a request as it goes on the wire, sent
// over a raw socket so that nothing normalises it, and the answers read back message by message (a status
// line inside a body is not an answer). Used by the standing suite (test/http/hostile-input.test.ts, both
// listeners) and by its seeded mutations (test/http/hostile-fuzz.test.ts).
import { readdirSync, readFileSync } from 'node:fs'
import net from 'node:net'
import { join } from 'node:path'
import { startTestService, type TestService } from './test-service.js'

export interface HostileExpectation {
  /** The first answer's status, or any of a list. */
  readonly status: number | readonly number[]
  /** The error code of the first answer's JSON body. */
  readonly code?: string
  /** How many answers the connection gives (default: at least one). */
  readonly answers?: number
  /** The server closes the connection after its answer. */
  readonly closed?: boolean
  /** Texts the answers hold. */
  readonly contains?: readonly string[]
  /** Texts no answer holds (a password, a token). */
  readonly absent?: readonly string[]
}

export interface HostileCase {
  readonly file: string
  readonly description: string
  /** The bytes to send, as text: `${port}`, `${basic}`, `${readerBasic}` and `${length}` (the body's bytes) are filled in. */
  readonly send: string
  /** Spaces appended to the body (Content-Length counts them), for bodies too large to write out. */
  readonly bodyFill?: number
  /** Chunks of spaces, this many bytes in all, then the last chunk: a chunked body too large to write out. */
  readonly chunkedFill?: number
  /** The client shuts down its sending side once the request is out. */
  readonly halfClose?: boolean
  /** The listeners the case is replayed against (default both: `uws` and `front`). */
  readonly listeners?: readonly ('uws' | 'front')[]
  readonly expect: HostileExpectation
  /** Read back once the exchange is over (the log is written in the background: asked again until it holds). */
  readonly database?: readonly { readonly sql: string; readonly rows: readonly Record<string, unknown>[] }[]
}

const KNOWN = new Set(['description', 'send', 'bodyFill', 'chunkedFill', 'halfClose', 'listeners', 'expect', 'database'])

export function loadHostileCases(directory = 'protocol/hostile'): HostileCase[] {
  return readdirSync(directory)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => {
      const data = JSON.parse(readFileSync(join(directory, name), 'utf8')) as Record<string, unknown>
      for (const key of Object.keys(data)) if (!KNOWN.has(key)) throw new Error(`${name}: unknown field ${key}`)
      return { file: name, ...data } as unknown as HostileCase
    })
}

/** Both listeners, each over a database of its own: uWS alone, and uWS through the pipelining front. */
export async function startBothListeners(
  name: string,
): Promise<{ readonly uws: TestService; readonly front: TestService; close(): Promise<void> }> {
  const uws = await startTestService(`${name}_uws`)
  const front = await startTestService(`${name}_front`, { pipelining: 'serialize' })
  return {
    uws,
    front,
    async close() {
      await uws.close()
      await front.close()
    },
  }
}

export interface HostileVariables {
  readonly port: number
  readonly basic: string
  readonly readerBasic: string
}

/** The bytes of a case: head, body, and the fill (written in pieces, never held whole). */
export function hostileBytes(
  hostile: HostileCase,
  variables: HostileVariables,
): { readonly message: Buffer; readonly fill: number; readonly chunked: boolean } {
  let text = hostile.send
    .replaceAll('${port}', String(variables.port))
    .replaceAll('${basic}', variables.basic)
    .replaceAll('${readerBasic}', variables.readerBasic)
  const headEnd = text.indexOf('\r\n\r\n')
  const body = headEnd < 0 ? '' : text.slice(headEnd + 4)
  text = text.replace('${length}', String(Buffer.byteLength(body) + (hostile.bodyFill ?? 0)))
  return {
    message: Buffer.from(text, 'utf8'),
    fill: hostile.bodyFill ?? hostile.chunkedFill ?? 0,
    chunked: hostile.chunkedFill !== undefined,
  }
}

export interface HostileAnswer {
  readonly status: number
  readonly head: string
  readonly body: string
}

export interface HostileResult {
  readonly answers: readonly HostileAnswer[]
  /** The server ended the connection. */
  readonly closed: boolean
  /** All the bytes received, as text. */
  readonly text: string
}

/** Complete answers in `data`, read message by message (Content-Length, chunked, or to the close). */
function parseAnswers(data: Buffer, closed: boolean): HostileAnswer[] {
  const answers: HostileAnswer[] = []
  let at = 0
  while (at < data.length) {
    const end = data.indexOf('\r\n\r\n', at)
    if (end < 0) {
      // uWS's own refusals end their head with the close rather than a body length.
      if (closed && /^HTTP\/1\.[01] \d{3}/.test(data.toString('latin1', at, at + 12)))
        answers.push({ status: Number(data.toString('latin1', at + 9, at + 12)), head: data.toString('latin1', at), body: '' })
      break
    }
    const head = data.toString('latin1', at, end)
    const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0)
    if (status === 0) break
    let bodyStart = end + 4
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head)
    let body: string
    if (status === 100) {
      at = bodyStart
      continue
    }
    if (length) {
      const bodyEnd = bodyStart + Number(length[1])
      if (bodyEnd > data.length) break
      body = data.toString('utf8', bodyStart, bodyEnd)
      at = bodyEnd
    } else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      const pieces: Buffer[] = []
      let complete = false
      for (;;) {
        const lineEnd = data.indexOf('\r\n', bodyStart)
        if (lineEnd < 0) break
        const size = Number.parseInt(data.toString('latin1', bodyStart, lineEnd), 16)
        if (size === 0) {
          const trailerEnd = data.indexOf('\r\n\r\n', lineEnd)
          if (trailerEnd >= 0 || data.length >= lineEnd + 4) {
            complete = true
            bodyStart = (trailerEnd >= 0 ? trailerEnd : lineEnd) + 4
          }
          break
        }
        if (lineEnd + 2 + size + 2 > data.length) break
        pieces.push(data.subarray(lineEnd + 2, lineEnd + 2 + size))
        bodyStart = lineEnd + 2 + size + 2
      }
      if (!complete) break
      body = Buffer.concat(pieces).toString('utf8')
      at = bodyStart
    } else if (/^HTTP\/1\.[01] (1\d\d|204|304)/.test(head)) {
      body = ''
      at = bodyStart
    } else {
      // Framed by the close.
      if (!closed) break
      body = data.toString('utf8', bodyStart)
      at = data.length
    }
    answers.push({ status, head, body })
  }
  return answers
}

/** How long a connection may stay silent after its expected answers before the exchange is over. */
const QUIET_MS = 300
/** How long an exchange may take at most: no answer by then is a failure the caller reports. */
const DEADLINE_MS = 15_000

/**
 * Sends a case on a fresh connection, `pieces` split points optional (the message written in pieces, each
 * on a turn of its own), and reads until the server closes, or until the connection stays quiet after the
 * answers the case expects.
 */
export function hostileExchange(
  port: number,
  bytes: ReturnType<typeof hostileBytes>,
  options: { halfClose?: boolean; expectedAnswers?: number; splits?: readonly number[] } = {},
): Promise<HostileResult> {
  return new Promise((resolve) => {
    const socket = net.connect({ port, host: '127.0.0.1', allowHalfOpen: true })
    const chunks: Buffer[] = []
    let closed = false
    let finished = false
    let quiet: NodeJS.Timeout | undefined
    const finish = () => {
      if (finished) return
      finished = true
      clearTimeout(quiet)
      clearTimeout(deadline)
      socket.destroy()
      const data = Buffer.concat(chunks)
      resolve({ answers: parseAnswers(data, closed), closed, text: data.toString('utf8') })
    }
    const deadline = setTimeout(finish, DEADLINE_MS)
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      clearTimeout(quiet)
      if (parseAnswers(Buffer.concat(chunks), false).length >= (options.expectedAnswers ?? 1)) quiet = setTimeout(finish, QUIET_MS)
    })
    socket.on('end', () => {
      closed = true
      finish()
    })
    socket.on('close', () => {
      closed = true
      finish()
    })
    socket.on('error', () => undefined)
    socket.on('connect', () => void write())

    const write = async () => {
      const message = bytes.message
      const splits = [...(options.splits ?? []), message.length].filter((at) => at > 0 && at <= message.length).sort((a, b) => a - b)
      let from = 0
      for (const at of splits) {
        if (socket.destroyed) return
        if (!socket.write(message.subarray(from, at))) await drained()
        from = at
        await new Promise((next) => setImmediate(next))
      }
      const piece = Buffer.alloc(64 * 1024, 0x20)
      for (let left = bytes.fill; left > 0 && !socket.destroyed && !closed; left -= piece.length) {
        const size = Math.min(left, piece.length)
        const ok = bytes.chunked
          ? socket.write(Buffer.concat([Buffer.from(`${size.toString(16)}\r\n`), piece.subarray(0, size), Buffer.from('\r\n')]))
          : socket.write(piece.subarray(0, size))
        if (!ok) await drained()
      }
      if (bytes.chunked && !socket.destroyed && !closed) socket.write('0\r\n\r\n')
      if (options.halfClose && !socket.destroyed) socket.end()
    }
    const drained = () =>
      new Promise<void>((next) => {
        const done = () => {
          socket.off('drain', done)
          socket.off('close', done)
          next()
        }
        socket.once('drain', done)
        socket.once('close', done)
      })
  })
}
