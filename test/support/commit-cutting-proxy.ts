// A TCP proxy between the service and the database server that can cut one connection at its COMMIT, to
// show what the service does when the answer to a COMMIT never comes back (a node going away, a network
// cut): the server may have committed or not, and the client cannot tell. It passes every byte through
// unchanged and reads only the client's side, packet by packet (MySQL protocol: 3-byte length, sequence
// number, payload; a query is command 0x03 followed by its text).
//   - `before`: the COMMIT is not passed on; both sides are closed, so the server rolls the transaction back.
//   - `after`: the COMMIT is passed on, the server's answer is awaited and swallowed, then both sides are
//     closed: the transaction is committed, and the client never hears it.
// Only a COMMIT on a connection that has written to `request_log` since its previous COMMIT is cut: the
// commit of a change set that carries its batch's log entries.
import net from 'node:net'

export type CommitCut = 'before' | 'after'

export interface CommitCuttingProxy {
  readonly port: number
  /** Cuts the next such COMMIT; resolves once it has been cut. */
  cutNextLoggedCommit(cut: CommitCut): Promise<void>
  close(): Promise<void>
}

const COM_QUERY = 0x03
const LOG_INSERT = 'INSERT INTO `request_log`'

export async function startCommitCuttingProxy(target: { host: string; port: number }): Promise<CommitCuttingProxy> {
  let armed: { cut: CommitCut; done: () => void } | undefined
  const sockets = new Set<net.Socket>()

  const server = net.createServer((client) => {
    const upstream = net.connect(target.port, target.host)
    sockets.add(client).add(upstream)
    let pending = Buffer.alloc(0)
    let wroteLog = false
    let swallowing = false
    const closeBoth = () => {
      client.destroy()
      upstream.destroy()
    }
    upstream.on('data', (data) => {
      if (!swallowing) {
        client.write(data)
        return
      }
      // The server answered the COMMIT it received: the transaction is committed. The client never hears it.
      closeBoth()
    })
    client.on('data', (data) => {
      pending = pending.length === 0 ? data : Buffer.concat([pending, data])
      while (pending.length >= 4) {
        const length = pending.readUIntLE(0, 3)
        if (pending.length < 4 + length) break
        const packet = pending.subarray(0, 4 + length)
        pending = pending.subarray(4 + length)
        if (packet[4] === COM_QUERY) {
          const text = packet.toString('utf8', 5, 5 + Math.min(length - 1, LOG_INSERT.length))
          if (text.startsWith(LOG_INSERT)) wroteLog = true
          else if (/^(START TRANSACTION|BEGIN)/i.test(text)) wroteLog = false
          else if (text.toUpperCase() === 'COMMIT') {
            const cut = wroteLog ? armed : undefined
            wroteLog = false
            if (cut !== undefined) {
              armed = undefined
              cut.done()
              if (cut.cut === 'before') {
                closeBoth()
                return
              }
              swallowing = true
            }
          }
        }
        upstream.write(packet)
      }
    })
    for (const [socket, other] of [
      [client, upstream],
      [upstream, client],
    ] as const) {
      socket.on('close', () => {
        sockets.delete(socket)
        other.destroy()
      })
      socket.on('error', () => undefined)
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as net.AddressInfo).port,
    cutNextLoggedCommit: (cut) => new Promise<void>((resolve) => (armed = { cut, done: resolve })),
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      }),
  }
}
