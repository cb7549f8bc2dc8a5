// Clients for the streaming tests (src/respond/stream-rows.ts). They speak HTTP on a raw socket so that
// nothing stands between the test and the connection: pausing the socket stops the reading at once
// (the server's socket fills and the query must wait, which shows in streamStatistics.rowsPulled
// standing still), and the chunked framing, the sign that the answer was streamed, is seen as sent.
import net from 'node:net'
import { setTimeout as sleep } from 'node:timers/promises'
import { streamStatistics } from '../../src/respond/stream-rows.js'
import type { Pool } from '../../src/store/pool.js'
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
  await sleep(pauseMs)
  const stalled = streamStatistics.rowsPulled
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
 * Waits for the statements of this database whose text is LIKE `pattern` to end, looking every
 * 100 ms for at most `tries` looks; resolves to how many are still running (0 when they ended).
 */
export async function statementsLeft(pool: Pool, pattern: string, tries: number): Promise<number> {
  let running = 1
  for (let i = 0; i < tries && running > 0; i++) {
    await sleep(100)
    // The look itself is in the process list too; its PROCESSLIST leaves it out.
    const [rows] = await pool.query("SELECT COUNT(*) AS c FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO LIKE ? AND INFO NOT LIKE '%PROCESSLIST%'", [pattern])
    running = Number((rows as { c: number }[])[0]!.c)
  }
  return running
}
