// HTTP_PIPELINING=serialize: a listener on the service's port that answers pipelined requests in order by
// handing them to the uWS server one at a time (front-connection.ts), over a unix socket in a directory
// only this user may enter, so nothing but the front reaches uWS and the `X-Forwarded-For` it sets can be
// trusted. Each connection of a client gets one connection to uWS, opened when the client connects: a
// request on an open connection during a graceful stop then meets uWS's own `503 ShuttingDown`, as it
// does without the front.
//
// With several worker processes each runs its own front and uWS; the fronts' listening socket is shared
// through node:cluster (the primary accepts and hands each connection to a worker; it relays no bytes).
import net from 'node:net'
import { FrontConnection } from './front-connection.js'

export interface FrontOptions {
  readonly host: string
  readonly port: number
  /** The unix socket uWS listens on. */
  readonly upstreamPath: string
  readonly maxHeadBytes: number
  /** A connection with nothing in flight is closed after this long (uWS's own idle timeout is 10 s). */
  readonly idleTimeoutMs?: number
}

export interface RunningFront {
  readonly port: number
  /** Accepts no more connections; open ones go on. */
  stopAccepting(): void
  /** Ends every connection now. */
  closeAll(): void
  /**
   * Resolves when every connection has ended, or after `timeoutMs` when the rest are ended at once. After
   * uWS has closed its side each client connection ends once its last answer is written to it: closing them
   * at once could cut an answer still on its way through the front.
   */
  drain(timeoutMs: number): Promise<void>
}

export function startSerializingFront(options: FrontOptions): Promise<RunningFront> {
  const connections = new Set<FrontConnection>()
  let drained: (() => void) | undefined
  // allowHalfOpen: a client may shut down its sending side once its request is out (shutdown(SHUT_WR)) and
  // still read the answer; Node would otherwise end the connection at the client's end, with nothing sent.
  const server = net.createServer({ noDelay: true, allowHalfOpen: true }, (client) => {
    const upstream = net.connect(options.upstreamPath)
    const connection = new FrontConnection(client, upstream, {
      maxHeadBytes: options.maxHeadBytes,
      clientAddress: client.remoteAddress ?? '',
    })
    connections.add(connection)
    client.on('close', () => {
      connections.delete(connection)
      if (connections.size === 0) drained?.()
    })
    client.setTimeout(options.idleTimeoutMs ?? 10_000, () => {
      if (connection.idle) connection.close()
    })
  })
  const closeAll = () => {
    server.close()
    for (const connection of connections) connection.close()
    connections.clear()
  }
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen({ host: options.host, port: options.port }, () => {
      server.off('error', reject)
      resolve({
        port: (server.address() as net.AddressInfo).port,
        stopAccepting: () => server.close(),
        closeAll,
        drain(timeoutMs) {
          server.close()
          if (connections.size === 0) return Promise.resolve()
          return new Promise((resolve) => {
            const timer = setTimeout(() => {
              closeAll()
              resolve()
            }, timeoutMs)
            drained = () => {
              clearTimeout(timer)
              resolve()
            }
          })
        },
      })
    })
  })
}
