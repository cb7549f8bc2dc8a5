// The error registry and its documentation stay in step, and every error body has the shape of
// decisions.md §4.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { ERROR_CODES, ODataError, errorBody, toODataError } from '../src/errors.js'

t.test('docs/errors.md lists every code with its status, and nothing else', async (t) => {
  const rows = [...readFileSync('docs/errors.md', 'utf8').matchAll(/^\| `(\w+)` \| (\d{3}) \|/gm)].map(
    (m) => [m[1]!, Number(m[2])] as const,
  )
  t.same(rows.map(([code]) => code).sort(), Object.keys(ERROR_CODES).sort(), 'the same codes')
  for (const [code, status] of rows) t.equal(status, ERROR_CODES[code as keyof typeof ERROR_CODES].status, `${code} has status ${status}`)
})

t.test('error bodies', async (t) => {
  const error = new ODataError('InvalidFilter', 'Unexpected token at position 7', {
    target: '$filter',
    details: [{ code: 'X', message: 'y' }],
  })
  t.equal(error.status, 400)
  t.same(errorBody(error), {
    error: { code: 'InvalidFilter', message: 'Unexpected token at position 7', target: '$filter', details: [{ code: 'X', message: 'y' }] },
  })
  t.same(errorBody(new ODataError('NotFound', 'none')), { error: { code: 'NotFound', message: 'none' } }, 'no empty target or details')
  const hidden = toODataError(new TypeError('secret internals'))
  t.equal(hidden.code, 'InternalError')
  t.notMatch(hidden.message, /secret/, 'internal failures do not leak their text')
})
