// The row source on its own (the HTTP streaming tests cover it through the answer): the reader sets the
// pace, a result given up before its end is stopped on the server and its connection destroyed, and a
// result read to its end gives its connection back alive.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { id, raw, rowValues, sql } from '../../src/sql/sql-template.js'
import { streamStatistics } from '../../src/store/row-source.js'
import { databaseOf } from '../../src/store/database.js'
import { readAllRows } from '../support/read-all-rows.js'
import { createTestDatabase } from '../support/test-database.js'

const database = await createTestDatabase('store_row_source')
t.teardown(() => database.drop())
const pool = database.pool
await databaseOf(pool).run(sql`CREATE TABLE ${id('n')} (${id('i')} INT NOT NULL PRIMARY KEY)`)
await databaseOf(pool).run(
  sql`INSERT INTO ${id('n')} (${id('i')}) VALUES ${rowValues(
    Array.from({ length: 1000 }, (_, i) => [i]),
    1,
  )}`,
)

/**
 * A billion rows, made by the server as they are read (more than socket buffers could ever hold, so the
 * statement cannot end by itself while the test runs); the comment finds it in the process list.
 */
function billion(marker: string) {
  return sql`SELECT a.${id('i')}, b.${id('i')}, c.${id('i')} FROM ${id('n')} AS a CROSS JOIN ${id('n')} AS b CROSS JOIN ${id('n')} AS c WHERE a.${id('i')} >= ${0} /* ${raw(marker)} */`
}

async function threadOf(marker: string): Promise<number | undefined> {
  const rows = await databaseOf(pool).rows<{ id: number }>(
    sql`SELECT ID AS id FROM information_schema.PROCESSLIST WHERE INFO LIKE ${`%${marker}%`} AND ID <> CONNECTION_ID()`,
  )
  return rows[0] === undefined ? undefined : Number(rows[0].id)
}

async function threadAlive(thread: number): Promise<boolean> {
  const rows = await databaseOf(pool).rows<unknown>(sql`SELECT ID FROM information_schema.PROCESSLIST WHERE ID = ${thread}`)
  return rows.length > 0
}

t.test('a reader that stops reading stalls the statement; closing with rows unread stops it and destroys the connection', async (t) => {
  const marker = 'row-source test: given up'
  const pulledBefore = streamStatistics.rowsPulled
  const source = (await databaseOf(pool).open(billion(marker)))!
  let taken = 0
  while (taken < 10) {
    if (source.read() === null) await source.wait()
    else taken++
  }
  const thread = await threadOf(marker)
  t.ok(thread !== undefined, 'the statement runs on the server')
  await sleep(300)
  const stalled = streamStatistics.rowsPulled
  await sleep(300)
  t.equal(streamStatistics.rowsPulled, stalled, 'nothing is pulled while nothing is read')
  t.ok(stalled - pulledBefore < 1_000_000, 'the statement waits part-way')
  source.close()
  let alive = true
  for (let i = 0; i < 50 && alive; i++) {
    await sleep(100)
    alive = await threadAlive(thread!)
  }
  t.notOk(alive, 'the statement was stopped and its connection closed')
  t.equal(await threadOf(marker), undefined)
})

t.test('a result read to its end gives its connection back alive', async (t) => {
  const marker = 'row-source test: read whole'
  const small = sql`SELECT ${id('i')} FROM ${id('n')} WHERE ${id('i')} < ${5} ORDER BY ${id('i')} /* ${raw(marker)} */`
  const source = (await databaseOf(pool).open(small))!
  const rows = await readAllRows(source)
  t.same(
    rows.map((r) => r[0]),
    [0, 1, 2, 3, 4],
  )
  const threads = await databaseOf(pool).rows<{ id: number }>(
    sql`SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = DATABASE()`,
  )
  source.close()
  await sleep(200)
  const after = await databaseOf(pool).rows<{ id: number }>(sql`SELECT ID AS id FROM information_schema.PROCESSLIST WHERE DB = DATABASE()`)
  t.same(after.map((r) => r.id).sort(), threads.map((r) => r.id).sort(), 'no connection was closed')
})

t.test('a reader gone while a connection was awaited starts no statement', async (t) => {
  const source = await databaseOf(pool).open(billion('row-source test: never started'), () => false)
  t.equal(source, undefined)
  t.equal(await threadOf('row-source test: never started'), undefined)
})

t.test('a failing statement throws at read, and its connection is not given back', async (t) => {
  const bad = sql`SELECT ${id('missing')} FROM ${id('n')}`
  const source = (await databaseOf(pool).open(bad))!
  await t.rejects(readAllRows(source), /missing/)
  source.discard()
  source.close()
})

t.test('a connection killed while its statement runs ends the read with a failure, not a wait without end', async (t) => {
  const marker = 'row-source test: killed'
  // One row, sent only when the sleep is over: the KILL finds the statement running with nothing read yet.
  const source = (await databaseOf(pool).open(sql`SELECT SLEEP(${30}) /* ${raw(marker)} */`))!
  let thread: number | undefined
  while (thread === undefined) thread = await threadOf(marker)
  await databaseOf(pool).run(sql`KILL CONNECTION ${thread}`)
  await t.rejects(readAllRows(source), 'the read fails')
  t.ok(source.ended)
  source.close()
})
