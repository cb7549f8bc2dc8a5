// The binder on its own: names resolved against the model (joins shared, lambdas scoped), types checked,
// literals in the store's form, errors with the option, the position and the right code — and a source
// that is not an entity set (the shape virtual tables will have) bound and compiled the same way.
import t from 'tap'
import { ExpressionError } from '../../../src/odata/expression/index.js'
import {
  bindApply,
  bindExpand,
  bindFilter,
  bindOrderBy,
  bindSelect,
  columnMap,
  QueryScope,
  rootEnvironment,
  syntheticColumn,
  type BindContext,
  type BoundExpression,
  type QueryableSource,
} from '../../../src/odata/bind/index.js'
import { parseApply, parseExpand, parseFilter, parseOrderBy, parseSelect } from '../../../src/odata/expression/index.js'
import { loadModel } from '../../../src/model/load-model.js'
import { entitySetSources } from '../../../src/sql/entity-set-sources.js'
import { QueryCompiler } from '../../../src/sql/query-compiler.js'
import { Statement } from '../../../src/statement.js'

const model = loadModel('config/demo.json')
const resolve = entitySetSources(model)
const context = (
  option = '$filter',
  errorCode: BindContext['errorCode'] = 'InvalidFilter',
  aliases: Record<string, string> = {},
): BindContext => ({
  option,
  errorCode,
  resolve,
  namespace: model.namespace,
  parameterAlias: (name) => aliases[name],
})

function filter(setName: string, text: string, bindContext = context()) {
  const scope = QueryScope.over(resolve(setName))
  const bound = bindFilter(parseFilter(text, { option: bindContext.option }), scope.root, bindContext)
  return { scope, bound }
}

function sql(bound: BoundExpression, scope: QueryScope) {
  return new QueryCompiler().compileExpression(bound, scope)
}

function refusal(run: () => unknown): ExpressionError {
  try {
    run()
  } catch (error) {
    if (error instanceof ExpressionError) return error
    throw error
  }
  throw new Error('no error')
}

t.test('names, joins and lambdas', async (t) => {
  const { scope, bound } = filter(
    'AccumulationRegister_Stock_RecordType',
    "Product/Description eq 'x' and Product/Code ne 'y' and Warehouse/Code eq 'z'",
  )
  t.equal(scope.joins.length, 2, 'one join per navigation, shared by its properties')
  t.same(sql(bound, scope).parameters, ['x', 1, 'y', 1, 'z', 1])
  t.equal(
    sql(bound, scope).text,
    '((((t1.`Description` = ?) AND (CHAR_LENGTH(t1.`Description`) = ?)) AND (NOT ((t1.`Code` = ?) AND (CHAR_LENGTH(t1.`Code`) = ?)))) AND ((t2.`Code` = ?) AND (CHAR_LENGTH(t2.`Code`) = ?)))',
  )
  const lambda = filter('Document_GoodsReceipt', "Goods/any(g: g/Product/Code eq 'a' and $it/Warehouse/Code eq 'b')")
  t.equal(lambda.scope.joins.length, 1, 'the $it path joins in the outer query')
  t.equal(
    sql(lambda.bound, lambda.scope).text,
    '(EXISTS (SELECT 1 FROM `d_GoodsReceipt__Goods` AS t2 LEFT JOIN `c_Products` AS t3 ON t3.`Ref_Key` = t2.`Product_Key` WHERE t2.`Ref_Key` = t0.`Ref_Key` AND ' +
      '((((t3.`Code` = ?) AND (CHAR_LENGTH(t3.`Code`) = ?)) AND ((t1.`Code` = ?) AND (CHAR_LENGTH(t1.`Code`) = ?))))))',
    'the lambda path joins inside the subquery',
  )
})

t.test('literals take the store form', async (t) => {
  const parameters = (setName: string, text: string) => {
    const { scope, bound } = filter(setName, text)
    return sql(bound, scope).parameters
  }
  t.same(parameters('Document_GoodsReceipt', 'Date eq 2024-01-01T03:00:00+03:00'), ['2024-01-01 00:00:00'])
  t.same(parameters('Document_GoodsReceipt', "Date eq datetime'2024-01-01T00:00:00.25'"), ['2024-01-01 00:00:00.25'])
  t.same(parameters('Document_GoodsReceipt', 'Date gt 2024-05-06'), ['2024-05-06 00:00:00'], 'a date against a date-time is its midnight')
  t.same(parameters('Document_GoodsReceipt', `Warehouse_Key eq 'ABCDEF01-0000-4000-8000-000000000000'`), [
    'abcdef01-0000-4000-8000-000000000000',
  ])
  t.same(parameters('AccumulationRegister_Stock_RecordType', 'Quantity eq 007.50'), ['7.50'])
  t.same(parameters('AccumulationRegister_Stock_RecordType', 'LineNumber eq 9223372036854775807'), ['9223372036854775807'])
  const { scope, bound } = filter('AccumulationRegister_Stock_RecordType', 'Quantity eq 1.5 and LineNumber eq 9223372036854775807')
  t.equal(
    sql(bound, scope).text,
    '((t0.`Quantity` = CAST(? AS DECIMAL(65,30))) AND (t0.`LineNumber` = CAST(? AS SIGNED)))',
    'exact comparisons for decimals and Int64',
  )
})

t.test('errors: code, option, position', async (t) => {
  const cases: [string, string, string, number][] = [
    ['Catalog_Products', "Colour eq 'x'", 'InvalidFilter', 0],
    ['Catalog_Products', "Code eq 'x' or Code eq 5", 'InvalidFilter', 20],
    ['Catalog_Products', 'Code', 'InvalidFilter', 0],
    ['Catalog_Products', 'contains(Code, 5)', 'InvalidFilter', 15],
    ['AccumulationRegister_Stock_RecordType', "Product/Nope eq 'x'", 'InvalidFilter', 8],
    ['AccumulationRegister_Stock_RecordType', "Product eq 'x'", 'InvalidFilter', 0],
    ['AccumulationRegister_Stock_RecordType', "RecordType has StandardODATA.T'Receipt'", 'InvalidFilter', 11],
    ['AccumulationRegister_Stock_RecordType', 'Quantity eq @nothing', 'InvalidFilter', 12],
    ['Document_GoodsReceipt', 'Goods gt 1', 'InvalidFilter', 0],
    ['Document_GoodsReceipt', 'Goods/any(g: g/Colour eq 1)', 'InvalidFilter', 15],
    ['Document_GoodsReceipt', "Warehouse_Key eq 'nope'", 'InvalidLiteral', 17],
    ['InformationRegister_Settings', 'SurrogateKey eq 0', 'SurrogateKeyNotFilterable', 0],
  ]
  for (const [set, text, code, position] of cases) {
    const error = refusal(() => filter(set, text))
    t.equal(error.code, code, `${text}: ${error.message}`)
    t.equal(error.target, '$filter', text)
    t.equal(error.position, position, `${text}: position`)
    t.equal(error.status, 400)
  }
  const condition = refusal(() => filter('AccumulationRegister_Stock_RecordType', 'Colour eq 1', context('Condition', 'InvalidParameter')))
  t.equal(condition.code, 'InvalidParameter', "a function's Condition binds with its own code")
  t.equal(condition.target, 'Condition')
})

t.test('parameter aliases', async (t) => {
  const { scope, bound } = filter(
    'Catalog_Products',
    'Code eq @c and Description eq @d',
    context('$filter', 'InvalidFilter', { c: "'7'", d: '@c' }),
  )
  t.same(sql(bound, scope), {
    text: '(((t0.`Code` = ?) AND (CHAR_LENGTH(t0.`Code`) = ?)) AND ((t0.`Description` = ?) AND (CHAR_LENGTH(t0.`Description`) = ?)))',
    parameters: ['7', 1, '7', 1],
  })
  const loop = refusal(() => filter('Catalog_Products', 'Code eq @a', context('$filter', 'InvalidFilter', { a: '@b', b: '@a' })))
  t.match(loop.message, /refers to itself/)
})

t.test('$orderby, $select, $expand', async (t) => {
  const scope = QueryScope.over(resolve('AccumulationRegister_Stock_RecordType'))
  const order = bindOrderBy(
    parseOrderBy('Product/Description desc,Quantity', { option: '$orderby' }).items,
    rootEnvironment(context('$orderby', 'InvalidOrderBy'), scope.root),
  )
  t.same(
    order.map((o) => o.descending),
    [true, false],
  )
  t.equal(scope.joins.length, 1)
  const select = bindSelect(
    parseSelect('Quantity,Product,Period', { option: '$select' }),
    scope.root.source,
    context('$select', 'InvalidSelect'),
  )
  t.same(
    select.columns.map((c) => c.name),
    ['Period', 'Quantity'],
    'model order',
  )
  t.same(select.names, ['Period', 'Quantity', 'Product'])
  const expand = bindExpand(
    parseExpand('Product($select=Code;$expand=*),Warehouse/$ref', { option: '$expand' }),
    scope.root.source,
    context('$expand', 'InvalidExpand'),
  )
  t.same(
    expand.map((e) => [e.navigation.name, e.form]),
    [
      ['Product', 'entities'],
      ['Warehouse', 'references'],
    ],
  )
  t.same(
    expand[0]!.select.columns.map((c) => c.name),
    ['Code'],
  )
})

t.test('$apply yields a new source', async (t) => {
  const applied = bindApply(
    parseApply(
      'filter(Quantity gt 0)/groupby((Product/Description,Warehouse_Key),aggregate(Amount with sum as Total,$count as N))/filter(Total gt 10)',
      { option: '$apply' },
    ),
    resolve('AccumulationRegister_Stock_RecordType'),
    context('$apply', 'InvalidApply'),
  )
  t.ok(applied.aggregated)
  t.same(
    applied.output.columns.map((c) => [c.name, c.type]),
    [
      ['Product/Description', 'Edm.String'],
      ['Warehouse_Key', 'Edm.Guid'],
      ['Total', 'Edm.Decimal'],
      ['N', 'Edm.Int64'],
    ],
  )
  t.same(applied.contextItems, ['Product(Description)', 'Warehouse_Key', 'Total', 'N'])
  t.same(
    applied.output.rowKey.map((c) => c.name),
    ['Product/Description', 'Warehouse_Key'],
    'groups are identified by their grouping values',
  )
  const error = refusal(() =>
    bindApply(
      parseApply('aggregate(Description with sum as S)', { option: '$apply' }),
      resolve('Catalog_Products'),
      context('$apply', 'InvalidApply'),
    ),
  )
  t.equal(error.code, 'InvalidApply')
  t.equal(error.position, 10)
})

t.test('a source that is not an entity set binds and compiles the same way', async (t) => {
  // The shape a virtual table will have: a derived table made by the service, result columns, a reference.
  const warehouse = syntheticColumn('Warehouse_Key', 'w', 'Edm.Guid')
  const balance = syntheticColumn('QuantityBalance', 'b', 'Edm.Decimal')
  const columns = [warehouse, balance]
  const source: QueryableSource = {
    name: 'AccumulationRegister_Stock_Balance',
    relation: {
      kind: 'derived',
      statement: new Statement(
        'SELECT `Warehouse_Key` AS `w`, SUM(`Quantity`) AS `b` FROM `ar_Stock` WHERE `Period` < ? GROUP BY `Warehouse_Key`',
        ['2024-06-01 00:00:00'],
      ),
    },
    columns,
    columnByName: columnMap(columns),
    navigationByName: new Map([
      ['Warehouse', { kind: 'reference', name: 'Warehouse', targetSet: 'Catalog_Warehouses', foreignKey: warehouse }],
    ]),
    rowKey: [warehouse],
    ordering: [{ column: warehouse, descending: false }],
    entitySet: undefined,
  }
  const scope = QueryScope.over(source)
  const predicate = bindFilter(parseFilter("QuantityBalance gt 5 and Warehouse/Code eq '01'", { option: '$filter' }), scope.root, context())
  const compiled = new QueryCompiler().compileSelect({
    scope,
    columns: [{ expression: { kind: 'BoundProperty', type: 'Edm.Decimal', range: scope.root, column: balance } }],
    where: [predicate],
  })
  t.equal(
    compiled.text,
    'SELECT t0.`b` FROM (SELECT `Warehouse_Key` AS `w`, SUM(`Quantity`) AS `b` FROM `ar_Stock` WHERE `Period` < ? GROUP BY `Warehouse_Key`) AS t0 LEFT JOIN `c_Warehouses` AS t1 ON t1.`Ref_Key` = t0.`w` ' +
      'WHERE ((t0.`b` > ?) AND ((t1.`Code` = ?) AND (CHAR_LENGTH(t1.`Code`) = ?)))',
  )
  t.same(compiled.parameters, ['2024-06-01 00:00:00', 5, '01', 2], 'the derived table’s own parameters come first, in text order')
})
