// `odata-registers verify`, the read-only totals check, as a user runs it: equal totals exit 0; a planted
// wrong, extra or missing totals row exits 1 and is named; a group of zeros is no difference; nothing is
// written; a database not at the code's schema exits 2; --help prints the usage.
import { once } from 'node:events'
import t from 'tap'
import type { Connection as CallbackConnection } from 'mysql2'
import { loadModel } from '../../src/model/load-model.js'
import { seedDemoData } from '../../src/seed/seed-data.js'
import { migrate } from '../../src/store/migrate.js'
import type { Pool } from '../../src/store/pool.js'
import { checkTotals } from '../../src/store/totals-check.js'
import { runCli } from '../support/run-cli.js'
import { createTestDatabase, type TestDatabase, databaseUrl } from '../support/test-database.js'
import { totalsSnapshot } from '../support/totals-snapshot.js'

const model = loadModel('config/demo.json')

async function verify(db: TestDatabase, ...args: string[]) {
  return runCli(['verify', ...args], { DATABASE_URL: databaseUrl(db.address), CONFIG: 'config/demo.json' }).done
}

async function one(db: TestDatabase, statement: string): Promise<Record<string, unknown>> {
  const [rows] = await db.pool.query(statement)
  return (rows as Record<string, unknown>[])[0]!
}

t.test('verify compares the totals with a recomputation and writes nothing', async (t) => {
  const db = await createTestDatabase('totals_check')
  t.teardown(() => db.drop())
  await migrate(db.pool, model)
  await seedDemoData(db.pool, model, { scale: 0.1 })

  const equal = await verify(db)
  t.equal(equal.code, 0, `equal totals exit 0 (${equal.stderr})`)
  t.match(equal.stdout, /ar_Stock__totals: equal to a recomputation/)
  t.match(equal.stdout, /acr_Main__totals: equal to a recomputation/)

  // A group of zeros the recomputation does not have means the same as no row (totals.ts).
  await db.pool.query(
    "INSERT INTO ar_Stock__totals (Period, Product_Key, Warehouse_Key) VALUES ('2001-01-01', '00000000-0000-0000-0000-0000000000aa', '00000000-0000-0000-0000-0000000000bb')",
  )
  t.equal((await verify(db)).code, 0, 'a totals row of zeros is no difference')

  // A wrong value in a month row of the accumulation totals.
  const wrong = await one(
    db,
    "SELECT Period, Product_Key, Warehouse_Key FROM ar_Stock__totals WHERE Period <> '9999-12-31' AND Quantity <> 0 ORDER BY Period, Product_Key, Warehouse_Key LIMIT 1",
  )
  await db.pool.query('UPDATE ar_Stock__totals SET Quantity = Quantity + 1 WHERE Period = ? AND Product_Key = ? AND Warehouse_Key = ?', [
    wrong.Period,
    wrong.Product_Key,
    wrong.Warehouse_Key,
  ])
  const before = await totalsSnapshot(db.pool)
  const differs = await verify(db)
  t.equal(differs.code, 1, 'a wrong totals row exits 1')
  t.match(differs.stdout, /ar_Stock__totals: 1 group\(s\) differ/)
  t.match(
    differs.stdout,
    new RegExp(
      `ar_Stock__totals Period=${wrong.Period} Warehouse_Key=${wrong.Warehouse_Key} Product_Key=${wrong.Product_Key}: Quantity kept`,
    ),
  )
  t.match(differs.stdout, /acr_Main__totals: equal to a recomputation/, 'the other table is still equal')
  t.same(await totalsSnapshot(db.pool), before, 'the check wrote nothing: the wrong row is still there')

  // A missing row of the accounting totals (its all-time row: the balance itself) and an extra non-zero row.
  const allTime = await one(db, "SELECT Account_Key FROM acr_Main__totals WHERE Period = '9999-12-31' ORDER BY Account_Key LIMIT 1")
  const [deleted] = await db.pool.query("DELETE FROM acr_Main__totals WHERE Period = '9999-12-31' AND Account_Key = ? LIMIT 1", [
    allTime.Account_Key,
  ])
  t.equal((deleted as { affectedRows: number }).affectedRows, 1)
  await db.pool.query(
    "INSERT INTO ar_Stock__totals (Period, Product_Key, Warehouse_Key, Quantity) VALUES ('2001-02-01', '00000000-0000-0000-0000-0000000000aa', '00000000-0000-0000-0000-0000000000bb', 5)",
  )
  const check = await checkTotals(db.pool, model)
  t.same(check.differingGroups, { ar_Stock__totals: 2, acr_Main__totals: 1 })
  t.equal(check.differences.length, 3)
  const missing = check.differences.find((d) => d.table === 'acr_Main__totals')!
  t.equal(missing.key.Account_Key, allTime.Account_Key)
  t.ok(
    Object.values(missing.resources).every(([kept]) => Number(kept) === 0),
    'the missing row is kept as zeros, recomputed otherwise',
  )
  const extra = check.differences.find((d) => d.key.Period === '2001-02-01')!
  t.equal(Number(extra.resources.Quantity![0]), 5)
  t.equal(Number(extra.resources.Quantity![1]), 0)
  const listed = await verify(db)
  t.equal(listed.code, 1)
  t.match(listed.stdout, /acr_Main__totals: 1 group\(s\) differ/)
  t.match(listed.stdout, /ar_Stock__totals: 2 group\(s\) differ/)

  // Only the first differences are listed, every one is counted.
  const few = await checkTotals(db.pool, model, 1)
  t.equal(few.differences.length, 1)
  t.same(few.differingGroups, { ar_Stock__totals: 2, acr_Main__totals: 1 })
})

t.test('verify refuses a database that is not at the code schema, and explains itself', async (t) => {
  const db = await createTestDatabase('totals_check_unmigrated')
  t.teardown(() => db.drop())
  const unmigrated = await verify(db)
  t.equal(unmigrated.code, 2, 'no check could be made')
  t.match(unmigrated.stderr, /run migrate first/)
  t.match(unmigrated.stderr, /table ar_Stock__totals is missing/)
  const [tables] = await db.pool.query('SHOW TABLES')
  t.same(tables, [], 'verify created nothing')

  const help = await verify(db, '--help')
  t.equal(help.code, 0)
  t.match(help.stdout, /^odata-registers verify\n/)
  t.match(help.stdout, /Exit status: 0 .* 1 .*differ/s)
  const wrongArgument = await verify(db, '--fix')
  t.equal(wrongArgument.code, 2)
  t.match(wrongArgument.stderr, /unknown option --fix/)
})

t.test('a check whose connection is lost fails, and is not taken for equal totals', async (t) => {
  const db = await createTestDatabase('totals_check_lost')
  t.teardown(() => db.drop())
  await migrate(db.pool, model)
  // The pool hands the check a connection killed on the server, once the connection has heard it closed.
  const killing = {
    getConnection: async () => {
      const connection = await db.pool.getConnection()
      const callbackConnection = (connection as unknown as { connection: CallbackConnection }).connection
      const closed = Promise.race([once(callbackConnection, 'error'), once(callbackConnection, 'end')])
      await db.pool.query(`KILL CONNECTION ${callbackConnection.threadId}`)
      await closed
      return connection
    },
  } as unknown as Pool
  await t.rejects(checkTotals(killing, model), 'the check fails')
})
