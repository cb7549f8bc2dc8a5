// Requests that must be refused rather than answered with something that looks right: an expression
// limit's answer states the actual figure (decisions.md §8), a division by zero fails instead of making an
// empty set, `isof` with a type the service does not know is 400 (decisions.md §2). Real rows (the read
// fixture), real MySQL.
import t, { type Test } from 'tap'
import { ERROR_CODES } from '../../../src/errors.js'
import type { TestResponse } from '../../support/test-service.js'
import { startTestService } from '../../support/test-service.js'

const service = await startTestService('read_query_refusals', { data: 'reads' })
t.teardown(() => service.close())

function assertError(t: Test, response: TestResponse, status: number, code: string, label: string) {
  t.equal(response.status, status, `${label}: status`)
  const error = response.json().error
  t.equal(error.code, code, `${label}: code`)
  t.equal(ERROR_CODES[code as keyof typeof ERROR_CODES].status, status, `${label}: the registry agrees`)
  return error as { code: string; message: string; target?: string }
}

t.test('limit answers carry the actual figure, $apply steps too', async (t) => {
  const steps = (count: number) => Array.from({ length: count }, () => 'top(5)').join('/')
  t.equal((await service.get(`Catalog_Products?$apply=${steps(10)}`)).status, 200, 'ten transformations pass')
  const eleven = assertError(
    t,
    await service.get(`Catalog_Products?$apply=${steps(11)}`),
    400,
    'ExpressionTooComplex',
    '11 transformations',
  )
  t.match(eleven.message, /has 11 transformations; at most 10/)
  t.equal(eleven.target, '$apply')
  const thirteen = assertError(
    t,
    await service.get(`Catalog_Products?$apply=groupby((Code),${steps(3)})/${steps(9)}`),
    400,
    'ExpressionTooComplex',
    'nested ones count',
  )
  t.match(thirteen.message, /has 13 transformations; at most 10/)
  const expand = Array.from({ length: 203 }, () => 'Unit').join(',')
  t.match(
    assertError(t, await service.get(`Catalog_Products?$expand=${expand}`), 400, 'ExpressionTooComplex', '$expand paths').message,
    /has 203 expanded paths; at most 200/,
  )
  const deep = `${'('.repeat(40)}Code eq '1'${')'.repeat(40)}`
  t.match(
    assertError(t, await service.get(`Catalog_Products?$filter=${deep}`), 400, 'ExpressionTooComplex', 'depth').message,
    /nests 40 levels deep; at most 32/,
  )
})

t.test('division by zero in $filter is an error, not an empty set', async (t) => {
  t.same(
    (await service.values('AccumulationRegister_Stock_RecordType?$filter=Amount div Quantity gt 2&$select=LineNumber')).length,
    5,
    'a division whose divisors are never zero answers as before',
  )
  const cases = [
    ['AccumulationRegister_Stock_RecordType?$filter=Quantity div 0 gt 1', 'by the literal 0'],
    ['AccumulationRegister_Stock_RecordType?$filter=Quantity divby 0.0 gt 1', 'divby the literal 0.0'],
    ['AccumulationRegister_Stock_RecordType?$filter=LineNumber mod 0 eq 1', 'mod by the literal 0'],
    ['AccumulationRegister_Stock_RecordType?$filter=Quantity div (Quantity sub Quantity) gt 1', 'by a value that is 0 in every row'],
    ['AccumulationRegister_Stock_RecordType?$filter=Quantity div (LineNumber sub 2) gt 1', 'by a value that is 0 in some rows'],
    ['AccumulationRegister_Stock_RecordType?$filter=LineNumber mod (LineNumber sub 1) eq 0', 'mod by a value that is 0 in some rows'],
    ['AccumulationRegister_Stock_RecordType?$orderby=Amount div (LineNumber sub 1)', 'in $orderby'],
    ['AccumulationRegister_Stock_RecordType?$apply=compute(Amount div (LineNumber sub 1) as Share)', 'in $apply'],
  ]
  for (const [path, label] of cases) assertError(t, await service.get(path!), 400, 'DivisionByZero', label!)
})

t.test('isof with a type the service does not know is 400', async (t) => {
  t.equal(
    (await service.values('Catalog_Products?$filter=isof(Code, Edm.Byte)')).length,
    0,
    'a known Edm type that does not match is false',
  )
  t.equal((await service.values('Catalog_Products?$filter=isof(StandardODATA.Catalog_Products)')).length, 7, 'the own entity type is true')
  t.equal(
    (await service.values('Catalog_Products?$filter=isof(StandardODATA.Catalog_Warehouses)')).length,
    0,
    'another entity type is false',
  )
  for (const [filter, label] of [
    ['isof(Code, Edm.Nonsense)', 'an unknown Edm type'],
    ['isof(StandardODATA.Catalog_Nothing)', 'an unknown type of the namespace'],
    ['isof(Code, Other.Type)', 'a type of another namespace'],
  ]) {
    const error = assertError(t, await service.get(`Catalog_Products?$filter=${filter}`), 400, 'InvalidFilter', label!)
    t.match(error.message, /unknown type/)
  }
})
