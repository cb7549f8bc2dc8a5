// Period starts (decisions.md §6): the SQL the database groups by and the TypeScript reference agree, on
// boundaries chosen by hand and on seeded random moments.
import t from 'tap'
import { PERIOD_KINDS } from '../../src/model/virtual-tables.js'
import { nextPeriodStart, periodStart, periodStartSql } from '../../src/virtual/period-start.js'
import { Random } from '../../src/seed/random.js'
import { createTestDatabase } from '../support/test-database.js'

t.test('boundaries worked out by hand', async (t) => {
  const cases: [string, string, string][] = [
    ['Week', '2024-01-07 23:59:59', '2024-01-01 00:00:00'], // a Sunday belongs to the week of the Monday before
    ['Week', '2024-01-08 00:00:00', '2024-01-08 00:00:00'], // Monday
    ['Week', '2024-03-01 12:00:00', '2024-02-26 00:00:00'], // across a month (leap February)
    ['TenDays', '2024-02-10 23:59:59', '2024-02-01 00:00:00'],
    ['TenDays', '2024-02-11 00:00:00', '2024-02-11 00:00:00'],
    ['TenDays', '2024-02-20 10:00:00', '2024-02-11 00:00:00'],
    ['TenDays', '2024-02-29 10:00:00', '2024-02-21 00:00:00'],
    ['TenDays', '2024-01-31 10:00:00', '2024-01-21 00:00:00'],
    ['HalfYear', '2024-06-30 23:59:59', '2024-01-01 00:00:00'],
    ['HalfYear', '2024-07-01 00:00:00', '2024-07-01 00:00:00'],
    ['Quarter', '2024-09-30 23:59:59', '2024-07-01 00:00:00'],
    ['Quarter', '2024-10-01 00:00:00', '2024-10-01 00:00:00'],
    ['Month', '2024-12-31 23:59:59', '2024-12-01 00:00:00'],
    ['Year', '2024-12-31 23:59:59', '2024-01-01 00:00:00'],
    ['Day', '2024-05-05 13:14:15', '2024-05-05 00:00:00'],
    ['Hour', '2024-05-05 13:14:15', '2024-05-05 13:00:00'],
    ['Minute', '2024-05-05 13:14:15', '2024-05-05 13:14:00'],
    ['Second', '2024-05-05 13:14:15', '2024-05-05 13:14:15'],
  ]
  for (const [kind, moment, start] of cases) t.equal(periodStart(kind as never, moment), start, `${kind} of ${moment}`)
  t.equal(nextPeriodStart('TenDays', '2024-02-21 00:00:00'), '2024-03-01 00:00:00')
  t.equal(nextPeriodStart('Week', '2024-12-30 00:00:00'), '2025-01-06 00:00:00')
  t.equal(nextPeriodStart('HalfYear', '2024-07-01 00:00:00'), '2025-01-01 00:00:00')
})

t.test('the SQL agrees with the TypeScript reference', async (t) => {
  const db = await createTestDatabase('virtual_period_start')
  t.teardown(() => db.drop())
  const random = new Random(7)
  const moments = ['2024-01-07 23:59:59', '2024-02-29 12:00:00', '2023-12-31 23:59:59', '2024-07-01 00:00:00']
  for (let i = 0; i < 200; i++) {
    const ms = Date.UTC(2020, 0, 1) + Math.floor(random.next() * 8 * 365 * 86_400_000)
    moments.push(new Date(ms).toISOString().slice(0, 19).replace('T', ' '))
  }
  for (const kind of PERIOD_KINDS) {
    const sql = `SELECT ${moments.map(() => periodStartSql(kind, 'CAST(? AS DATETIME)')).join(', ')}`
    const params = moments.flatMap((m) => Array.from({ length: (periodStartSql(kind, 'X').match(/X/g) ?? []).length }, () => m))
    const [rows] = await db.pool.query({ sql, rowsAsArray: true }, params)
    const fromSql = (rows as string[][])[0]!
    const fromTs = moments.map((m) => periodStart(kind, m))
    t.same(fromSql, fromTs, kind)
  }
})
