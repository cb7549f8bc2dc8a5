// The rows a delta reads by key (src/service/read/change-tracking.ts: keyMatch): the changed movements as
// `Recorder IN (…)` and their key texts (bound-key-text.ts) in a list; a key with a date-time as the
// grouped form, ranges of its last column where they follow one another. Run on the database: exactly the
// keyed rows come back, not their neighbours in a gap, not another recorder's lines, not another type's;
// and the key text the server builds from a row is the text the service builds from the row's key.
import t from 'tap'
import { loadModel } from '../../../src/model/load-model.js'
import { BoundKeyText, BoundProperty, QueryScope } from '../../../src/odata/bind/index.js'
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

t.test('movements: the first key column in a list, each key’s text in another: exactly the keyed rows', async (t) => {
  const keys = [1, 2, 3, 5, 7, 8, 9].map((n) => [A, TYPE, String(n)]).concat([[B, TYPE, '2']])
  const { sql, rows } = await rowsMatching(keys)
  t.same(rows, ['a1', 'a2', 'a3', 'a5', 'a7', 'a8', 'a9', 'b2'], 'the gaps (4, 6) and the other recorder’s lines stay out')
  t.match(sql, /`Recorder` IN \(\?, \?\)/, 'the recorders, once each, are the range read')
  t.match(sql, /CONCAT_WS/, 'each key is checked as one text')
  t.notMatch(sql, / OR /, 'no branch per recorder')
})

t.test('a key naming another register type, or a line no row has, matches nothing', async (t) => {
  t.same((await rowsMatching([[A, 'StandardODATA.Document_GoodsSale', '1']])).rows, [])
  t.same((await rowsMatching([[A, TYPE, '10']])).rows, [])
})

t.test('one line, a whole document, no keys', async (t) => {
  t.same((await rowsMatching([[B, TYPE, '3']])).rows, ['b3'])
  t.same((await rowsMatching([1, 2, 3].map((n) => [B, TYPE, String(n)]))).rows, ['b1', 'b2', 'b3'])
  t.same((await rowsMatching([])).rows, [])
})

t.test('the server’s key text of a row is the service’s, whatever a string holds', async (t) => {
  // Product_Key and PriceType of prices: a GUID and a string. A `|` in the string must not let
  // ('…a', 'b|c') and another split of the same characters meet, and the length counts characters.
  const prices = entitySetSources(model)('InformationRegister_Prices')
  const priceTypes = ['Retail', 'a|b', '|', 'Prix été', 'x ', '']
  for (const priceType of priceTypes)
    await pool.query('INSERT INTO ir_Prices (Period, Product_Key, PriceType, Price) VALUES (NOW(), ?, ?, 1)', [A, priceType])
  const scope = QueryScope.over(prices)
  const parts = ['Product_Key', 'PriceType'].map((name) => BoundProperty.create(scope.root, prices.columnByName.get(name)!))
  const query = new QueryCompiler().compileSelect({
    scope,
    columns: [...parts, BoundKeyText.create(parts)].map((expression) => ({ expression })),
    where: [],
  })
  const [rows] = (await pool.query({ sql: query.text, rowsAsArray: true }, query.parameters as unknown[])) as unknown as [
    [string, string, Buffer][],
  ]
  t.equal(rows.length, priceTypes.length)
  for (const [product, priceType, text] of rows)
    t.equal(text.toString('utf8'), BoundKeyText.of(parts, [product, priceType]), `price type ${JSON.stringify(priceType)}`)
  t.not(BoundKeyText.of(parts, [A, 'a|b']), BoundKeyText.of(parts, [`${A}|1|a`, 'b']), 'a string’s length sets it apart')
})

t.test('a key with a date-time keeps the grouped form: exactly the keyed rows', async (t) => {
  const prices = entitySetSources(model)('InformationRegister_Prices')
  const set = model.entitySetByName.get('InformationRegister_Prices')!
  const columns = set.key.map((property) => prices.columnByName.get(property.name)!)
  for (const period of ['2024-01-01 00:00:00', '2024-02-01 00:00:00'])
    for (const priceType of ['Retail', 'Wholesale'])
      await pool.query('INSERT INTO ir_Prices (Period, Product_Key, PriceType, Price) VALUES (?, ?, ?, 1)', [period, B, priceType])
  const scope = QueryScope.over(prices)
  const query = new QueryCompiler().compileSelect({
    scope,
    columns: columns.map((column) => ({ expression: BoundProperty.create(scope.root, column) })),
    where: [
      keyMatch(scope.root, columns, [
        ['2024-01-01 00:00:00', B, 'Retail'],
        ['2024-02-01 00:00:00', B, 'Wholesale'],
        ['2024-03-01 00:00:00', B, 'Retail'],
      ]),
    ],
  })
  t.notMatch(query.text, /CONCAT_WS/)
  const [rows] = (await pool.query({ sql: query.text, rowsAsArray: true }, query.parameters as unknown[])) as unknown as [string[][]]
  t.same(rows.map(([period, , priceType]) => `${String(period).slice(0, 7)} ${priceType}`).sort(), ['2024-01 Retail', '2024-02 Wholesale'])
})
