// A minimal HTTP/1.1 keep-alive load generator over raw sockets: each connection sends a request, reads
// the response (framed by Content-Length), and sends the next. Far lighter than node:http, so that on a
// small machine the client is not what limits the figure. Bounded in time and count; loopback only.
import net from 'node:net'

export interface LoadResult {
  readonly requests: number
  readonly seconds: number
  readonly requestsPerSecond: number
  readonly statuses: Readonly<Record<number, number>>
}

export interface LoadOptions {
  readonly port: number
  readonly connections: number
  readonly seconds: number
  /** Returns the request bytes for the next request (the path may vary). */
  readonly request: (index: number) => Buffer
}

const HEADER_END = Buffer.from('\r\n\r\n')

export function runLoad(options: LoadOptions): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const statuses: Record<number, number> = {}
    let requests = 0
    let sent = 0
    let open = 0
    const started = process.hrtime.bigint()
    const deadline = started + BigInt(Math.round(options.seconds * 1e9))
    const finish = () => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9
      resolve({ requests, seconds, requestsPerSecond: requests / seconds, statuses })
    }
    for (let c = 0; c < options.connections; c++) {
      const socket = net.connect(options.port, '127.0.0.1')
      socket.setNoDelay(true)
      open++
      let buffer: Buffer = Buffer.alloc(0)
      const next = () => {
        if (process.hrtime.bigint() >= deadline) {
          socket.end()
          return
        }
        socket.write(options.request(sent++))
      }
      socket.on('connect', next)
      socket.on('data', (chunk: Buffer) => {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk])
        for (;;) {
          const headerEnd = buffer.indexOf(HEADER_END)
          if (headerEnd < 0) return
          const head = buffer.subarray(0, headerEnd).toString('latin1')
          const match = /\r\ncontent-length: *(\d+)/i.exec(head)
          const length = match ? Number(match[1]) : 0
          const total = headerEnd + 4 + length
          if (buffer.length < total) return
          const status = Number(head.slice(9, 12))
          statuses[status] = (statuses[status] ?? 0) + 1
          requests++
          buffer = buffer.subarray(total)
          next()
        }
      })
      socket.on('error', reject)
      socket.on('close', () => {
        if (--open === 0) finish()
      })
    }
  })
}
