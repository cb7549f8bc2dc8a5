// The SQL builder: the exact text and parameters of each helper, then the statements run against the
// real database, so the text is SQL the server accepts and values of any content stay out of the text.
import t from 'tap'
import { Statement, column, id, idList, join, list, raw, rowValues, sql } from '../../src/sql/sql-template.js'
import { rowValuesSharing } from '../../src/store/shared-row-values.js'
import { databaseOf } from '../../src/store/database.js'
import { createTestDatabase } from '../support/test-database.js'

t.test('values become placeholders in text order; fragments splice in with their own values', async (t) => {
  const period = '2024-01-01 00:00:00'
  const inner = sql`${column('m', 'Period')} < ${period}`
  const statement = sql`SELECT ${raw('COUNT(*)')} FROM ${id('ar_Stock')} AS m WHERE ${inner} AND m.${id('Active')} = ${1}`
  t.equal(statement.text, 'SELECT COUNT(*) FROM `ar_Stock` AS m WHERE m.`Period` < ? AND m.`Active` = ?')
  t.same(statement.parameters, [period, 1])
  t.equal(id('a`b').text, '`a``b`', 'a backquote in a name is doubled')
  t.same(id('x').parameters, [])
})

t.test('join, with a text or a fragment between', async (t) => {
  const parts = [sql`a = ${1}`, sql`b = ${2}`, raw('c IS NULL')]
  const and = join(parts, ' AND ')
  t.equal(and.text, 'a = ? AND b = ? AND c IS NULL')
  t.same(and.parameters, [1, 2])
  const between = join([sql`${'x'}`, sql`${'y'}`], sql` + ${0} + `)
  t.equal(between.text, '? + ? + ?')
  t.same(between.parameters, ['x', 0, 'y'])
  t.equal(join([]).text, '')
})

t.test('idList and list', async (t) => {
  t.equal(idList(['Ref_Key', 'Дата']).text, '`Ref_Key`, `Дата`')
  const keys = list(['k1', 'k2', 'k3'])
  t.equal(keys.text, '?, ?, ?')
  t.same(keys.parameters, ['k1', 'k2', 'k3'])
  t.throws(() => list([]), /empty/)
})

t.test('rowValues: one group per row, values flattened row by row', async (t) => {
  const rows = [
    ['a', 1, null],
    ['b', 2, 'x'],
  ]
  const values = rowValues(rows, 3)
  t.equal(values.text, '(?, ?, ?), (?, ?, ?)')
  t.same(values.parameters, ['a', 1, null, 'b', 2, 'x'])
  const insert = sql`INSERT INTO ${id('t')} (${idList(['k', 'n', 's'])}) VALUES ${values}`
  t.equal(insert.text, 'INSERT INTO `t` (`k`, `n`, `s`) VALUES (?, ?, ?), (?, ?, ?)')
  t.same(rowValues([[7]], 1).text, '(?)')
  t.throws(() => rowValues([['a', 1]], 3), /2 values for 3 columns/, 'a row of the wrong width is refused')
  t.throws(() => rowValues([], 3), /empty/)
})

t.test('thousands of rows: no spread of the values, text and values in step', async (t) => {
  const rows = Array.from({ length: 20_000 }, (_, i) => [i, `r${i}`, i % 2, null, 'x'])
  const insert = sql`INSERT INTO t VALUES ${rowValues(rows, 5)}`
  t.equal(insert.parameters.length, 100_000)
  t.equal(insert.text.split('?').length - 1, 100_000)
  t.same(insert.parameters.slice(-5), [19_999, 'r19999', 1, null, 'x'])
  const wide = join([insert, insert], ' ; ')
  t.equal(wide.parameters.length, 200_000, 'join copies large value lists without a stack overflow')
})

t.test('rowValuesSharing: a value every row repeats is written once, escaped; the rest stay placeholders', async (t) => {
  const at = new Date(Date.UTC(2026, 0, 2, 3, 4, 5, 6))
  const rows = [
    [at, "o'clock", 1, null],
    [at, "o'clock", 2, null],
  ]
  const values = rowValuesSharing(rows, 4)
  t.equal(values.text, "('2026-01-02 03:04:05.006', 'o\\'clock', ?, NULL), ('2026-01-02 03:04:05.006', 'o\\'clock', ?, NULL)")
  t.same(values.parameters, [1, 2])
  const one = rowValuesSharing([['a', 1]], 2)
  t.equal(one.text, "('a', 1)", 'one row: every value is shared')
  t.same(one.parameters, [])
  const marked = rowValuesSharing(
    [
      ['/api/v4/$batch?a?b', 'first'],
      ['/api/v4/$batch?a?b', ',1);DROP TABLE t;#'],
    ],
    2,
  )
  t.equal(marked.text, '(?, ?), (?, ?)', 'a value holding a ? stays a placeholder: no formatter can take it for one')
  t.same(marked.parameters, ['/api/v4/$batch?a?b', 'first', '/api/v4/$batch?a?b', ',1);DROP TABLE t;#'])
  t.equal(rowValuesSharing([['why?']], 1).text, '(?)')
  t.throws(() => rowValuesSharing([['a'], ['b', 1]], 2), /1 values for 2 columns/)
  t.throws(() => rowValuesSharing([], 2), /empty/)
})

t.test('a statement made elsewhere nests with its values in place', async (t) => {
  const compiled = new Statement('SELECT a FROM t WHERE b = ?', [5])
  const f = sql`SELECT * FROM (${compiled}) AS x WHERE c IN (${list([6, 7])}) AND d = ${8}`
  t.ok(f instanceof Statement)
  t.equal(f.text, 'SELECT * FROM (SELECT a FROM t WHERE b = ?) AS x WHERE c IN (?, ?) AND d = ?')
  t.same(f.parameters, [5, 6, 7, 8])
})

t.test('the server accepts the statements, and values of any content stay values', async (t) => {
  const database = await createTestDatabase('sql_template')
  t.teardown(() => database.drop())
  const pool = database.pool
  const table = 'sql template `test`'
  await databaseOf(pool).run(
    sql`CREATE TABLE ${id(table)} (${id('k')} VARCHAR(20) PRIMARY KEY, ${id('n')} INT NOT NULL, ${id('s')} VARCHAR(40) NULL)`,
  )
  const hostile = "x'); DROP TABLE t; -- \\ `"
  const rows = [
    ['a', 1, hostile],
    ['b', 2, null],
    ['c', 3, 'three'],
  ]
  await databaseOf(pool).run(sql`INSERT INTO ${id(table)} (${idList(['k', 'n', 's'])}) VALUES ${rowValues(rows, 3)}`)
  const read = await databaseOf(pool).rows<{ k: string; n: number; s: string | null }>(
    sql`SELECT ${idList(['k', 'n', 's'])} FROM ${id(table)} WHERE ${id('k')} IN (${list(['a', 'b', 'c'])}) AND ${id('n')} >= ${1} ORDER BY ${id('k')}`,
  )
  t.same(
    read.map((r) => [r.k, r.n, r.s]),
    rows,
  )
  // Shared values written into the text read back as the placeholders would have given them.
  const shared = [
    ['d', 4, hostile],
    ['e', 4, hostile],
  ]
  await databaseOf(pool).run(sql`INSERT INTO ${id(table)} (${idList(['k', 'n', 's'])}) VALUES ${rowValuesSharing(shared, 3)}`)
  const again = await databaseOf(pool).rows<{ k: string; n: number; s: string | null }>(
    sql`SELECT ${idList(['k', 'n', 's'])} FROM ${id(table)} WHERE ${id('k')} IN (${list(['d', 'e'])}) ORDER BY ${id('k')}`,
  )
  t.same(
    again.map((r) => [r.k, r.n, r.s]),
    shared,
  )
})
