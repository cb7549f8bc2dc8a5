// $orderby, $select, $expand and $apply: the AST of each construct, and their syntax errors with the
// option's own code and target.
import t, { type Test } from 'tap'
import { parseExpand, type ExpandNode } from '../../../src/odata/expression/index.js'
import { apply, errorIn, expand, orderby, select, summary, type OptionName } from './fixtures/parse-helpers.js'

const CODES: Record<OptionName, string> = {
  $filter: 'InvalidFilter',
  $orderby: 'InvalidOrderBy',
  $select: 'InvalidSelect',
  $expand: 'InvalidExpand',
  $apply: 'InvalidApply',
}

const error = (t: Test, option: OptionName, text: string, position: number, message: string) =>
  t.same(summary(errorIn(option, text)), { code: CODES[option], target: option, position, positionInMessage: true }, message)

t.test('$orderby (ABNF orderby, orderbyItem)', async (t) => {
  t.equal(orderby('Name'), '(orderby (asc (path Name)))')
  t.equal(orderby('Name asc,Rating,ReleaseDate desc'), '(orderby (asc (path Name)) (asc (path Rating)) (desc (path ReleaseDate)))')
  t.equal(orderby('Name\tdesc'), '(orderby (desc (path Name)))')
  t.equal(
    orderby('Period desc, Product/Description'),
    '(orderby (desc (path Period)) (asc (path Product Description)))',
    'whitespace after a comma is tolerated',
  )
  t.equal(orderby('Cost ge Revenue asc'), '(orderby (asc (ge (path Cost) (path Revenue))))', 'any expression may be sorted on')
  t.equal(orderby('Goods/$count desc'), '(orderby (desc (path Goods $count)))')
  t.equal(orderby('year(Period) desc,length(Code)'), '(orderby (desc (year (path Period))) (asc (length (path Code))))')
  t.equal(orderby('asc'), '(orderby (asc (path asc)))', 'a property may be called asc')
  error(t, '$orderby', 'Name descending', 5, 'only asc or desc')
  error(t, '$orderby', 'Name DESC', 5, 'case-sensitive')
  error(t, '$orderby', 'Name,', 5, 'an item after the comma')
  error(t, '$orderby', ',Name', 0, 'an item before the comma')
  error(t, '$orderby', 'Name asc desc', 9, 'one direction')
  t.equal(orderby('Nameasc'), '(orderby (asc (path Nameasc)))', 'asc must be separated by whitespace to be a direction')
})

t.test('$select (ABNF select, selectItem)', async (t) => {
  t.equal(select('Description'), '(select (path Description))')
  t.equal(select('Rating,ReleaseDate'), '(select (path Rating) (path ReleaseDate))')
  t.equal(select('*'), '(select *)')
  t.equal(select('Description,*'), '(select (path Description) *)')
  t.equal(select('Address/Street'), '(select (path Address Street))')
  t.equal(select('Model.PreferredSupplier/Name'), '(select (path <Model.PreferredSupplier> Name))')
  t.equal(select('Address/Model.AddressWithLocation'), '(select (path Address <Model.AddressWithLocation>))')
  t.equal(select('QuantityBalance, Product_Key'), '(select (path QuantityBalance) (path Product_Key))')
  error(t, '$select', 'Name,', 5, 'an item after the comma')
  error(t, '$select', 'Address($select=Street)', 7, 'no nested options')
  error(t, '$select', 'Address/*', 8, 'no star on a path')
  error(t, '$select', 'Name eq 1', 5, 'not an expression')
  error(t, '$select', '@Core.Messages', 0, 'no annotations')
  error(t, '$select', 'Product/$count', 8, 'no $count')
  error(t, '$select', '', 0, 'not empty')
})

t.test('$expand (ABNF expand, expandItem, expandOption)', async (t) => {
  t.equal(expand('Product'), '(expand ((path Product)))')
  t.equal(expand('Customer,Items'), '(expand ((path Customer)) ((path Items)))')
  t.equal(expand('Items/$ref'), '(expand ((path Items) $ref))')
  t.equal(expand('Items/$count'), '(expand ((path Items) $count))')
  t.equal(expand('*'), '(expand (*))')
  t.equal(expand('*/$ref'), '(expand (* $ref))')
  t.equal(expand('*($levels=2)'), '(expand (* ($levels 2)))')
  t.equal(expand('Model.VipCustomer/Orders'), '(expand ((path <Model.VipCustomer> Orders)))')
  t.equal(
    expand('Items($filter=Quantity gt 1;$orderby=Price desc;$select=Quantity,Price;$top=5;$skip=10;$count=true)'),
    '(expand ((path Items) ($filter (gt (path Quantity) 1)) ($orderby (desc (path Price))) ($select (path Quantity) (path Price)) ($top 5) ($skip 10) ($count true)))',
  )
  t.equal(
    expand('Customer,Items($select=Quantity;$expand=Product($select=Name,Price))'),
    '(expand ((path Customer)) ((path Items) ($select (path Quantity)) ($expand ((path Product) ($select (path Name) (path Price))))))',
  )
  t.equal(expand('Customer($levels=max)'), '(expand ((path Customer) ($levels max)))')
  t.equal(
    expand('expand=Customer,Items(expand=Product)'.slice(7)),
    '(expand ((path Customer)) ((path Items) ($expand ((path Product)))))',
    'option names without $ (OData 4.01)',
  )
  t.equal(expand('Items($FILTER=Quantity gt 1)'), '(expand ((path Items) ($filter (gt (path Quantity) 1))))', 'option names in any case')
  t.equal(expand("Items/$count($filter=Name eq 'Hugo')"), "(expand ((path Items) $count ($filter (eq (path Name) 'Hugo'))))")
  t.equal(expand('Items/$ref($filter=Quantity gt 1;$top=2)'), '(expand ((path Items) $ref ($filter (gt (path Quantity) 1)) ($top 2)))')
  t.equal(
    expand('Products($apply=aggregate(Price with average as AveragePrice))'),
    '(expand ((path Products) ($apply (aggregate (average (path Price) as AveragePrice)))))',
    '$apply inside $expand (aggregation ABNF: expandOption =/ apply)',
  )
  const node = parseExpand('Items($filter=Quantity gt 1)', { option: '$expand' }) as ExpandNode
  t.equal(node.items[0].options.filter?.position, 23, 'nested positions are offsets into the whole $expand text')
})

t.test('$expand errors', async (t) => {
  error(t, '$expand', 'Customer/$ref($select=Name)', 14, 'no $select after $ref (ABNF expandRefOption)')
  error(t, '$expand', 'Customer,Items/$ref($expand=Product)', 20, 'no $expand after $ref')
  error(t, '$expand', 'Items/$count($top=1)', 13, 'only $filter after /$count')
  error(t, '$expand', 'Category($levels=04)', 17, 'levels without leading zeros')
  error(t, '$expand', 'Category($levels=0)', 17, 'levels are positive')
  error(t, '$expand', 'Items($top=-1)', 11, '$top is 1*DIGIT')
  error(t, '$expand', 'Items($top=1;$top=2)', 13, 'an option given twice')
  error(t, '$expand', 'Items($unknown=1)', 6, 'unknown option')
  error(t, '$expand', 'Items($search=x)', 6, '$search is not supported')
  error(t, '$expand', 'Items($filter= Quantity gt 1)', 14, "no whitespace after '='")
  error(t, '$expand', 'Items($filter =Quantity gt 1)', 14, "'=' directly after the name")
  error(t, '$expand', 'Items($count=yes)', 13, 'true or false')
  error(t, '$expand', 'Items()', 6, 'at least one option')
  error(t, '$expand', 'Items($top=1', 12, 'a closing parenthesis')
  error(t, '$expand', 'Items ($top=1)', 5, 'no whitespace before the options')
  error(t, '$expand', '*($top=1)', 2, 'only $levels after *')
  error(t, '$expand', 'Items($filter=Quantity gt)', 25, 'errors inside nested options carry the $expand code and target')
  error(t, '$expand', 'Address/*', 8, "no '*' after a path")
  error(t, '$expand', '$value', 0, 'no stream properties')
  error(t, '$expand', 'Items($top=99999999999999999999)', 11, 'beyond a safe integer')
})

t.test('$apply transformations (aggregation ABNF applyExpr)', async (t) => {
  t.equal(apply('aggregate(Amount with sum as Total)'), '(apply (aggregate (sum (path Amount) as Total)))')
  t.equal(
    apply(
      'aggregate(Amount with sum as S,Amount with min as A,Amount with max as B,Amount with average as C,Product with countdistinct as D)',
    ),
    '(apply (aggregate (sum (path Amount) as S) (min (path Amount) as A) (max (path Amount) as B) (average (path Amount) as C) (countdistinct (path Product) as D)))',
  )
  t.equal(apply('aggregate($count as Rows)'), '(apply (aggregate ($count as Rows)))')
  t.equal(apply('aggregate(Goods/$count as Lines)'), '(apply (aggregate ($count (path Goods) as Lines)))')
  t.equal(
    apply('aggregate(Amount mul Quantity with sum as Total)'),
    '(apply (aggregate (sum (mul (path Amount) (path Quantity)) as Total)))',
  )
  t.equal(apply('aggregate( Amount with sum as Total , $count as N )'), '(apply (aggregate (sum (path Amount) as Total) ($count as N)))')
  t.equal(apply('groupby((Warehouse))'), '(apply (groupby ((path Warehouse))))')
  t.equal(
    apply('groupby((Customer/Country,Product/Name),aggregate(Amount with sum as Total))'),
    '(apply (groupby ((path Customer Country) (path Product Name)) (apply (aggregate (sum (path Amount) as Total)))))',
  )
  t.equal(apply('groupby((Self.DigitalProduct/Region))'), '(apply (groupby ((path <Self.DigitalProduct> Region))))')
  t.equal(apply('filter(Amount gt 3)'), '(apply (filter (gt (path Amount) 3)))')
  t.equal(
    apply('compute(Amount mul 2 as Double,year(Period) as Year)'),
    '(apply (compute ((mul (path Amount) 2) as Double) ((year (path Period)) as Year)))',
  )
  t.equal(apply('orderby(Country asc,Name desc)'), '(apply (orderby (asc (path Country)) (desc (path Name))))')
  t.equal(apply('top(5)'), '(apply (top 5))')
  t.equal(apply('skip(5)'), '(apply (skip 5))')
  t.equal(
    apply('filter(Amount le 1)/groupby((Product/Name),aggregate(Amount with sum as Total))/orderby(Total desc)/top(3)'),
    '(apply (filter (le (path Amount) 1)) (groupby ((path Product Name)) (apply (aggregate (sum (path Amount) as Total)))) (orderby (desc (path Total))) (top 3))',
  )
  t.equal(
    apply('groupby((Customer/Country),filter(Amount gt 1)/aggregate(Amount with sum as Total))'),
    '(apply (groupby ((path Customer Country)) (apply (filter (gt (path Amount) 1)) (aggregate (sum (path Amount) as Total)))))',
    'a chain inside groupby',
  )
})

t.test('$apply errors', async (t) => {
  error(t, '$apply', 'aggregate()', 10, 'ABNF requires an aggregate expression')
  error(t, '$apply', 'aggregate(Amount as Total)', 17, 'a method is required (custom aggregates are not supported)')
  error(t, '$apply', 'aggregate(Amount with sum)', 25, 'an alias is required')
  error(t, '$apply', 'aggregate(Amount with total as T)', 22, 'unknown method')
  error(t, '$apply', 'aggregate(Amount with Custom.concat as T)', 22, 'no custom methods')
  error(t, '$apply', 'aggregate(Amount with sum from Time with average as T)', 26, "no 'from'")
  error(t, '$apply', 'aggregate(Amount with sum as 1)', 29, 'an alias is a name')
  error(t, '$apply', 'aggregate(Amount withsum as T)', 17, "'with' needs whitespace around it")
  error(t, '$apply', 'groupby(Customer)', 8, 'grouping properties in their own parentheses')
  error(t, '$apply', 'groupby((Product/Self.DigitalProduct))', 17, 'a grouping property cannot end in a cast')
  error(t, '$apply', 'groupby((rollup(A,B)))', 9, 'no rollup')
  error(t, '$apply', 'groupby((A),)', 12, 'a transformation after the comma')
  error(t, '$apply', 'concat(identity,filter(true))', 0, 'unsupported transformation')
  error(t, '$apply', 'frobnicate(1)', 0, 'unknown transformation')
  error(t, '$apply', 'Self.Custom()', 0, 'no custom functions')
  error(t, '$apply', 'filter(Amount gt 1)/', 20, 'a transformation after the slash')
  error(t, '$apply', 'filter(Amount gt 1) /top(1)', 19, 'no whitespace before the slash')
  error(t, '$apply', 'filter (true)', 6, 'no whitespace before the parenthesis')
  error(t, '$apply', 'top(x)', 4, 'top takes digits')
  error(t, '$apply', 'compute(Amount)', 14, 'compute needs an alias')
  error(t, '$apply', 'Filter(true)', 0, 'transformation names are case-sensitive')
})
