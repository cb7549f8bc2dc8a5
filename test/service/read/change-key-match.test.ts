// The rows a delta reads by key (src/service/read/change-tracking.ts: keyMatch): the changed movements of
// a recorder as ranges of line numbers where they follow one another, single ones by IN. Run on the
// database: exactly the keyed rows come back, not their neighbours in a gap, not another recorder's lines.
import t from 'tap'
import { loadModel } from '../../../src/model/load-model.js'
import { BoundProperty, QueryScope } from '../../../src/odata/bind/index.js'
import { keyMatch } from '../../../src/service/read/change-tracking.js'
import { entitySetSources } from '../../../src/sql/entity-set-sources.js'
import { QueryCompiler } from '../../../src/sql/query-compiler.js'
import { migrate } from '../../../src/store/migrate.js'
import { createTestDatabase } from '../../support/test-database.js'

const database = await createTestDatabase('read_change_key_match')
t.teardown(() => database.drop())
const { pool } = database
const model = loadModel('config/demo.json')
await migrate(pool, model)

const TYPE = 'StandardODATA.Document_GoodsReceipt'
const A = '00000000-0000-0000-0000-00000000000a'
const B = '00000000-0000-0000-0000-00000000000b'
const lines: [string, number][] = [
  ...[1, 2, 3, 4, 5, 6, 7, 8, 9].map((n) => [A, n] as [string, number]),
  ...[1, 2, 3].map((n) => [B, n] as [string, number]),
]
for (const [recorder, line] of lines)
  await pool.query('INSERT INTO ar_Stock (Recorder, Recorder_Type, LineNumber, Period, Quantity, Amount) VALUES (?, ?, ?, NOW(), 1, 1)', [
    recorder,
    TYPE,
    line,
  ])

const source = entitySetSources(model)('AccumulationRegister_Stock_RecordType')
const set = model.entitySetByName.get('AccumulationRegister_Stock_RecordType')!
const keyColumns = set.key.map((property) => source.columnByName.get(property.name)!)

async function rowsMatching(keys: string[][]): Promise<{ sql: string; rows: string[] }> {
  const scope = QueryScope.over(source)
  const query = new QueryCompiler().compileSelect({
    scope,
    columns: keyColumns.map((column) => ({ expression: BoundProperty.create(scope.root, column) })),
    where: [keyMatch(scope.root, keyColumns, keys)],
  })
  const [rows] = (await pool.query({ sql: query.text, rowsAsArray: true }, query.parameters as unknown[])) as unknown as [unknown[][]]
  return { sql: query.text, rows: rows.map((row) => `${String(row[0]).slice(-1)}${row[2]}`).sort() }
}

t.test('runs of line numbers as ranges, lone ones by IN: exactly the keyed rows', async (t) => {
  const keys = [1, 2, 3, 5, 7, 8, 9].map((n) => [A, TYPE, String(n)]).concat([[B, TYPE, '2']])
  const { sql, rows } = await rowsMatching(keys)
  t.same(rows, ['a1', 'a2', 'a3', 'a5', 'a7', 'a8', 'a9', 'b2'], 'the gaps (4, 6) and the other recorder’s lines stay out')
  t.match(sql, />=/, 'a run is a range')
  t.match(sql, / IN \(/, 'a lone line is in a list')
})

t.test('one line, a whole document, no keys', async (t) => {
  t.same((await rowsMatching([[B, TYPE, '3']])).rows, ['b3'])
  t.same((await rowsMatching([1, 2, 3].map((n) => [B, TYPE, String(n)]))).rows, ['b1', 'b2', 'b3'])
  t.same((await rowsMatching([])).rows, [])
})
