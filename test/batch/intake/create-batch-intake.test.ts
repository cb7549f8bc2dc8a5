// Choosing the intake by the batch's Content-Type (service.md §4.4, §7), and reading boundaries.

import t from 'tap'
import { boundaryFromContentType, isValidBoundary, parseContentType } from '../../../src/batch/intake/content-type.js'
import { createBatchIntake } from '../../../src/batch/intake/create-batch-intake.js'

t.test('parseContentType', async (t) => {
  t.same(parseContentType('multipart/mixed; boundary=batch_1'), { mediaType: 'multipart/mixed', boundary: 'batch_1' })
  t.same(parseContentType('Multipart/Mixed;Boundary="a b:c";charset=utf-8'), { mediaType: 'multipart/mixed', boundary: 'a b:c' })
  t.same(parseContentType('multipart/mixed; charset="x;y"; boundary="q\\"uoted";'), { mediaType: 'multipart/mixed', boundary: 'q"uoted' })
  t.same(parseContentType(' application/json '), { mediaType: 'application/json', boundary: undefined })
  for (const bad of [
    '',
    'multipart',
    'multipart/',
    '/mixed',
    'multipart/mixed; boundary',
    'multipart/mixed; boundary="open',
    'multipart/mixed boundary=x',
    'multipart/mixed; boundary=a; boundary=b',
  ]) {
    t.equal(parseContentType(bad), undefined, JSON.stringify(bad))
  }
})

t.test('boundaries: RFC 2046 bchars, 1 to 70 of them, not ending with a space', async (t) => {
  for (const good of ['b', 'batch_36522ad7-fc75-4b56-8c71-56071383e77b', "a'()+_,-./:=? z", 'x'.repeat(70)])
    t.ok(isValidBoundary(good), good)
  for (const bad of ['', 'x'.repeat(71), 'ends ', 'line\nfeed', 'carriage\rreturn', 'tab\t', 'ü', 'semi;colon', 'quo"te'])
    t.notOk(isValidBoundary(bad), JSON.stringify(bad))
  t.equal(boundaryFromContentType('multipart/mixed; boundary="batch 1"'), 'batch 1')
  t.throws(() => boundaryFromContentType('multipart/mixed'), { code: 'BatchMalformed' })
  t.throws(() => boundaryFromContentType('multipart/mixed; boundary="a\nb"'), { code: 'BatchMalformed' })
})

t.test('createBatchIntake: multipart/mixed, application/json, or 415', async (t) => {
  t.equal(createBatchIntake('multipart/mixed; boundary=b').format, 'multipart')
  t.equal(createBatchIntake('application/json').format, 'json')
  t.equal(createBatchIntake('application/json;odata.metadata=minimal;charset=utf-8').format, 'json')
  t.throws(() => createBatchIntake('text/plain'), { code: 'UnsupportedMediaType', status: 415 })
  t.throws(() => createBatchIntake(undefined), { code: 'UnsupportedMediaType', status: 415 })
  t.throws(() => createBatchIntake('multipart/form-data; boundary=b'), { code: 'UnsupportedMediaType' })
  t.throws(
    () => createBatchIntake('multipart/mixed'),
    { code: 'BatchMalformed', status: 400 },
    'a multipart batch without a boundary is corrupt',
  )

  const intake = createBatchIntake('multipart/mixed; boundary=b', { maxOperations: 1 })
  intake.push(
    Buffer.from(
      '--b\r\nContent-Type: application/http\r\n\r\nGET A\r\n\r\n\r\n--b\r\nContent-Type: application/http\r\n\r\nGET B\r\n\r\n\r\n--b--',
    ),
  )
  t.throws(() => intake.end(), { code: 'TooManyOperations' }, 'the limits are passed on')
})
