// Each test file works in a database of its own (named after the file), created fresh and dropped at
// the end, so files can run in parallel against one server.
import mysql from 'mysql2/promise'
import { parseDatabaseUrl, type DatabaseAddress } from '../../src/store/database-url.js'
import { createPool, type Pool } from '../../src/store/pool.js'

export interface TestDatabase {
  readonly address: DatabaseAddress
  readonly pool: Pool
  drop(): Promise<void>
}

export async function createTestDatabase(name: string): Promise<TestDatabase> {
  const base = parseDatabaseUrl(process.env.DATABASE_URL || 'mysql://root@127.0.0.1:3306/odata_registers')
  // TEST_DATABASE_SUFFIX keeps two suite runs against one server apart (each file's database is named after it).
  const suffix = (process.env.TEST_DATABASE_SUFFIX ?? '').replace(/[^A-Za-z0-9_]/g, '_')
  const database = `odata_test_${name.replace(/[^A-Za-z0-9_]/g, '_')}${suffix}`.slice(0, 64)
  const admin = await mysql.createConnection({ host: base.host, port: base.port, user: base.user, password: base.password })
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``)
  await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`)
  const address = { ...base, database }
  const pool = createPool(address, { connectionLimit: 8 })
  return {
    address,
    pool,
    async drop() {
      await pool.end()
      await admin.query(`DROP DATABASE IF EXISTS \`${database}\``)
      await admin.end()
    },
  }
}

/** A database someone else made (a cluster's, say), named by its URL: `drop` only closes the pool, opened when first asked for. */
export function databaseAtUrl(url: string): TestDatabase {
  const address = parseDatabaseUrl(url)
  let pool: Pool | undefined
  return {
    address,
    get pool() {
      pool ??= createPool(address, { connectionLimit: 8 })
      return pool
    },
    async drop() {
      await pool?.end()
    },
  }
}

/** The DATABASE_URL of an address, every host of a cluster listed. */
export function databaseUrl(address: DatabaseAddress): string {
  const credentials = address.password ? `${address.user}:${encodeURIComponent(address.password)}` : address.user
  const hosts = address.hosts && address.hosts.length > 1 ? address.hosts : [address]
  return `mysql://${credentials}@${hosts.map((host) => `${host.host}:${host.port}`).join(',')}/${address.database}`
}
