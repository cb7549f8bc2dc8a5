// The shape of parse errors (decisions.md §4): an ODataError with the option's code, the option as
// target, status 400, and the 0-based position in the message and in `position`.
import t from 'tap'
import { ODataError, errorBody } from '../../../src/errors.js'
import { ExpressionError, parseCommonExpression, parseFilter } from '../../../src/odata/expression/index.js'
import { errorIn, errorOf, summary } from './fixtures/parse-helpers.js'

t.test('each option has its own code and is the target', async (t) => {
  t.same(summary(errorIn('$filter', 'Name eq')), { code: 'InvalidFilter', target: '$filter', position: 7, positionInMessage: true })
  t.same(summary(errorIn('$orderby', 'Name,')), { code: 'InvalidOrderBy', target: '$orderby', position: 5, positionInMessage: true })
  t.same(summary(errorIn('$select', 'Name/')), { code: 'InvalidSelect', target: '$select', position: 5, positionInMessage: true })
  t.same(summary(errorIn('$expand', 'Items(')), { code: 'InvalidExpand', target: '$expand', position: 6, positionInMessage: true })
  t.same(summary(errorIn('$apply', 'filter(')), { code: 'InvalidApply', target: '$apply', position: 7, positionInMessage: true })
})

t.test('the Condition of a virtual table is parsed as a filter, with its own target', async (t) => {
  const condition = (text: string, errorCode?: 'InvalidParameter') => errorOf(() => parseFilter(text, { option: 'Condition', errorCode }))
  t.same(summary(condition("Warehouse_Key eq guid'x'")), {
    code: 'InvalidLiteral',
    target: 'Condition',
    position: 17,
    positionInMessage: true,
  })
  t.same(summary(condition('Warehouse_Key eq')), { code: 'InvalidFilter', target: 'Condition', position: 16, positionInMessage: true })
  t.same(
    summary(condition('Warehouse_Key eq', 'InvalidParameter')),
    { code: 'InvalidParameter', target: 'Condition', position: 16, positionInMessage: true },
    'the caller may choose the code',
  )
  t.doesNotThrow(() =>
    parseFilter("Warehouse_Key eq guid'01234567-89ab-cdef-0123-456789abcdef' and Product/Code eq '0001'", { option: 'Condition' }),
  )
})

t.test('literal and limit errors keep their own codes inside any option', async (t) => {
  t.same(summary(errorIn('$orderby', 'Date eq 2024-02-30')), {
    code: 'InvalidLiteral',
    target: '$orderby',
    position: 8,
    positionInMessage: true,
  })
  t.same(summary(errorIn('$expand', 'Items($filter=Date eq 2024-02-30)')), {
    code: 'InvalidLiteral',
    target: '$expand',
    position: 22,
    positionInMessage: true,
  })
  t.same(summary(errorIn('$apply', 'filter(((((a)))))', { limits: { maxDepth: 4 } })), {
    code: 'ExpressionTooComplex',
    target: '$apply',
    position: 10,
    positionInMessage: true,
  })
})

t.test('an ExpressionError is an ODataError and formats as the error body', async (t) => {
  let caught: unknown
  try {
    parseFilter('Name eq', { option: '$filter' })
  } catch (error) {
    caught = error
  }
  t.ok(caught instanceof ExpressionError)
  t.ok(caught instanceof ODataError)
  const error = caught as ExpressionError
  t.equal(error.status, 400)
  t.equal(error.name, 'ODataError')
  t.same(errorBody(error), {
    error: {
      code: 'InvalidFilter',
      message: "Syntax error in $filter at position 7: expected an operand after 'eq' but found the end of the text.",
      target: '$filter',
    },
  })
})

t.test('messages say what was expected and what was found', async (t) => {
  t.match(errorIn('$filter', 'contains(Name').message, /expected ',' or '\)' but found the end of the text/)
  t.match(errorIn('$filter', 'Name eq 1 2').message, /expected an operator or the end of the expression but found '2'/)
  t.match(errorIn('$filter', 'Name # 1').message, /unexpected character "#"/)
  t.match(errorIn('$filter', 'foo(1)').message, /unknown function 'foo'/)
  t.match(errorIn('$filter', 'contains(1)').message, /contains\(\) takes 2 arguments, not 1/)
})

t.test('anything that is not a string is refused, not crashed on', async (t) => {
  for (const value of [undefined, null, 5, {}, ['a']]) {
    t.equal(errorOf(() => parseCommonExpression(value as unknown as string, { option: '@p' })).code, 'InvalidQueryOption', String(value))
  }
})
