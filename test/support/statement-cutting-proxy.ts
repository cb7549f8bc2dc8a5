// A TCP proxy in front of a database server that plays a node dying at a chosen moment: at the next
// statement a rule matches (on any of its connections), the connection is cut, and with it every other
// connection through the proxy, and new connections are refused for a while, as a killed node refuses them
// until it has been started again. It passes every byte through unchanged and reads the client's side
// packet by packet (MySQL protocol: 3-byte length, sequence number, payload; a query is command 0x03
// followed by its text, a prepared statement 0x16 followed by its text, run by 0x17 with the id the
// server gave it).
//
// Where the cut lands, relative to the matched statement:
//   - `before`: the statement is not passed on; the server rolls an open transaction back;
//   - `after`: the statement is passed on, the server's answer is swallowed: it ran (a COMMIT committed),
//     and the client never hears it;
//   - `idle`: the statement and its answer are passed on, then the connection is cut while the client
//     holds it between two statements: its next statement finds the connection closed.
// A rule may also cut the next new connection in its handshake (`connect`).
import net from 'node:net'

export type StatementCut = 'before' | 'after' | 'idle'

/** What a rule sees of a statement: its text, and the texts sent on its connection since the last START TRANSACTION or COMMIT. */
export interface StatementContext {
  readonly text: string
  readonly transaction: readonly string[]
}

export interface KillRule {
  /** The statement to cut at, or 'connect' for the next connection's handshake. */
  readonly at: ((statement: StatementContext) => boolean) | 'connect'
  readonly cut: StatementCut
  /** How many matching statements pass first (0: the first one is cut). */
  readonly skip?: number
  /** How long new connections are refused after the cut, in milliseconds (0: at once accepted again). */
  readonly downMs?: number
  /** Runs at the moment of the cut, before the proxy closes any socket (a real node's kill -9). */
  readonly onCut?: () => void
}

export interface StatementCuttingProxy {
  readonly port: number
  /** Arms a rule; resolves with the statement cut (or 'connect') once it has been cut. */
  killAt(rule: KillRule): Promise<string>
  /** Disarms a rule not met yet. */
  disarm(): void
  /** Closes every connection through the proxy now (a client's pool then starts afresh), refusing none. */
  dropConnections(): void
  close(): Promise<void>
}

const COM_QUERY = 0x03
const COM_STMT_PREPARE = 0x16
const COM_STMT_EXECUTE = 0x17
/** Statement text kept per statement: enough to tell any of the service's statements apart. */
const TEXT_KEPT = 200

export async function startStatementCuttingProxy(target: { host: string; port: number }): Promise<StatementCuttingProxy> {
  let armed: { rule: KillRule; left: number; done: (statement: string) => void } | undefined
  let refusingUntil = 0
  const sockets = new Set<net.Socket>()
  let port = 0

  /** The node dies: every connection through it is cut. */
  const killAll = () => {
    for (const socket of sockets) socket.destroy()
  }
  /** The rule is met: the cut is counted and awaited from here; `onCut` runs when the cut lands (`cutNow`). */
  const fire = (statement: string): KillRule => {
    const { rule, done } = armed!
    armed = undefined
    done(statement)
    return rule
  }
  const cutNow = (rule: KillRule) => {
    rule.onCut?.()
    refusingUntil = Date.now() + (rule.downMs ?? 0)
    killAll()
  }

  const server = net.createServer((client) => {
    if (Date.now() < refusingUntil) {
      // A dead node: the connection is closed before the server's greeting.
      client.destroy()
      return
    }
    if (armed?.rule.at === 'connect' && armed.left-- <= 0) {
      client.destroy()
      cutNow(fire('connect'))
      return
    }
    const upstream = net.connect(target.port, target.host)
    sockets.add(client).add(upstream)
    let pending = Buffer.alloc(0)
    let transaction: string[] = []
    const prepared = new Map<number, string>()
    let preparing: string | undefined
    /** The rule met by this connection's statement, cut when its answer comes. */
    let cutOnAnswer: KillRule | undefined
    upstream.on('data', (data) => {
      if (preparing !== undefined && data.length >= 9 && data[4] === 0x00) prepared.set(data.readUInt32LE(5), preparing)
      preparing = undefined
      if (cutOnAnswer === undefined) {
        client.write(data)
        return
      }
      // `after`: the server answered the statement it received, so it ran; the client never hears it.
      // `idle`: the answer, then the end of the connection: the client has its answer and a closed connection.
      if (cutOnAnswer.cut === 'idle') {
        client.end(data)
        sockets.delete(client)
      }
      cutNow(cutOnAnswer)
    })
    client.on('data', (data) => {
      pending = pending.length === 0 ? data : Buffer.concat([pending, data])
      while (pending.length >= 4) {
        const length = pending.readUIntLE(0, 3)
        if (pending.length < 4 + length) break
        const packet = pending.subarray(0, 4 + length)
        pending = pending.subarray(4 + length)
        const text = statementText(packet, length, prepared)
        if (text !== undefined) {
          if (packet[4] === COM_STMT_PREPARE) preparing = text
          if (/^(START TRANSACTION|BEGIN)/i.test(text)) transaction = []
          transaction.push(text)
          const rule = armed?.rule
          if (rule !== undefined && rule.at !== 'connect' && rule.at({ text, transaction }) && armed!.left-- <= 0) {
            fire(text)
            if (rule.cut === 'before') {
              cutNow(rule)
              return
            }
            cutOnAnswer = rule
          }
          if (/^COMMIT/i.test(text)) transaction = []
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
  port = (server.address() as net.AddressInfo).port
  return {
    port,
    killAt: (rule) => new Promise<string>((resolve) => (armed = { rule, left: rule.skip ?? 0, done: resolve })),
    disarm: () => {
      armed = undefined
    },
    dropConnections: killAll,
    close: () =>
      new Promise<void>((resolve) => {
        armed = undefined
        killAll()
        server.close(() => resolve())
      }),
  }
}

/** The text of a query or a prepared statement's PREPARE or EXECUTE; undefined for other commands. */
function statementText(packet: Buffer, length: number, prepared: ReadonlyMap<number, string>): string | undefined {
  const command = packet[4]
  if (command === COM_QUERY || command === COM_STMT_PREPARE) return packet.toString('utf8', 5, 5 + Math.min(length - 1, TEXT_KEPT))
  if (command === COM_STMT_EXECUTE && length >= 5) return prepared.get(packet.readUInt32LE(5))
  return undefined
}
