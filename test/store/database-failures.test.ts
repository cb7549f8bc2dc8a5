// A database that is busy past its lock wait timeout, or unreachable, is answered 503 with Retry-After
// (toODataError), and a write that met it has written nothing. Real failures of a real server: a row
// lock held by another connection, a port nobody listens on.
import net from 'node:net'
import t from 'tap'
import { toODataError } from '../../src/errors.js'
import { createPool } from '../../src/store/pool.js'
import { runInTransaction } from '../../src/store/transaction.js'
import { createTestDatabase } from '../support/test-database.js'

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
      await transaction.run('INSERT INTO written VALUES (1)')
      await transaction.run('UPDATE locked SET value = 1 WHERE id = 1')
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
