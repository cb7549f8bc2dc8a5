// The mysql2 connection pool and the session settings every connection needs.
//
// Values cross the driver as strings where JavaScript numbers or Dates would lose information or
// cost time: DECIMAL and BIGINT arrive as strings (written to JSON verbatim), DATETIME as
// 'YYYY-MM-DD HH:MM:SS' in UTC (turned into ISO text without a Date object on the hot path).
//
// With several hosts in DATABASE_URL (the nodes of a Galera cluster, docs/scale-out.md) the pool is a
// FailoverPool (src/store/failover-pool.ts): connections go to the first host that answers and is ready,
// in the order listed.
import mysql, { type Pool, type PoolConnection, type PoolOptions } from 'mysql2/promise'
import { id, sql } from '../sql/sql-template.js'
import { parseDatabaseUrl, type DatabaseAddress } from './database-url.js'
import { FailoverPool } from './failover-pool.js'

export type { Pool, PoolConnection }

/** Placeholder values as the driver takes them; values come from literals and bodies already converted to stored form. */
export type SqlValues = (string | number | boolean | null | Buffer)[]

/** Casts parameter lists built from `unknown` values (the converters guarantee the stored forms). */
export const sqlValues = (values: readonly unknown[]): SqlValues => values as SqlValues

/** A pool (or the failover pool), not one of its connections. */
export function isPool(source: Pool | PoolConnection): source is Pool {
  return typeof (source as Pool).getConnection === 'function' && typeof (source as PoolConnection).release !== 'function'
}

export function poolOptions(address: DatabaseAddress, overrides: Partial<PoolOptions> = {}): PoolOptions {
  return {
    host: address.host,
    port: address.port,
    user: address.user,
    password: address.password,
    database: address.database,
    charset: 'utf8mb4_bin',
    timezone: 'Z',
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
    decimalNumbers: false,
    connectionLimit: 16,
    maxIdle: 16,
    enableKeepAlive: true,
    // No stack captured at every query's call site: it cost a few per cent of a $batch of small creates,
    // and an error keeps its own stack and its MySQL fields.
    trace: false,
    // A write transaction sends its START TRANSACTION with its first statement and its COMMIT with its last
    // (src/store/transaction.ts), two statements in one packet. Every value reaches the SQL text through the
    // driver's escaping of `?` placeholders (src/statement.ts, src/sql/sql-template.ts), in a sql_mode without
    // NO_BACKSLASH_ESCAPES (set below, whatever the server's default), so no value can close its literal.
    multipleStatements: true,
    ...overrides,
  }
}

export function createPool(address: DatabaseAddress = parseDatabaseUrl(), overrides: Partial<PoolOptions> = {}): Pool {
  const hosts = address.hosts ?? []
  if (hosts.length <= 1) return createHostPool(address, overrides)
  // The failover pool offers what the service uses of a pool (getConnection, query, execute, end).
  return new FailoverPool(
    hosts.map((host) => ({ host, pool: createHostPool({ ...address, ...host, hosts: undefined }, overrides) })),
  ) as unknown as Pool
}

function createHostPool(address: DatabaseAddress, overrides: Partial<PoolOptions>): Pool {
  const pool = mysql.createPool(poolOptions(address, overrides))
  // Every connection works in UTC and strict mode, whatever the server's defaults are, and its transactions
  // are READ COMMITTED (src/store/transaction.ts says why): set once per connection, not per transaction.
  pool.pool.on('connection', (connection) => {
    // A connection that closes while idle, or fails twice (its statement and then the close), also emits
    // 'error' on itself; the pool listens once, to drop it. A second emission with no listener would end
    // the process: the failure is the statement's to report (src/database-failures.ts), so it is heard here.
    connection.on('error', () => undefined)
    connection.query(
      "SET time_zone = '+00:00', sql_mode = 'STRICT_TRANS_TABLES,NO_ENGINE_SUBSTITUTION,NO_ZERO_IN_DATE,ERROR_FOR_DIVISION_BY_ZERO'",
    )
    connection.query('SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED')
  })
  return pool
}

/** Creates the database itself if it is missing (the schema inside is migrate's job), on the first listed host that answers. */
export async function ensureDatabase(address: DatabaseAddress): Promise<void> {
  const hosts = address.hosts ?? [{ host: address.host, port: address.port }]
  for (const [index, host] of hosts.entries()) {
    let connection: mysql.Connection
    try {
      connection = await mysql.createConnection({
        host: host.host,
        port: host.port,
        user: address.user,
        password: address.password,
        charset: 'utf8mb4_bin',
      })
    } catch (error) {
      if (index < hosts.length - 1) continue
      throw error
    }
    try {
      await connection.query(sql`CREATE DATABASE IF NOT EXISTS ${id(address.database)} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`.text)
      return
    } finally {
      await connection.end()
    }
  }
}
