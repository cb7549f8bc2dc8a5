// The database port on the pool and in a transaction: the same statement gives the same rows (as objects,
// as arrays, prepared or sent as text), a statement that changes rows answers its header, a row source
// opened in a transaction hands over its rows and leaves the transaction going on, and a read's failure
// the request caused is translated once, into the client's 400, while a write's keeps the driver's number.
import t, { type Test } from 'tap'
import { ODataError } from '../../src/errors.js'
import { id, rowValues, sql } from '../../src/sql/sql-template.js'
import { type Database, databaseOf } from '../../src/store/database.js'
import { runInTransaction } from '../../src/store/transaction.js'
import { readAllRows } from '../support/read-all-rows.js'
import { createTestDatabase } from '../support/test-database.js'

const db = await createTestDatabase('store_database')
t.teardown(() => db.drop())
const pool = databaseOf(db.pool)
await pool.run(sql`CREATE TABLE ${id('n')} (${id('i')} INT NOT NULL PRIMARY KEY, ${id('name')} VARCHAR(20) NOT NULL)`)

async function sameAnswers(t: Test, database: Database, label: string) {
  const select = sql`SELECT ${id('i')}, ${id('name')} FROM ${id('n')} WHERE ${id('i')} < ${3} ORDER BY ${id('i')}`
  const objects = [
    { i: 0, name: 'n0' },
    { i: 1, name: 'n1' },
    { i: 2, name: 'n2' },
  ]
  const arrays = objects.map((o) => [o.i, o.name])
  t.same(await database.rows(select), objects, `${label}: rows`)
  t.same(await database.rows(select, { prepared: true }), objects, `${label}: rows, prepared`)
  t.same(await database.arrays(select), arrays, `${label}: arrays`)
  t.same(await database.arrays(select, { prepared: true }), arrays, `${label}: arrays, prepared`)
  t.same(await readAllRows((await database.open(select))!), arrays, `${label}: an opened row source`)
}

t.test('the pool and a transaction answer a statement alike', async (t) => {
  const result = await pool.run(
    sql`INSERT INTO ${id('n')} (${id('i')}, ${id('name')}) VALUES ${rowValues(
      [0, 1, 2, 3].map((i) => [i, `n${i}`]),
      2,
    )}`,
  )
  t.equal(result.affectedRows, 4)
  await sameAnswers(t, pool, 'pool')
  await runInTransaction(db.pool, (transaction) => sameAnswers(t, transaction, 'transaction'))
})

t.test('a row source opened in a transaction leaves the transaction going on', async (t) => {
  await runInTransaction(db.pool, async (transaction) => {
    const source = (await transaction.open(sql`SELECT ${id('i')} FROM ${id('n')} ORDER BY ${id('i')}`))!
    t.same(source.read(), [0])
    source.cancel()
    t.ok(source.ended, 'a cancelled source has ended')
    source.close()
    await transaction.run(sql`UPDATE ${id('n')} SET ${id('name')} = ${'changed'} WHERE ${id('i')} = ${3}`)
  })
  t.same(await pool.arrays(sql`SELECT ${id('name')} FROM ${id('n')} WHERE ${id('i')} = ${3}`), [['changed']], 'the update committed')
})

t.test("a read's value error is the client's 400 on every path; a write's error keeps its number", async (t) => {
  // BIGINT UNSIGNED overflow: MySQL refuses to compute the value (ER_DATA_OUT_OF_RANGE, 1690).
  const overflow = sql`SELECT CAST(${'18446744073709551615'} AS UNSIGNED) + ${1} AS x FROM ${id('n')}`
  const refused = async (read: Promise<unknown>) => {
    const error = await read.then(
      () => undefined,
      (failure: unknown) => failure,
    )
    return error instanceof ODataError && error.code === 'ValueOutOfRange' && error.status === 400
  }
  t.ok(await refused(pool.rows(overflow)), 'rows')
  t.ok(await refused(pool.arrays(overflow)), 'arrays')
  const source = (await pool.open(overflow))!
  t.ok(await refused(readAllRows(source)), 'an opened row source')
  source.discard()
  source.close()
  await runInTransaction(db.pool, async (transaction) => t.ok(await refused(transaction.arrays(overflow)), 'in a transaction'))
  const duplicate = await pool
    .run(sql`INSERT INTO ${id('n')} (${id('i')}, ${id('name')}) VALUES (${0}, ${'again'})`)
    .catch((error: unknown) => error)
  t.equal((duplicate as { errno?: number }).errno, 1062, 'a duplicate key stays the driver error')
})
