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
//
// The service sends some statements two to a packet (src/store/transaction.ts: START TRANSACTION with the
// first statement, the last change notes with the COMMIT). The proxy sees each of them as a statement of its
// own, and a rule met by any of them cuts the packet: `before`, none of them reaches the server; `after` and
// `idle` wait for the answer to all of it (`answered`), so that a COMMIT cut `after` has run and a statement
// cut `idle` has been answered, as when they come alone.
import net from 'node:net'
import { STATEMENT_JOINER } from '../../src/store/transaction.js'

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
    /** The answer to the packet cut on: what has come of it, and how many statements' answers are still to come. */
    let answer = Buffer.alloc(0)
    let answersDue = 1
    upstream.on('data', (data) => {
      if (preparing !== undefined && data.length >= 9 && data[4] === 0x00) prepared.set(data.readUInt32LE(5), preparing)
      preparing = undefined
      if (cutOnAnswer === undefined) {
        client.write(data)
        return
      }
      answer = Buffer.concat([answer, data])
      if (answersDue > 1 && !answered(answer, answersDue)) return
      // `after`: the server answered the statements it received, so they ran; the client never hears it.
      // `idle`: the answer, then the end of the connection: the client has its answer and a closed connection.
      if (cutOnAnswer.cut === 'idle') {
        client.end(answer)
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
        const texts = statementTexts(packet, length, prepared)
        if (packet[4] === COM_STMT_PREPARE) preparing = texts[0]
        for (const text of texts) {
          if (/^(START TRANSACTION|BEGIN)/i.test(text)) transaction = []
          transaction.push(text)
          const rule = armed?.rule
          if (
            cutOnAnswer === undefined &&
            rule !== undefined &&
            rule.at !== 'connect' &&
            rule.at({ text, transaction }) &&
            armed!.left-- <= 0
          ) {
            fire(text)
            if (rule.cut === 'before') {
              cutNow(rule)
              return
            }
            cutOnAnswer = rule
            answersDue = texts.length
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

/**
 * The texts of the statements of a query (one, or those the service joined into one packet) or of a prepared
 * statement's PREPARE or EXECUTE; none for other commands.
 */
function statementTexts(packet: Buffer, length: number, prepared: ReadonlyMap<number, string>): string[] {
  const command = packet[4]
  if (command === COM_QUERY)
    return packet
      .toString('utf8', 5, 4 + length)
      .split(STATEMENT_JOINER)
      .map((text) => text.slice(0, TEXT_KEPT))
  if (command === COM_STMT_PREPARE) return [packet.toString('utf8', 5, 5 + Math.min(length - 1, TEXT_KEPT))]
  const text = command === COM_STMT_EXECUTE && length >= 5 ? prepared.get(packet.readUInt32LE(5)) : undefined
  return text === undefined ? [] : [text]
}

const OK = 0x00
const ERROR = 0xff
const END_OF_ROWS = 0xfe

/**
 * Whether the server's packets so far answer all `statements` of a packet (the text protocol without
 * CLIENT_DEPRECATE_EOF, as mysql2 speaks it): per statement an OK packet, or a result set (its column count,
 * as many column definitions, an EOF packet, the rows, an EOF packet); an error ends the answer.
 */
function answered(data: Buffer, statements: number): boolean {
  const packets: Buffer[] = []
  for (let at = 0; at + 4 <= data.length; ) {
    const length = data.readUIntLE(at, 3)
    if (at + 4 + length > data.length) break
    packets.push(data.subarray(at + 4, at + 4 + length))
    at += 4 + length
  }
  let next = 0
  for (let answers = 0; answers < statements; answers++) {
    const first = packets[next++]
    if (first === undefined) return false
    if (first[0] === ERROR) return true
    if (first[0] === OK) continue
    // A result set: skip the column definitions and their EOF, then read rows up to the closing EOF.
    next += first[0]! + 1
    for (;;) {
      const packet = packets[next++]
      if (packet === undefined) return false
      if (packet[0] === ERROR) return true
      if (packet[0] === END_OF_ROWS && packet.length < 9) break
    }
  }
  return true
}
