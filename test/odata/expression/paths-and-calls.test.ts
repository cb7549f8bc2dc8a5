// Member paths (ABNF firstMemberExpr), lambdas (anyExpr, allExpr), $count, canonical function calls
// (methodCallExpr) with their arity, cast and isof, parameter aliases.
import t, { type Test } from 'tap'
import { CANONICAL_FUNCTIONS, parseFilter, type MemberPathNode } from '../../../src/odata/expression/index.js'
import { errorIn, filter, summary } from './fixtures/parse-helpers.js'

const error = (t: Test, text: string, position: number, message: string, code = 'InvalidFilter') =>
  t.same(summary(errorIn('$filter', text)), { code, target: '$filter', position, positionInMessage: true }, message)

t.test('member paths', async (t) => {
  t.equal(filter('Description'), '(path Description)')
  t.equal(filter('Product/Description'), '(path Product Description)')
  t.equal(filter('Document/Counterparty/TaxId'), '(path Document Counterparty TaxId)')
  t.equal(filter('Model.VipCustomer/Discount'), '(path <Model.VipCustomer> Discount)', 'ABNF memberExpr with a qualified type cast')
  t.equal(filter('Address/Model.AddressWithLocation'), '(path Address <Model.AddressWithLocation>)', 'a cast may end a longer path')
  t.equal(filter('Организации/Description'), '(path Организации Description)', 'Unicode letters in names')
  t.equal(filter('_private1'), '(path _private1)')
  const path = parseFilter('Product/Unit', { option: '$filter' }) as MemberPathNode
  t.same(
    { scope: path.scope, variable: path.variable, positions: path.segments.map((segment) => segment.position) },
    { scope: 'implicit', variable: null, positions: [0, 8] },
  )
})

t.test('$it and $this (ABNF implicitVariableExpr)', async (t) => {
  t.equal(filter('$it/Completed'), '(path $it Completed)')
  t.equal(filter("endswith($it,'.com')"), "(endswith (path $it) '.com')")
  t.equal(filter("$this eq 'Hugo'"), "(eq (path $this) 'Hugo')")
})

t.test('$count on a collection (ABNF collectionPathExpr)', async (t) => {
  t.equal(filter('Goods/$count gt 2'), '(gt (path Goods $count) 2)')
  t.equal(filter('Goods/$count($filter=Quantity gt 5) gt 2'), '(gt (path Goods ($count (gt (path Quantity) 5))) 2)')
  error(t, 'Goods/$count/Quantity', 12, 'nothing after $count')
  error(t, '$count gt 2', 0, '$count needs a collection before it')
})

t.test('lambdas: any and all (ABNF anyExpr, allExpr)', async (t) => {
  t.equal(filter('Goods/any(g: g/Quantity gt 5)'), '(path Goods (any g (gt (path var:g Quantity) 5)))')
  t.equal(filter('Goods/all(g:g/Quantity gt 0)'), '(path Goods (all g (gt (path var:g Quantity) 0)))')
  t.equal(filter('Goods/any()'), '(path Goods (any))')
  t.equal(filter('Goods/any( )'), '(path Goods (any))')
  t.equal(filter('Goods/any( g : g/Price gt 1 )'), '(path Goods (any g (gt (path var:g Price) 1)))', 'BWS inside the parentheses')
  t.equal(filter("Tags/any(t: t eq 'x')"), "(path Tags (any t (eq (path var:t) 'x')))", 'the bare variable is a path with no segments')
  t.equal(
    filter('Orders/any(o: o/Items/all(i: i/Price gt o/Minimum and i/Name ne Name))'),
    '(path Orders (any o (path var:o Items (all i (and (gt (path var:i Price) (path var:o Minimum)) (ne (path var:i Name) (path Name)))))))',
    'nested lambdas see both variables; other names stay properties',
  )
  t.equal(
    filter('g/Quantity eq Goods/any(g: g/Quantity gt 5)'),
    '(eq (path g Quantity) (path Goods (any g (gt (path var:g Quantity) 5))))',
    'a variable only exists inside its lambda',
  )
  t.equal(
    filter('Goods/any(g: g/Products/any(p: p/Price gt 0))'),
    '(path Goods (any g (path var:g Products (any p (gt (path var:p Price) 0)))))',
  )
  error(t, 'Goods/all()', 10, 'all() needs a variable and a predicate')
  error(t, 'all(x: true)', 0, 'any/all need a path before them')
  error(t, 'Goods/any(g g/Quantity)', 12, "a ':' after the variable")
  error(t, 'Goods/any(g: true)/Quantity', 18, 'nothing after a lambda')
  error(t, 'Goods/any (g: true)', 10, 'with whitespace before the parenthesis, any is a property and the parenthesis is unexpected')
})

t.test('every canonical function with its arity (ABNF methodCallExpr)', async (t) => {
  t.equal(filter("contains(Description,'bolt')"), "(contains (path Description) 'bolt')")
  t.equal(filter("startswith(Code, '00')"), "(startswith (path Code) '00')")
  t.equal(filter("endswith(Code,'9')"), "(endswith (path Code) '9')")
  t.equal(filter('substring(Description,1)'), '(substring (path Description) 1)')
  t.equal(filter('substring(Description,1,2)'), '(substring (path Description) 1 2)')
  t.equal(filter('tolower(Code)'), '(tolower (path Code))')
  t.equal(filter('toupper(Code)'), '(toupper (path Code))')
  t.equal(filter('trim(Code)'), '(trim (path Code))')
  t.equal(filter('length(Code) eq 9'), '(eq (length (path Code)) 9)')
  t.equal(filter("indexof(Code,'1')"), "(indexof (path Code) '1')")
  t.equal(filter("concat(concat(Street,'-'),City)"), "(concat (concat (path Street) '-') (path City))")
  for (const name of [
    'year',
    'month',
    'day',
    'hour',
    'minute',
    'second',
    'date',
    'time',
    'fractionalseconds',
    'totaloffsetminutes',
    'totalseconds',
  ]) {
    t.equal(filter(`${name}(Period)`), `(${name} (path Period))`, name)
  }
  t.equal(filter('now()'), '(now)')
  t.equal(filter('now( )'), '(now)')
  t.equal(filter('Period lt now()'), '(lt (path Period) (now))')
  t.equal(filter('mindatetime()'), '(mindatetime)')
  t.equal(filter('maxdatetime()'), '(maxdatetime)')
  t.equal(filter('round(Amount)'), '(round (path Amount))')
  t.equal(filter('floor(Amount)'), '(floor (path Amount))')
  t.equal(filter('ceiling(Amount)'), '(ceiling (path Amount))')
  t.equal(filter("matchesPattern(Code,'^0+')"), "(matchesPattern (path Code) '^0+')")
  t.equal(filter('year(Period) eq 2024 and month(Period) eq 1'), '(and (eq (year (path Period)) 2024) (eq (month (path Period)) 1))')
  t.equal(
    filter("contains(tolower(Product/Description),tolower('Bolt'))"),
    "(contains (tolower (path Product Description)) (tolower 'Bolt'))",
  )
  t.equal(filter('year'), '(path year)', 'a function name without parentheses is a property')
})

t.test('function errors: unknown names and wrong arity, with positions', async (t) => {
  error(t, 'foo(Name)', 0, 'unknown function')
  error(t, "Name eq Contains(Name,'x')", 8, 'function names are case-sensitive')
  error(t, 'geo.distance(a,b)', 0, 'no spatial functions')
  error(t, 'Model.Func(x=1) eq 2', 0, 'no model functions')
  error(t, 'length()', 0, 'too few arguments: reported at the call')
  error(t, 'contains(Name)', 0, 'too few arguments')
  error(t, "contains(Name,'a','b')", 18, 'a surplus argument is refused where it starts')
  error(t, 'now(1)', 4, 'now() takes none')
  error(t, 'substring(a,1,2,3)', 16, 'substring takes 2 to 3')
  error(t, 'tolower (Name)', 8, 'with whitespace before the parenthesis, tolower is a property and the parenthesis is unexpected')
  error(t, 'tolower(Name', 12, 'missing closing parenthesis')
  error(t, 'tolower(Name,)', 13, 'missing argument after comma')
  error(t, 'Items(1)', 0, 'key predicates: Items is not a function')
  error(t, 'Products/Model.Best()', 9, 'no function calls in paths')
  error(t, 'Product/Items(1)/Name', 8, 'no key predicates in paths')
  t.same(Object.keys(CANONICAL_FUNCTIONS).length, 28, 'the function table has the documented size')
})

t.test('cast and isof, one and two arguments (ABNF castExpr, isofExpr)', async (t) => {
  t.equal(filter('cast(Edm.String)'), '(cast Edm.String)')
  t.equal(filter('cast(Amount,Edm.Int64)'), '(cast (path Amount) Edm.Int64)')
  t.equal(filter('cast( Amount , Edm.Decimal )'), '(cast (path Amount) Edm.Decimal)')
  t.equal(filter('cast(Category,Model.Customer)'), '(cast (path Category) Model.Customer)')
  t.equal(filter('cast(Customer)'), '(cast Customer)', 'a lone name is the type of the one-argument form')
  t.equal(filter("cast('5',Edm.Int32) eq 5"), "(eq (cast '5' Edm.Int32) 5)")
  t.equal(filter('cast(Tags,Collection(Edm.String))'), '(cast (path Tags) Collection(Edm.String))')
  t.equal(filter('cast(Amount add 1,Edm.Int64)'), '(cast (add (path Amount) 1) Edm.Int64)')
  t.equal(filter('isof(Model.Service)'), '(isof Model.Service)')
  t.equal(filter('isof(Product,Model.Service)'), '(isof (path Product) Model.Service)')
  t.equal(filter('not isof(Model.Service)'), '(not (isof Model.Service))')
  error(t, 'cast(Amount,5)', 12, 'the second argument is a type name')
  error(t, 'cast(Amount Edm.Int32)', 12, 'a comma between the arguments')
  error(t, 'cast()', 5, 'a type is required')
})

t.test('parameter aliases', async (t) => {
  t.equal(filter('Price gt @min'), '(gt (path Price) @min)')
  t.equal(filter('contains(Title,@word)'), '(contains (path Title) @word)')
  error(t, '@m/FirstName eq 1', 2, 'no path after an alias')
  error(t, 'Price/@Measures.Currency eq 1', 6, 'no annotations')
})

t.test('other unsupported path forms are refused with a clear error', async (t) => {
  error(t, "$root/Catalog_Products(guid'01234567-89ab-cdef-0123-456789abcdef')/Code eq '1'", 0, '$root')
  error(t, 'Goods/$filter(Quantity gt 1)/$count gt 0', 6, '/$filter segment')
  error(t, 'Model.Vip eq 1', 10, "a leading type cast must be followed by '/'")
  error(t, 'Product/ Name', 8, "no whitespace after '/'")
  error(t, 'Product /Name', 7, "no whitespace before '/'")
  error(t, 'Product/', 8, 'a segment after the slash')
  error(t, 'Products.(1)', 8, 'a dot must be followed by a name')
})
