// scripts/db-ping.mjs (what `make run` and `make test` ask before they start): it reads DATABASE_URL with
// the service's own parser, so the multi-host form of a Galera cluster is accepted, and one answering
// host is enough, as it is for the service's pool.
import { execFile } from 'node:child_process'
import { promisify } from 'node:util'
import t from 'tap'
import { parseDatabaseUrl } from '../../src/store/database-url.js'
import { freePort } from '../support/free-port.js'

const exec = promisify(execFile)
const server = parseDatabaseUrl(process.env.DATABASE_URL || 'mysql://root@127.0.0.1:3306/odata_registers')
const credentials = `${server.user}${server.password ? `:${encodeURIComponent(server.password)}` : ''}`

async function ping(databaseUrl: string): Promise<{ status: number; stderr: string }> {
  try {
    await exec(process.execPath, ['scripts/db-ping.mjs'], { env: { ...process.env, DATABASE_URL: databaseUrl } })
    return { status: 0, stderr: '' }
  } catch (error) {
    const failed = error as { code: number; stderr: string }
    return { status: failed.code, stderr: failed.stderr }
  }
}

t.test('the multi-host form: the first host silent, the second answering', async (t) => {
  const silent = await freePort()
  const answered = await ping(`mysql://${credentials}@127.0.0.1:${silent},${server.host}:${server.port}/odata_registers`)
  t.equal(answered.status, 0, 'one answering host is enough')
  const silentOnly = await ping(`mysql://${credentials}@127.0.0.1:${silent},127.0.0.1:${await freePort()}/odata_registers`)
  t.equal(silentOnly.status, 1, 'no host answering: 1')
})

t.test('one host, as before', async (t) => {
  t.equal((await ping(`mysql://${credentials}@${server.host}:${server.port}/odata_registers`)).status, 0)
})

t.test('a DATABASE_URL the service would refuse is refused with its reason', async (t) => {
  const refused = await ping('postgres://root@127.0.0.1/odata_registers')
  t.equal(refused.status, 1)
  t.equal(refused.stderr, 'DATABASE_URL must start with mysql:// (got postgres://)\n')
})
