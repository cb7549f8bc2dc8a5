// The one transaction helper: commit on success, rollback on failure, and a deadlock victim's work
// retried whole — proved with two transactions that lock two rows in opposite orders.
import t from 'tap'
import { isDeadlock, runInTransaction } from '../../src/store/transaction.js'
import { createTestDatabase } from '../support/test-database.js'
import { Statement } from '../../src/statement.js'

const db = await createTestDatabase('writes_transaction')
t.teardown(() => db.drop())
await db.pool.query('CREATE TABLE cell (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB')
await db.pool.query('INSERT INTO cell VALUES (1, 0), (2, 0)')
const cells = async () => ((await db.pool.query('SELECT id, v FROM cell ORDER BY id'))[0] as { id: number; v: number }[]).map((r) => r.v)

t.test('commit and rollback', async (t) => {
  await runInTransaction(db.pool, (tx) => tx.run(new Statement('UPDATE cell SET v = v + 1', [])))
  t.same(await cells(), [1, 1])
  await t.rejects(
    runInTransaction(db.pool, async (tx) => {
      await tx.run(new Statement('UPDATE cell SET v = v + 1 WHERE id = 1', []))
      throw new Error('late failure')
    }),
    /late failure/,
  )
  t.same(await cells(), [1, 1], 'the first statement was rolled back')
  const connection = await db.pool.getConnection()
  try {
    const isolation = await runInTransaction(connection, async (tx) => {
      await tx.run(new Statement('UPDATE cell SET v = v WHERE id = 1', []))
      return tx.rows<{ level: string }>(
        new Statement(
          'SELECT trx_isolation_level AS level FROM information_schema.innodb_trx WHERE trx_mysql_thread_id = CONNECTION_ID()',
          [],
        ),
      )
    })
    t.equal(isolation[0]!.level, 'READ COMMITTED', 'writes run READ COMMITTED')
    t.same((await connection.query('SELECT 1 AS one'))[0], [{ one: 1 }], 'a caller-owned connection stays usable and is not released')
  } finally {
    connection.release()
  }
})

t.test('a deadlock victim is retried whole and both transactions take effect', async (t) => {
  let attempts = 0
  let firstLocked!: () => void
  const locked = new Promise<void>((resolve) => (firstLocked = resolve))
  let secondLocked!: () => void
  const lockedToo = new Promise<void>((resolve) => (secondLocked = resolve))
  const a = runInTransaction(db.pool, async (tx) => {
    attempts++
    await tx.run(new Statement('UPDATE cell SET v = v + 10 WHERE id = 1', []))
    firstLocked()
    await lockedToo
    await tx.run(new Statement('UPDATE cell SET v = v + 10 WHERE id = 2', []))
  })
  const b = runInTransaction(db.pool, async (tx) => {
    attempts++
    await tx.run(new Statement('UPDATE cell SET v = v + 100 WHERE id = 2', []))
    secondLocked()
    await locked
    await tx.run(new Statement('UPDATE cell SET v = v + 100 WHERE id = 1', []))
  })
  await Promise.all([a, b])
  t.equal(attempts, 3, 'one of the two ran twice')
  t.same(await cells(), [111, 111], 'both committed exactly once')

  let tries = 0
  const always = runInTransaction(
    db.pool,
    async () => {
      tries++
      throw Object.assign(new Error('Deadlock found'), { errno: 1213 })
    },
    { attempts: 3 },
  )
  t.ok(
    await always.then(
      () => false,
      (error: unknown) => isDeadlock(error),
    ),
    'the last deadlock reaches the caller',
  )
  t.equal(tries, 3, 'gives up after the configured attempts')
})
