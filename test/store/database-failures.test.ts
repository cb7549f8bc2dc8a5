// A database that is busy past its lock wait timeout, or unreachable, is answered 503 with Retry-After
// (toODataError), and a write that met it has written nothing; a transaction whose connection was lost
// before its COMMIT could reach the server runs again on the next host. Real failures of a real server: a row
// lock held by another connection, a port nobody listens on.
import net from 'node:net'
import t from 'tap'
import { isDatabaseUnreachable, wasNeverSent } from '../../src/database-failures.js'
import { toODataError } from '../../src/errors.js'
import { createPool } from '../../src/store/pool.js'
import { runInTransaction } from '../../src/store/transaction.js'
import { startStatementCuttingProxy } from '../support/statement-cutting-proxy.js'
import { createTestDatabase } from '../support/test-database.js'
import { Statement } from '../../src/statement.js'

const database = await createTestDatabase('store_database_failures')
t.teardown(() => database.drop())
const pool = database.pool
await pool.query('CREATE TABLE locked (id INT PRIMARY KEY, value INT NOT NULL)')
await pool.query('CREATE TABLE written (id INT PRIMARY KEY)')
await pool.query('INSERT INTO locked VALUES (1, 0)')

t.test('a lock wait timeout is a 503 LockTimeout to retry, and the write is rolled back whole', async (t) => {
  const holder = await pool.getConnection()
  const waiter = await pool.getConnection()
  try {
    await holder.query('START TRANSACTION')
    await holder.query('SELECT * FROM locked WHERE id = 1 FOR UPDATE')
    // The waiter gives up after one second instead of the server's default fifty.
    await waiter.query('SET SESSION innodb_lock_wait_timeout = 1')
    const failure = await runInTransaction(waiter, async (transaction) => {
      await transaction.run(new Statement('INSERT INTO written VALUES (1)', []))
      await transaction.run(new Statement('UPDATE locked SET value = 1 WHERE id = 1', []))
    }).then(
      () => undefined,
      (error: unknown) => error,
    )
    t.ok(failure, 'the write failed')
    const answer = toODataError(failure)
    t.equal(answer.status, 503)
    t.equal(answer.code, 'LockTimeout')
    t.equal(answer.headers['Retry-After'], '1')
    const [rows] = (await pool.query('SELECT COUNT(*) AS n FROM written')) as unknown as [{ n: number }[]]
    t.equal(Number(rows[0].n), 0, 'the row written before the wait was rolled back with it')
  } finally {
    await holder.query('ROLLBACK')
    holder.release()
    await waiter.query('SET SESSION innodb_lock_wait_timeout = DEFAULT')
    waiter.release()
  }
})

t.test('an unreachable database is a 503 ServiceUnavailable to retry', async (t) => {
  // A port that was just free: nobody listens on it.
  const port = await new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
  })
  const unreachable = createPool({ ...database.address, port }, { connectionLimit: 1, connectTimeout: 2000 })
  try {
    const failure = await unreachable.query('SELECT 1').then(
      () => undefined,
      (error: unknown) => error,
    )
    const answer = toODataError(failure)
    t.equal(answer.status, 503)
    t.equal(answer.code, 'ServiceUnavailable')
    t.equal(answer.headers['Retry-After'], '5')
    t.notMatch(answer.message, /127\.0\.0\.1|ECONN/, 'no internals in the message')
  } finally {
    await unreachable.end()
  }
})

t.test('any other failure stays an InternalError without its details', async (t) => {
  const failure = await pool.query('SELECT * FROM no_such_table').then(
    () => undefined,
    (error: unknown) => error,
  )
  const answer = toODataError(failure)
  t.equal(answer.status, 500)
  t.equal(answer.code, 'InternalError')
  t.notMatch(answer.message, /no_such_table/)
})

// A node that dies while the service holds its connection between two statements: the driver finds the
// connection closed when the next statement comes, and says so without an error code (mysql2: "Can't add
// new command when connection is in closed state"). Before, that fell through to 500; it is a lost
// connection. The proxy in front of the server plays the node: it passes the statement and its answer,
// then closes the connection (and refuses new ones for a while); the pool's second host is the server.
t.test('a connection lost while idle in a transaction: the transaction runs again on the next host, once', async (t) => {
  const dying = await startStatementCuttingProxy({ host: database.address.host, port: database.address.port })
  const failover = createPool(
    {
      ...database.address,
      hosts: [
        { host: '127.0.0.1', port: dying.port },
        { host: database.address.host, port: database.address.port },
      ],
    },
    { connectionLimit: 2, connectTimeout: 2000 },
  )
  t.teardown(async () => {
    await failover.end()
    await dying.close()
  })
  await pool.query('CREATE TABLE idle_lost (id INT PRIMARY KEY, attempt INT NOT NULL)')
  for (const [id, where] of [
    [1, 'between two statements'],
    [2, 'before the COMMIT'],
  ] as const) {
    // The dying host is back and preferred again (the pool passes a failed host over for a second).
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const killed = dying.killAt({ at: ({ text }) => text.startsWith(`INSERT INTO idle_lost VALUES (${id},`), cut: 'idle', downMs: 1000 })
    let attempts = 0
    const failures: unknown[] = []
    await runInTransaction(failover, async (transaction) => {
      attempts++
      await transaction.run(new Statement(`INSERT INTO idle_lost VALUES (${id}, ${attempts})`, []))
      // The service does something else meanwhile: the connection is closed by the time it comes back.
      await new Promise((resolve) => setTimeout(resolve, 200))
      if (id === 1)
        await transaction.run(new Statement('SELECT 1', [])).catch((error: unknown) => Promise.reject(failures.push(error) && error))
    })
    t.equal(await killed, `INSERT INTO idle_lost VALUES (${id}, 1)`, `${where}: the node died after the first attempt's INSERT`)
    t.equal(attempts, 2, `${where}: the transaction ran again`)
    if (id === 1) {
      t.match(String((failures[0] as Error).message), /closed state/, 'the driver said the connection is closed, with no code')
      t.equal(toODataError(failures[0]).status, 503, 'which is a 503 to retry, never a 500')
    }
    const [rows] = (await pool.query('SELECT attempt FROM idle_lost WHERE id = ?', [id])) as unknown as [{ attempt: number }[]]
    t.same(
      rows.map((row) => Number(row.attempt)),
      [2],
      `${where}: committed once, by the second attempt`,
    )
  }
})

t.test('a connection killed on the server during a statement runs the transaction again on a fresh connection', async (t) => {
  await pool.query('CREATE TABLE killed_once (id INT PRIMARY KEY, attempt INT NOT NULL)')
  let attempts = 0
  let failure: unknown
  await runInTransaction(pool, async (transaction) => {
    attempts++
    await transaction.run(new Statement(`INSERT INTO killed_once VALUES (1, ${attempts})`, []))
    if (attempts > 1) return
    const [rows] = (await transaction.connection.query('SELECT CONNECTION_ID() AS id')) as unknown as [{ id: number }[]]
    // Its failure is taken at once: it may come before the KILL statement's own answer.
    const sleeping = transaction.run(new Statement('SELECT SLEEP(5)', [])).then(
      () => undefined,
      (error: unknown) => (failure = error),
    )
    await new Promise((resolve) => setTimeout(resolve, 200))
    await pool.query(`KILL CONNECTION ${Number(rows[0]!.id)}`)
    await sleeping
    if (failure) throw failure
  })
  t.ok(failure, 'the first attempt failed')
  t.equal(
    toODataError(failure).status,
    503,
    `its failure (${(failure as { errno?: number; code?: string }).errno ?? (failure as { code?: string }).code}) is a 503 to retry`,
  )
  t.equal(attempts, 2, 'the transaction ran again')
  const [rows] = (await pool.query('SELECT attempt FROM killed_once')) as unknown as [{ attempt: number }[]]
  t.same(
    rows.map((row) => Number(row.attempt)),
    [2],
    'committed once, by the second attempt',
  )
})

t.test("a node's own refusals are a 503 to retry; a refused login, a bad statement are not", async (t) => {
  // The server's error numbers for a node that cannot serve (src/database-failures.ts), as the driver gives them.
  for (const [errno, meaning] of [
    [1047, 'WSREP has not yet prepared node for application use'],
    [1053, 'Server shutdown in progress'],
    [1927, 'Connection was killed'],
    [1180, 'Got error during COMMIT'],
  ] as const) {
    const failure = Object.assign(new Error(meaning), { errno, code: 'ER_X', sqlState: 'HY000' })
    t.ok(isDatabaseUnreachable(failure), `${errno} (${meaning}) means this node cannot serve`)
    t.equal(toODataError(failure).status, 503)
  }
  const login = Object.assign(new Error('Access denied'), { errno: 1045, code: 'ER_ACCESS_DENIED_ERROR', fatal: true })
  t.notOk(isDatabaseUnreachable(login), 'a refused login is the server answering, not a lost connection')
  t.equal(toODataError(login).status, 500)
  const closed = Object.assign(new Error("Can't add new command when connection is in closed state"), { fatal: true })
  t.ok(isDatabaseUnreachable(closed) && wasNeverSent(closed), 'a command refused on a closed connection: lost, and never sent')
  const lost = Object.assign(new Error('Connection lost: The server closed the connection.'), {
    fatal: true,
    code: 'PROTOCOL_CONNECTION_LOST',
  })
  t.ok(isDatabaseUnreachable(lost), 'a connection lost during a statement')
  t.notOk(wasNeverSent(lost), 'which may have reached the server')
})
