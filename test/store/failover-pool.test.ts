// The pool over several hosts (src/store/failover-pool.ts), against the real server and ports nobody
// listens on: connections go to the first host that answers; a host that refuses is passed over, tried
// again first once its pause is over, and a pool whose every host refuses fails as an unreachable database
// (503). Galera's not-ready nodes are covered by the cluster tests (test/cluster/).
import net from 'node:net'
import t from 'tap'
import { toODataError } from '../../src/errors.js'
import { createPool } from '../../src/store/pool.js'
import { runInTransaction } from '../../src/store/transaction.js'
import { createTestDatabase } from '../support/test-database.js'
import { Statement } from '../../src/statement.js'

const database = await createTestDatabase('store_failover_pool')
t.teardown(() => database.drop())
await database.pool.query('CREATE TABLE seen (id INT PRIMARY KEY, port INT NOT NULL)')

/** A port that was just free: nobody listens on it. */
const freePort = () =>
  new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })

const real = { host: database.address.host, port: database.address.port }

t.test('a host that refuses is passed over for the next one, for queries and transactions', async (t) => {
  const dead = { host: '127.0.0.1', port: await freePort() }
  const pool = createPool({ ...database.address, hosts: [dead, real] }, { connectionLimit: 2, connectTimeout: 2000 })
  t.teardown(() => pool.end())
  const [rows] = (await pool.query('SELECT @@port AS port')) as unknown as [{ port: number }[]]
  t.equal(Number(rows[0]!.port), real.port, 'the query ran on the host that answers')
  await runInTransaction(pool, (transaction) => transaction.run(new Statement('INSERT INTO seen VALUES (1, @@port)', [])))
  const [written] = (await database.pool.query('SELECT port FROM seen WHERE id = 1')) as unknown as [{ port: number }[]]
  t.equal(Number(written[0]!.port), real.port, 'the transaction committed there')
  const [execRows] = (await pool.execute('SELECT ? AS v', [7])) as unknown as [{ v: number }[]]
  t.equal(Number(execRows[0]!.v), 7, 'execute goes the same way')
})

t.test('the preferred host is used while it answers, and again after a pause once it answers again', async (t) => {
  const pool = createPool({ ...database.address, hosts: [real, { host: '127.0.0.1', port: await freePort() }] }, { connectionLimit: 2 })
  t.teardown(() => pool.end())
  const [rows] = (await pool.query('SELECT 1 AS one')) as unknown as [{ one: number }[]]
  t.equal(Number(rows[0]!.one), 1)
  // A host that comes up on a port the pool was refused on: the pool returns to it when the pause is over.
  const late = await freePort()
  const relay = createPool(
    { ...database.address, hosts: [{ host: '127.0.0.1', port: late }, real] },
    { connectionLimit: 1, connectTimeout: 2000 },
  )
  t.teardown(() => relay.end())
  await relay.query('SELECT 1')
  const forwarded: net.Socket[] = []
  const proxy = net.createServer((client) => {
    const upstream = net.connect(real.port, real.host)
    forwarded.push(client, upstream)
    client.pipe(upstream).pipe(client)
    client.on('error', () => upstream.destroy())
    upstream.on('error', () => client.destroy())
  })
  await new Promise<void>((resolve) => proxy.listen(late, '127.0.0.1', resolve))
  t.teardown(() => {
    for (const socket of forwarded) socket.destroy()
    proxy.close()
  })
  await new Promise((resolve) => setTimeout(resolve, 1100))
  const connection = await relay.getConnection()
  t.ok(forwarded.length > 0, 'the new connection went to the preferred host again')
  connection.release()
})

t.test('every host refusing is an unreachable database, answered 503', async (t) => {
  const pool = createPool(
    {
      ...database.address,
      hosts: [
        { host: '127.0.0.1', port: await freePort() },
        { host: '127.0.0.1', port: await freePort() },
      ],
    },
    { connectionLimit: 1, connectTimeout: 2000 },
  )
  t.teardown(() => pool.end())
  const failure = await pool.query('SELECT 1').then(
    () => undefined,
    (error: unknown) => error,
  )
  const answer = toODataError(failure)
  t.equal(answer.status, 503)
  t.equal(answer.code, 'ServiceUnavailable')
})
