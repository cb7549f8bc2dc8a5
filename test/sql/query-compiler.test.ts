// The SQL compiler: the exact text and parameters for each kind of bound node (kysely's habit), then
// every statement run against the real database, so the text is SQL the server accepts; values of any
// content stay out of the text.
import t, { type Test } from 'tap'
import { loadModel } from '../../src/model/load-model.js'
import {
  BoundAggregate,
  BoundLiteral,
  BoundProperty,
  QueryScope,
  bindApply,
  bindFilter,
  type BindContext,
} from '../../src/odata/bind/index.js'
import { parseApply, parseFilter } from '../../src/odata/expression/index.js'
import { containsPattern, endsWithPattern, escapeLikeValue, startsWithPattern } from '../../src/sql/like-pattern.js'
import { entitySetSources } from '../../src/sql/entity-set-sources.js'
import { QueryCompiler } from '../../src/sql/query-compiler.js'
import type { SelectPlan } from '../../src/sql/select-plan.js'
import type { Statement } from '../../src/statement.js'
import { migrate } from '../../src/store/migrate.js'
import { createTestDatabase } from '../support/test-database.js'
import { keysetCondition } from '../../src/service/read/keyset-condition.js'

const model = loadModel('config/demo.json')
const resolve = entitySetSources(model)
const database = await createTestDatabase('sql_query_compiler')
t.teardown(() => database.drop())
await migrate(database.pool, model)
const context: BindContext = { option: '$filter', errorCode: 'InvalidFilter', resolve, namespace: model.namespace }

/** SELECT of the set's key columns with the filter, compiled. */
function compileFilter(setName: string, text: string, extra: Partial<SelectPlan> = {}) {
  const scope = QueryScope.over(resolve(setName))
  const where = bindFilter(parseFilter(text, { option: '$filter' }), scope.root, context)
  const columns = scope.root.source.rowKey.map((column) => ({ expression: BoundProperty.create(scope.root, column) }))
  return new QueryCompiler().compileSelect({ scope, columns, where: [where], ...extra })
}

async function runs(t: Test, query: Statement) {
  await t.resolves(
    database.pool.query({ sql: query.text, rowsAsArray: true }, query.parameters as unknown[]),
    `runs: ${query.text.slice(0, 120)}`,
  )
}

const CASES: [string, string, string, unknown[]][] = [
  [
    'Catalog_Products',
    "Code eq 'x'",
    'SELECT t0.`Ref_Key` FROM `c_Products` AS t0 WHERE ((t0.`Code` = ?) AND (CHAR_LENGTH(t0.`Code`) = ?))',
    ['x', 1],
  ],
  [
    'Catalog_Products',
    "contains(Description,'100%_!')",
    "SELECT t0.`Ref_Key` FROM `c_Products` AS t0 WHERE (t0.`Description` LIKE ? ESCAPE '!')",
    ['%100!%!_!!%'],
  ],
  [
    'Catalog_Products',
    "startswith(Description,Code) and endswith(Description,'z')",
    "SELECT t0.`Ref_Key` FROM `c_Products` AS t0 WHERE ((LEFT(t0.`Description`, CHAR_LENGTH(t0.`Code`)) = t0.`Code`) AND (t0.`Description` LIKE ? ESCAPE '!'))",
    ['%z'],
  ],
  [
    'Catalog_Products',
    "indexof(Description,'a') eq 1 and length(Code) lt 3",
    'SELECT t0.`Ref_Key` FROM `c_Products` AS t0 WHERE (((LOCATE(?, t0.`Description`) - 1) = ?) AND (CHAR_LENGTH(t0.`Code`) < ?))',
    ['a', 1, 3],
  ],
  [
    'Catalog_Products',
    "substring(Code,1,2) eq 'x'",
    'SELECT t0.`Ref_Key` FROM `c_Products` AS t0 WHERE ((SUBSTRING(t0.`Code`, GREATEST(?, 0) + 1, GREATEST(?, 0)) = ?) AND (CHAR_LENGTH(SUBSTRING(t0.`Code`, GREATEST(?, 0) + 1, GREATEST(?, 0))) = ?))',
    [1, 2, 'x', 1, 2, 1],
  ],
  [
    'Catalog_Products',
    "Code in ('a',null,'b')",
    'SELECT t0.`Ref_Key` FROM `c_Products` AS t0 WHERE ((t0.`Code` IN (?, ?) AND (CHAR_LENGTH(t0.`Code`), t0.`Code`) IN ((?, ?), (?, ?))) OR t0.`Code` IS NULL)',
    ['a', 'b', 1, 'a', 1, 'b'],
  ],
  [
    'Catalog_Products',
    'Description eq null or not DeletionMark',
    'SELECT t0.`Ref_Key` FROM `c_Products` AS t0 WHERE ((t0.`Description` IS NULL) OR (NOT t0.`DeletionMark`))',
    [],
  ],
  [
    'AccumulationRegister_Stock_RecordType',
    "RecordType eq 'Receipt'",
    'SELECT t0.`Recorder`, t0.`LineNumber` FROM `ar_Stock` AS t0 WHERE ((CAST(t0.`RecordType` AS CHAR CHARACTER SET utf8mb4) COLLATE utf8mb4_bin = ?) AND (CHAR_LENGTH(CAST(t0.`RecordType` AS CHAR CHARACTER SET utf8mb4) COLLATE utf8mb4_bin) = ?))',
    ['Receipt', 7],
  ],
  [
    'AccumulationRegister_Stock_RecordType',
    'Quantity div LineNumber gt 2.5 and LineNumber div 2 eq 1 and LineNumber mod 2 eq 0',
    'SELECT t0.`Recorder`, t0.`LineNumber` FROM `ar_Stock` AS t0 WHERE ((((t0.`Quantity` / CASE WHEN t0.`LineNumber` = 0 THEN ~0 + (t0.`LineNumber` = 0) ELSE t0.`LineNumber` END) > CAST(? AS DECIMAL(65,30))) AND ((t0.`LineNumber` DIV ?) = ?)) AND (MOD(t0.`LineNumber`, ?) = ?))',
    ['2.5', 2, 1, 2, 0],
  ],
  [
    'AccumulationRegister_Stock_RecordType',
    "Period add duration'P1D' gt 2024-01-01T00:00:00Z",
    'SELECT t0.`Recorder`, t0.`LineNumber` FROM `ar_Stock` AS t0 WHERE (TIMESTAMPADD(SECOND, (?), t0.`Period`) > CAST(? AS DATETIME(6)))',
    [86400, '2024-01-01 00:00:00'],
  ],
  [
    'AccumulationRegister_Stock_RecordType',
    'year(Period) eq 2024 and date(Period) eq 2024-02-01 and time(Period) lt 10:00:00',
    'SELECT t0.`Recorder`, t0.`LineNumber` FROM `ar_Stock` AS t0 WHERE (((YEAR(t0.`Period`) = ?) AND (DATE(t0.`Period`) = CAST(? AS DATE))) AND (TIME(t0.`Period`) < CAST(? AS TIME(6))))',
    [2024, '2024-02-01', '10:00:00'],
  ],
  [
    'AccumulationRegister_Stock_RecordType',
    'round(Quantity) eq floor(Amount) and ceiling(Quantity) ne 1',
    'SELECT t0.`Recorder`, t0.`LineNumber` FROM `ar_Stock` AS t0 WHERE ((ROUND(t0.`Quantity`) = FLOOR(t0.`Amount`)) AND (CEILING(t0.`Quantity`) <> ?))',
    [1],
  ],
  [
    'AccumulationRegister_Stock_RecordType',
    "cast(Quantity,Edm.String) eq '1' and cast(Period,Edm.String) ne '' and cast(Active,Edm.String) eq 'true'",
    'SELECT t0.`Recorder`, t0.`LineNumber` FROM `ar_Stock` AS t0 WHERE ((((CAST(t0.`Quantity` AS CHAR CHARACTER SET utf8mb4) COLLATE utf8mb4_bin = ?) AND (CHAR_LENGTH(CAST(t0.`Quantity` AS CHAR CHARACTER SET utf8mb4) COLLATE utf8mb4_bin) = ?)) AND ' +
      "(NOT ((DATE_FORMAT(t0.`Period`, '%Y-%m-%dT%H:%i:%sZ') = ?) AND (CHAR_LENGTH(DATE_FORMAT(t0.`Period`, '%Y-%m-%dT%H:%i:%sZ')) = ?)))) AND ((IF(t0.`Active`, 'true', 'false') = ?) AND (CHAR_LENGTH(IF(t0.`Active`, 'true', 'false')) = ?)))",
    ['1', 1, '', 0, 'true', 4],
  ],
  [
    'AccumulationRegister_Stock_RecordType',
    "Product/Description eq 'x'",
    'SELECT t0.`Recorder`, t0.`LineNumber` FROM `ar_Stock` AS t0 LEFT JOIN `c_Products` AS t1 ON t1.`Ref_Key` = t0.`Product_Key` WHERE ((t1.`Description` = ?) AND (CHAR_LENGTH(t1.`Description`) = ?))',
    ['x', 1],
  ],
  [
    'Document_GoodsReceipt',
    'Goods/all(g: g/Quantity gt 1)',
    'SELECT t0.`Ref_Key` FROM `d_GoodsReceipt` AS t0 WHERE (NOT EXISTS (SELECT 1 FROM `d_GoodsReceipt__Goods` AS t1 WHERE t1.`Ref_Key` = t0.`Ref_Key` AND ((t1.`Quantity` > ?)) IS NOT TRUE))',
    [1],
  ],
  [
    'Document_GoodsReceipt',
    'Goods/$count($filter=Quantity gt 1) eq 2',
    'SELECT t0.`Ref_Key` FROM `d_GoodsReceipt` AS t0 WHERE ((SELECT COUNT(*) FROM `d_GoodsReceipt__Goods` AS t1 WHERE t1.`Ref_Key` = t0.`Ref_Key` AND ((t1.`Quantity` > ?))) = ?)',
    [1, 2],
  ],
  [
    'AccumulationRegister_Stock',
    "RecordSet/any(m: m/RecordType eq 'Expense')",
    'SELECT t0.`Recorder`, t0.`Recorder_Type` FROM (SELECT DISTINCT `Recorder`, `Recorder_Type` FROM `ar_Stock`) AS t0 WHERE (EXISTS (SELECT 1 FROM `ar_Stock` AS t1 WHERE t1.`Recorder` = t0.`Recorder` AND t1.`Recorder_Type` = t0.`Recorder_Type` AND ' +
      '(((CAST(t1.`RecordType` AS CHAR CHARACTER SET utf8mb4) COLLATE utf8mb4_bin = ?) AND (CHAR_LENGTH(CAST(t1.`RecordType` AS CHAR CHARACTER SET utf8mb4) COLLATE utf8mb4_bin) = ?)))))',
    ['Expense', 7],
  ],
]

t.test('exact SQL and parameters, and the server accepts it', async (t) => {
  for (const [set, filter, expectedSql, expectedParameters] of CASES) {
    const compiled = compileFilter(set, filter)
    t.equal(compiled.text, expectedSql, filter)
    t.same(compiled.parameters, expectedParameters, `${filter}: parameters`)
    await runs(t, compiled)
  }
})

t.test('ORDER BY, LIMIT, OFFSET, keyset conditions', async (t) => {
  const scope = QueryScope.over(resolve('AccumulationRegister_Stock_RecordType'))
  const [recorder, lineNumber] = scope.root.source.rowKey
  const order = [
    { expression: BoundProperty.create(scope.root, scope.root.source.columnByName.get('Period')!), descending: true },
    { expression: BoundProperty.create(scope.root, recorder!), descending: false },
    { expression: BoundProperty.create(scope.root, lineNumber!), descending: false },
  ]
  const last = [
    BoundLiteral.create('Edm.DateTimeOffset', '2024-01-01 00:00:00'),
    BoundLiteral.create('Edm.Guid', '00000000-0000-4000-8000-000000000001'),
    BoundLiteral.create('Edm.Int32', 3),
  ]
  const compiled = new QueryCompiler().compileSelect({
    scope,
    columns: [{ expression: order[1]!.expression }],
    where: [keysetCondition(order, last)],
    orderBy: [...order, { expression: BoundLiteral.create('Edm.Int32', 1), descending: false }],
    limit: 5001,
    offset: 10,
  })
  t.equal(
    compiled.text,
    'SELECT t0.`Recorder` FROM `ar_Stock` AS t0 WHERE (((t0.`Period` < CAST(? AS DATETIME(6))) OR ((t0.`Period` = CAST(? AS DATETIME(6))) AND (t0.`Recorder` > ?))) OR (((t0.`Period` = CAST(? AS DATETIME(6))) AND (t0.`Recorder` = ?)) AND (t0.`LineNumber` > ?))) ORDER BY t0.`Period` DESC, t0.`Recorder` ASC, t0.`LineNumber` ASC LIMIT ? OFFSET ?',
    'NOT NULL columns need no NULL branches; a constant is no ORDER BY item',
  )
  t.same(compiled.parameters, [
    '2024-01-01 00:00:00',
    '2024-01-01 00:00:00',
    '00000000-0000-4000-8000-000000000001',
    '2024-01-01 00:00:00',
    '00000000-0000-4000-8000-000000000001',
    3,
    5001,
    10,
  ])
  await runs(t, compiled)
  const counted = new QueryCompiler().compileSelect({ scope, columns: [{ expression: BoundAggregate.COUNT_ROWS }], where: [], offset: 5 })
  t.equal(counted.text, 'SELECT COUNT(*) FROM `ar_Stock` AS t0 LIMIT 18446744073709551615 OFFSET ?')
  await runs(t, counted)
})

t.test('$apply transformations become derived tables', async (t) => {
  const applied = bindApply(
    parseApply('filter(Quantity gt 1)/groupby((Product/Code),aggregate(Amount with sum as A))/orderby(A desc)/top(3)', {
      option: '$apply',
    }),
    resolve('AccumulationRegister_Stock_RecordType'),
    { ...context, option: '$apply', errorCode: 'InvalidApply' },
  )
  const scope = QueryScope.over(applied.output)
  const compiled = new QueryCompiler().compileSelect({
    scope,
    columns: applied.output.columns.map((column) => ({ expression: BoundProperty.create(scope.root, column) })),
    where: [],
  })
  t.equal(
    compiled.text,
    'SELECT t0.`c0`, t0.`c1` FROM (SELECT t1.`c0` AS `c0`, t1.`c1` AS `c1` FROM (SELECT t2.`g0` AS `c0`, t2.`a0` AS `c1` FROM (SELECT t4.`Code` AS `g0`, SUM(t3.`c9`) AS `a0` FROM ' +
      '(SELECT t5.`Recorder` AS `c0`, t5.`Recorder_Type` AS `c1`, t5.`LineNumber` AS `c2`, t5.`Period` AS `c3`, t5.`Active` AS `c4`, t5.`RecordType` AS `c5`, t5.`Warehouse_Key` AS `c6`, ' +
      't5.`Product_Key` AS `c7`, t5.`Quantity` AS `c8`, t5.`Amount` AS `c9` FROM `ar_Stock` AS t5 WHERE (t5.`Quantity` > ?)) AS t3 LEFT JOIN `c_Products` AS t4 ON t4.`Ref_Key` = t3.`c7` ' +
      'GROUP BY t4.`Code`) AS t2) AS t1 ORDER BY t1.`c1` DESC LIMIT ?) AS t0',
    'filter, groupby through a reference, orderby (carried), top (ORDER BY with LIMIT inside its derived table)',
  )
  t.same(compiled.parameters, [1, 3])
  await runs(t, compiled)
})

t.test('values never enter the SQL text', async (t) => {
  const hostile = ["'; DROP TABLE c_Products; --", '\\', '`', '" OR ""="', '?', '??', '%_!', '\u0000', '*/ SELECT 1 /*', 'é\u202e']
  for (const value of hostile) {
    const literal = `'${value.replaceAll("'", "''")}'`
    const compiled = compileFilter(
      'Catalog_Products',
      `Code eq ${literal} or contains(Description,${literal}) or Article in (${literal},'x')`,
    )
    t.notOk(compiled.text.includes(value) && value.length > 1, `${JSON.stringify(value)} is not in the text`)
    t.equal(compiled.text.split('?').length - 1, compiled.parameters.length, 'one placeholder per parameter')
    t.ok(compiled.parameters.includes(value), 'the value is a parameter')
    await runs(t, compiled)
  }
  const [rows] = await database.pool.query("SHOW TABLES LIKE 'c_Products'")
  t.equal((rows as unknown[]).length, 1, 'the table is still there')
})

t.test('LIKE escaping', async (t) => {
  t.equal(escapeLikeValue('50%_off!'), '50!%!_off!!')
  t.equal(containsPattern('a%'), '%a!%%')
  t.equal(startsWithPattern('_x'), '!_x%')
  t.equal(endsWithPattern('x!'), '%x!!')
  await database.pool.query(
    "INSERT INTO c_Products (Ref_Key, Code, Description, Article, Unit, DataVersion) VALUES ('00000000-0000-4000-8000-0000000000a1', '1', '50%_off!', '', '', '1'), ('00000000-0000-4000-8000-0000000000a2', '2', '50xxoff!', '', '', '1')",
  )
  for (const [filter, expected] of [
    ["contains(Description,'%_')", 1],
    ["startswith(Description,'50%')", 1],
    ["endswith(Description,'off!')", 2],
    ["contains(Description,'!')", 2],
    ["contains(Description,'0x')", 1],
  ] as const) {
    const compiled = compileFilter('Catalog_Products', filter)
    const [rows] = await database.pool.query({ sql: compiled.text, rowsAsArray: true }, compiled.parameters as unknown[])
    t.equal((rows as unknown[]).length, expected, filter)
  }
})
