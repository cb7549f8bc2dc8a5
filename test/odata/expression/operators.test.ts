// Operators of commonExpr: each one, their precedence (URL Conventions 5.1.1.15), associativity, the
// whitespace the ABNF requires around them, `in` with its list forms and `has`.
import t from 'tap'
import { errorIn, filter, summary } from './fixtures/parse-helpers.js'

t.test('comparison operators (ABNF eqExpr … geExpr)', async (t) => {
  for (const operator of ['eq', 'ne', 'gt', 'ge', 'lt', 'le']) {
    t.equal(filter(`Quantity ${operator} 5`), `(${operator} (path Quantity) 5)`, operator)
  }
})

t.test('logical operators (ABNF andExpr, orExpr, notExpr)', async (t) => {
  t.equal(filter('Posted and DeletionMark'), '(and (path Posted) (path DeletionMark))')
  t.equal(filter('Posted or DeletionMark'), '(or (path Posted) (path DeletionMark))')
  t.equal(filter('not Posted'), '(not (path Posted))')
  t.equal(filter('not not Posted'), '(not (not (path Posted)))')
  t.equal(filter('not (Posted)'), '(not (path Posted))')
})

t.test('arithmetic operators and negation (ABNF addExpr … modExpr, negateExpr)', async (t) => {
  for (const operator of ['add', 'sub', 'mul', 'div', 'divby', 'mod']) {
    t.equal(filter(`Price ${operator} 2`), `(${operator} (path Price) 2)`, operator)
  }
  t.equal(filter('-Price'), '(- (path Price))')
  t.equal(filter('- Price'), '(- (path Price))', 'ABNF negateExpr = "-" BWS commonExpr')
  t.equal(filter('-(Price add 1)'), '(- (add (path Price) 1))')
  t.equal(filter('- 5'), '(- 5)', 'with a space the minus is an operator')
  t.equal(filter('--5'), '(- -5)')
  t.equal(filter('Price sub -5'), '(sub (path Price) -5)')
})

t.test('precedence: multiplicative > additive > relational > equality > and > or', async (t) => {
  t.equal(filter('a add b mul c'), '(add (path a) (mul (path b) (path c)))')
  t.equal(filter('a mul b add c'), '(add (mul (path a) (path b)) (path c))')
  t.equal(filter('a add 1 gt b sub 2'), '(gt (add (path a) 1) (sub (path b) 2))')
  t.equal(filter('a lt b eq c gt d'), '(eq (lt (path a) (path b)) (gt (path c) (path d)))')
  t.equal(filter('a eq 1 and b eq 2 or c eq 3'), '(or (and (eq (path a) 1) (eq (path b) 2)) (eq (path c) 3))')
  t.equal(filter('a eq 1 or b eq 2 and c eq 3'), '(or (eq (path a) 1) (and (eq (path b) 2) (eq (path c) 3)))')
  t.equal(filter('(a eq 1 or b eq 2) and c eq 3'), '(and (or (eq (path a) 1) (eq (path b) 2)) (eq (path c) 3))')
  t.equal(filter('(4 add 5) mod (4 sub 1)'), '(mod (add 4 5) (sub 4 1))')
})

t.test('unary operators bind tighter than binary ones; has and in tighter still', async (t) => {
  t.equal(filter('not a and b'), '(and (not (path a)) (path b))')
  t.equal(filter('not a eq b'), '(eq (not (path a)) (path b))', 'precedence table, not the greedy ABNF reading')
  t.equal(filter('-a mul b'), '(mul (- (path a)) (path b))')
  t.equal(filter("not Name in ('a','b')"), "(not (in (path Name) (list 'a' 'b')))")
  t.equal(filter("not style has Ns.Color'Red'"), "(not (has (path style) (enum Ns.Color 'Red')))")
  t.equal(filter('a add b in (1,2)'), '(add (path a) (in (path b) (list 1 2)))', 'in is a primary-level operator')
})

t.test('binary operators associate to the left', async (t) => {
  t.equal(filter('a sub b sub c'), '(sub (sub (path a) (path b)) (path c))')
  t.equal(filter('a div b mul c'), '(mul (div (path a) (path b)) (path c))')
  t.equal(filter('a or b or c'), '(or (or (path a) (path b)) (path c))')
  t.equal(filter('a eq b eq c'), '(eq (eq (path a) (path b)) (path c))')
})

t.test('in: parenthesised list, JSON array, or a collection operand (ABNF inExpr, listExpr)', async (t) => {
  t.equal(filter("Name in ('Milk', 'Cheese')"), "(in (path Name) (list 'Milk' 'Cheese'))")
  t.equal(filter('Code in (1,2,3)'), '(in (path Code) (list 1 2 3))')
  t.equal(filter('Code in ( 1 , 2 )'), '(in (path Code) (list 1 2))', 'BWS inside the list')
  t.equal(filter('Code in (1)'), '(in (path Code) (list 1))')
  t.equal(filter('Code in ()'), '(in (path Code) (list))')
  t.equal(
    filter("Key in (guid'01234567-89ab-cdef-0123-456789abcdef',null)"),
    '(in (path Key) (list (guid 01234567-89ab-cdef-0123-456789abcdef) null))',
  )
  t.equal(filter('Name in ["Milk","Che\\"ese",5,true]'), `(in (path Name) (list 'Milk' 'Che"ese' 5 true))`)
  t.equal(filter('Name in []'), '(in (path Name) (list))')
  t.equal(filter("'x' in Tags"), "(in 'x' (path Tags))")
  t.equal(filter('Code in (1 add 2)'), '(in (path Code) (add 1 2))', 'not a list: a parenthesised expression')
  t.equal(filter('Code in (Other)'), '(in (path Code) (path Other))')
  t.equal(filter("Name in ('a') and Code in (1)"), "(and (in (path Name) (list 'a')) (in (path Code) (list 1)))")
})

t.test('has takes an enumeration literal (ABNF hasExpr)', async (t) => {
  t.equal(filter("style has Sales.Pattern'Yellow'"), "(has (path style) (enum Sales.Pattern 'Yellow'))")
  t.equal(filter("style has 'Yellow'"), "(has (path style) (enum ? 'Yellow'))", 'the type name is optional in enumLiteral')
  t.same(summary(errorIn('$filter', 'style has 5')), { code: 'InvalidFilter', target: '$filter', position: 10, positionInMessage: true })
})

t.test('whitespace: required around binary operators, forbidden at the ends (ABNF RWS, filter)', async (t) => {
  const error = (text: string, position: number, message: string) =>
    t.same(summary(errorIn('$filter', text)), { code: 'InvalidFilter', target: '$filter', position, positionInMessage: true }, message)
  error('a eq(1)', 4, 'no whitespace after eq')
  error('(a)eq 1', 3, 'no whitespace before eq: eq is not an operator here')
  error('not(a)', 3, 'notExpr = "not" RWS boolCommonExpr')
  error(' a eq 1', 0, 'leading whitespace')
  error('a eq 1 ', 6, 'trailing whitespace')
  error('a eq', 4, 'operand missing at the end')
  error('a eq  ', 6, 'only whitespace after the operator: the operand is missing at the end')
  t.equal(filter('a\teq\t1'), '(eq (path a) 1)', 'HTAB is whitespace too')
  t.equal(filter('a   eq   1'), '(eq (path a) 1)')
})

t.test('operators are case-sensitive', async (t) => {
  const error = errorIn('$filter', "Name EQ 'Milk'")
  t.same(summary(error), { code: 'InvalidFilter', target: '$filter', position: 5, positionInMessage: true })
  t.match(error.message, /'eq'/, 'the message suggests the lowercase operator')
})

t.test('in-list and operator errors', async (t) => {
  const error = (text: string, position: number, message: string) =>
    t.same(summary(errorIn('$filter', text)), { code: 'InvalidFilter', target: '$filter', position, positionInMessage: true }, message)
  error('FirstName in (FirstName,LastName)', 23, 'lists hold literals only (ABNF listExpr)')
  error("Name in ('a', Other)", 14, 'a name after the first literal')
  error("Name eq ('a','b')", 12, 'lists only on the right of in')
  error("Name in ('a',)", 13, 'trailing comma')
  error("Name in ('a' 'b')", 13, 'missing comma')
  error('Name in [Other]', 9, 'JSON arrays hold literals')
  error('Name in [[1]]', 9, 'no nested arrays')
  error('[1,2] eq Codes', 0, 'arrays only on the right of in')
  error('Data eq {}', 8, 'no JSON objects')
  error('Code in', 7, 'in without an operand')
})
