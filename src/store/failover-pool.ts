// A pool over the nodes of a multi-primary cluster (MariaDB Galera; docs/scale-out.md), one mysql2 pool
// per node, listed in order of preference (DATABASE_URL, src/store/database-url.ts).
//
// - A connection comes from the first node that answers and is ready. A node that refuses connections,
//   loses them, or is not part of the primary component (wsrep_ready OFF: joining, donating by a blocking
//   method, or cut off from the others) is passed over for DOWN_MS, then tried again first; so a process
//   returns to its preferred node once that node has rejoined.
// - A connection is checked for readiness when it is new and again when unchecked for CHECK_EVERY_MS:
//   a node that left the primary component answers every statement with error 1047, and the check finds
//   that before a transaction starts on it (one `SHOW STATUS` round trip at most once a second per
//   connection). A server without Galera (no wsrep provider, or MySQL) is always ready.
// - Nothing is retried here: a statement whose connection failed may have been applied, and only the
//   transaction knows whether retrying is safe (src/store/transaction.ts).
import type { Pool, PoolConnection } from 'mysql2/promise'
import type { DatabaseHost } from './database-url.js'
import { ER_NODE_NOT_READY, isDatabaseUnreachable } from '../database-failures.js'

export interface FailoverMember {
  readonly host: DatabaseHost
  readonly pool: Pool
}

const DOWN_MS = 1000
const CHECK_EVERY_MS = 1000

interface MemberState extends FailoverMember {
  downUntil: number
}

function notReady(host: DatabaseHost, state: string): Error {
  return Object.assign(new Error(`The database node ${host.host}:${host.port} is not ready (wsrep_ready ${state})`), {
    errno: ER_NODE_NOT_READY,
    code: 'ER_UNKNOWN_COM_ERROR',
  })
}

export class FailoverPool {
  private readonly members: MemberState[]
  /** When each physical connection was last found ready. */
  private readonly checkedAt = new WeakMap<object, number>()

  constructor(members: readonly FailoverMember[]) {
    this.members = members.map((member) => ({ ...member, downUntil: 0 }))
  }

  /** The node new connections go to now: the first one not passed over. */
  get current(): DatabaseHost {
    const now = Date.now()
    return (this.members.find((m) => m.downUntil <= now) ?? this.members[0]!).host
  }

  async getConnection(): Promise<PoolConnection> {
    const now = Date.now()
    // Nodes passed over recently come last, not never: when every node failed, try them all again.
    const order = [...this.members.filter((m) => m.downUntil <= now), ...this.members.filter((m) => m.downUntil > now)]
    let lastError: unknown
    for (const member of order) {
      let connection: PoolConnection | undefined
      try {
        connection = await member.pool.getConnection()
        await this.check(member, connection, now)
        member.downUntil = 0
        return connection
      } catch (error) {
        connection?.destroy()
        // Any failure to connect to a node or to check it passes the node over: a node going away can fail a
        // handshake in ways of its own. When every node failed, a failure that is no lost node (a refused
        // login: a misconfiguration) is the one reported; otherwise the last.
        member.downUntil = Date.now() + DOWN_MS
        if (lastError === undefined || isDatabaseUnreachable(lastError)) lastError = error
      }
    }
    throw lastError
  }

  private async check(member: MemberState, connection: PoolConnection, now: number): Promise<void> {
    const physical = (connection as unknown as { connection: object }).connection
    const last = this.checkedAt.get(physical)
    if (last !== undefined && now - last < CHECK_EVERY_MS) return
    const [rows] = (await connection.query("SHOW STATUS WHERE Variable_name IN ('wsrep_ready', 'wsrep_provider_name')")) as unknown as [
      { Variable_name: string; Value: string }[],
    ]
    const status = (name: string) => rows.find((row) => row.Variable_name === name)?.Value ?? ''
    // MariaDB without a provider reports wsrep_ready OFF too: only a Galera node is judged by it.
    if (status('wsrep_provider_name') !== '' && status('wsrep_ready') !== 'ON') throw notReady(member.host, status('wsrep_ready'))
    this.checkedAt.set(physical, now)
  }

  query(...args: unknown[]): Promise<unknown> {
    return this.using((connection) => (connection.query as (...a: unknown[]) => Promise<unknown>).apply(connection, args))
  }

  execute(...args: unknown[]): Promise<unknown> {
    return this.using((connection) => (connection.execute as (...a: unknown[]) => Promise<unknown>).apply(connection, args))
  }

  private async using<T>(statement: (connection: PoolConnection) => Promise<T>): Promise<T> {
    const connection = await this.getConnection()
    try {
      const result = await statement(connection)
      connection.release()
      return result
    } catch (error) {
      if (isDatabaseUnreachable(error)) connection.destroy()
      else connection.release()
      throw error
    }
  }

  async end(): Promise<void> {
    await Promise.all(this.members.map((member) => member.pool.end()))
  }
}
