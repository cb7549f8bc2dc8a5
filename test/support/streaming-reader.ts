// Clients for the streaming tests (src/respond/stream-rows.ts, src/store/row-source.ts). They speak HTTP on a raw socket so that
// nothing stands between the test and the connection: pausing the socket stops the reading at once
// (the server's socket fills and the query must wait, which shows in streamStatistics.rowsPulled
// standing still), destroying it is a reader gone, and the chunked framing, the sign that the answer
// was streamed, is seen as sent.
import net from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import mysql from 'mysql2/promise'
import { streamStatistics } from '../../src/store/row-source.js'
import type { DatabaseAddress } from '../../src/store/database-url.js'
import { DEMO_BASIC } from './test-service.js'

const LAST_CHUNK = Buffer.from('\r\n0\r\n\r\n')

export interface OpenReader {
  /** Paused: nothing more is read until the test resumes or destroys it. */
  readonly socket: net.Socket
  readonly first: Buffer
  /** streamStatistics.rowsPulled just before the request was sent. */
  readonly rowsPulledBefore: number
}

/** Sends `GET path` as the demo user and stops reading as soon as the first bytes of the answer arrive. */
export async function openReader(port: number, path: string): Promise<OpenReader> {
  const socket = net.connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve())
    socket.once('error', reject)
  })
  const rowsPulledBefore = streamStatistics.rowsPulled
  socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${DEMO_BASIC}\r\n\r\n`)
  const first = await new Promise<Buffer>((resolve, reject) => {
    socket.once('data', (chunk: Buffer) => {
      // Paused in the listener itself: a flowing socket without a listener would drop the next chunk.
      socket.pause()
      resolve(chunk)
    })
    socket.once('error', reject)
  })
  return { socket, first, rowsPulledBefore }
}

export interface StalledRead {
  /**
   * streamStatistics.rowsPulled before the request was sent, after one pause of the stopped reader
   * (time enough for the buffers to fill and the query to stall) and after a second pause (it must not
   * have moved since). Counted from before the request: a query that ran to its end without waiting
   * for the reader has then pulled every row by the first pause.
   */
  readonly rowsPulled: { readonly before: number; readonly stalled: number; readonly later: number }
  /** The status line and headers, through the blank line. */
  readonly head: string
  /** The body with its chunked framing undone. */
  readonly body: string
}

/**
 * Reads `GET path` the way a stalled consumer does: the first chunk, then nothing for two pauses of
 * `pauseMs`, then everything up to the last chunk of the chunked body.
 */
export async function readWithStall(port: number, path: string, pauseMs: number): Promise<StalledRead> {
  const { socket, first, rowsPulledBefore: before } = await openReader(port, path)
  // The service pulls rows until the socket's buffers are full, then stalls. On a busy machine filling them
  // takes longer than one pause: wait (bounded) for two equal readings, then look again after one more
  // pause. A service that never stalls reads every row, which the callers' "part-way" checks catch.
  let stalled = streamStatistics.rowsPulled
  for (const started = Date.now(); Date.now() - started < 30_000; ) {
    await sleep(pauseMs)
    const now = streamStatistics.rowsPulled
    if (now === stalled) break
    stalled = now
  }
  await sleep(pauseMs)
  const later = streamStatistics.rowsPulled
  const chunks = [first]
  try {
    await new Promise<void>((resolve, reject) => {
      // Only the newest bytes are searched, not everything received: the client shares the process
      // with the server, and rescanning tens of megabytes per chunk would slow the stream it measures.
      let tail = Buffer.alloc(0)
      const ends = (chunk: Buffer) => {
        const window = Buffer.concat([tail, chunk])
        tail = window.subarray(-(LAST_CHUNK.length - 1))
        return window.includes(LAST_CHUNK)
      }
      if (ends(first)) return resolve()
      socket.on('data', (chunk: Buffer) => {
        chunks.push(chunk)
        if (ends(chunk)) resolve()
      })
      socket.once('end', () => reject(new Error(`the connection ended before the last chunk of ${path}`)))
      socket.once('error', reject)
      socket.resume()
    })
  } finally {
    socket.destroy()
  }
  const raw = Buffer.concat(chunks)
  const headEnd = raw.indexOf('\r\n\r\n')
  if (headEnd < 0) throw new Error(`no end of headers in the answer to ${path}`)
  return { rowsPulled: { before, stalled, later }, head: raw.subarray(0, headEnd + 4).toString('latin1'), body: dechunk(raw, headEnd + 4) }
}

/** The body of a chunked response, read by offsets (a 50 MB body must not be copied per chunk). */
function dechunk(raw: Buffer, bodyStart: number): string {
  const parts: Buffer[] = []
  for (let at = bodyStart; ; ) {
    const lineEnd = raw.indexOf('\r\n', at)
    const size = parseInt(raw.subarray(at, lineEnd).toString('latin1'), 16)
    // Without this, a body that is not chunked would be read round in a loop for ever.
    if (lineEnd < 0 || !(size >= 0)) throw new Error(`no chunk size at byte ${at} of the answer`)
    if (size === 0) return Buffer.concat(parts).toString('utf8')
    parts.push(raw.subarray(lineEnd + 2, lineEnd + 2 + size))
    at = lineEnd + 2 + size + 2
  }
}

/**
 * Rows of streamed results that reached this process from MySQL, pulled or dropped for a reader that
 * had gone, once they stopped arriving (none for 100 ms): a statement that ran to its end has then
 * delivered every row of its result, one that was stopped fewer.
 */
export async function rowsArrived(): Promise<number> {
  const count = () => streamStatistics.rowsPulled + streamStatistics.rowsDropped
  for (let last = count(); ; ) {
    await sleep(100)
    if (count() === last) return last
    last = count()
  }
}

/** Sends `request` (raw HTTP, whole) and resolves with the socket once the request has left; nothing is read. */
export async function send(port: number, request: string): Promise<net.Socket> {
  const socket = net.connect(port, '127.0.0.1')
  await new Promise<void>((resolve, reject) => {
    socket.once('connect', () => resolve())
    socket.once('error', reject)
  })
  await new Promise<void>((resolve, reject) => socket.write(request, (error) => (error ? reject(error) : resolve())))
  return socket
}

export interface ServerThread {
  readonly id: number
  readonly command: string
  readonly state: string
  readonly info: string | null
}

/**
 * Looks at the server's process list for one test database, from a connection of its own: the
 * service's pool would hand a look the connection it released last, which may be the very one still
 * carrying the statement looked for, and the look would wait behind that statement's result instead of
 * seeing it.
 */
export class ProcessWatcher {
  private constructor(private readonly connection: mysql.Connection) {}

  static async open(address: DatabaseAddress): Promise<ProcessWatcher> {
    const { host, port, user, password, database } = address
    return new ProcessWatcher(await mysql.createConnection({ host, port, user, password, database }))
  }

  /** The statements of this database running now whose text is LIKE `pattern`. */
  async statements(pattern: string): Promise<ServerThread[]> {
    const [rows] = await this.connection.query(
      'SELECT ID AS id, COMMAND AS command, STATE AS state, INFO AS info FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO LIKE ? AND ID <> CONNECTION_ID()',
      [pattern],
    )
    return rows as ServerThread[]
  }

  /** The one statement LIKE `pattern`, looked for every 20 ms for at most `windowMs`. */
  async statement(pattern: string, windowMs: number): Promise<ServerThread> {
    for (const started = Date.now(); ; await sleep(20)) {
      const found = await this.statements(pattern)
      if (found.length > 1) throw new Error(`${found.length} statements like ${pattern}, one expected`)
      if (found.length === 1) return found[0]!
      if (Date.now() - started > windowMs) throw new Error(`no statement like ${pattern} within ${windowMs} ms`)
    }
  }

  /** The statements LIKE `pattern` still running after `windowMs`, looked for every 20 ms until there are none. */
  async statementsAfter(pattern: string, windowMs: number): Promise<ServerThread[]> {
    for (const started = Date.now(); ; await sleep(20)) {
      const found = await this.statements(pattern)
      if (found.length === 0 || Date.now() - started > windowMs) return found
    }
  }

  /**
   * The connection of thread `id` as the server has it (running a statement, or idle in a pool), looked
   * at every 20 ms until it is gone or `windowMs` has passed; undefined once gone.
   */
  async threadAfter(id: number, windowMs: number): Promise<ServerThread | undefined> {
    for (const started = Date.now(); ; await sleep(20)) {
      const [rows] = await this.connection.query(
        'SELECT ID AS id, COMMAND AS command, STATE AS state, INFO AS info FROM information_schema.PROCESSLIST WHERE ID = ?',
        [id],
      )
      const thread = (rows as ServerThread[])[0]
      if (thread === undefined || Date.now() - started > windowMs) return thread
    }
  }

  close(): Promise<void> {
    return this.connection.end()
  }
}

/** For a message: what is left of a thread that should be gone. */
export const stillThere = (thread: ServerThread | undefined): string =>
  thread === undefined ? '' : ` (still there: ${thread.command}, ${thread.state || 'no state'})`
