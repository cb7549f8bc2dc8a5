// Bytes that are not UTF-8 in a JSON body are 400 wherever the body comes: a single request, an
// operation of a multipart batch (alone or in a change set, where consecutive creates are written
// together), a JSON batch. Nothing is stored, so no U+FFFD reaches the database in their place.
import t from 'tap'
import { buildMultipartBatch, type OperationSpec } from '../../../src/tools/shared/batch-body.js'
import { startTestService, TOKEN_ROOT } from '../../support/test-service.js'

const service = await startTestService('batch_invalid_utf8')
t.teardown(() => service.close())
const pool = service.database.pool
const auth = { Authorization: 'Bearer demo-token' }
const products = async (code: string): Promise<number> =>
  Number(((await pool.query('SELECT COUNT(*) AS n FROM c_Products WHERE Code = ?', [code]))[0] as { n: number }[])[0]!.n)

/** `{"Code":"<code>","Description":"a<bytes>b"}`: a product whose description holds `bytes`. */
function productBody(code: string, bytes: readonly number[]): Buffer {
  return Buffer.concat([Buffer.from(`{"Code":"${code}","Description":"a`), Buffer.from(bytes), Buffer.from('b"}')])
}

const INVALID: ReadonlyArray<readonly [string, readonly number[]]> = [
  ['0xff', [0xff]],
  ['a sequence cut short', [0xe2, 0x82]],
  ['a surrogate', [0xed, 0xa0, 0x80]],
]

t.test('a single request: 400 InvalidBody, nothing stored', async (t) => {
  for (const [name, bytes] of INVALID) {
    const code = `U1-${bytes.length}`
    const response = await service.request('POST', `${TOKEN_ROOT}Catalog_Products`, {
      headers: { ...auth, 'Content-Type': 'application/json' },
      body: productBody(code, bytes),
    })
    t.equal(response.status, 400, `${name}: status`)
    t.match(response.json().error, { code: 'InvalidBody', message: 'The body is not valid UTF-8' }, `${name}: error`)
    t.equal(await products(code), 0, `${name}: nothing stored`)
  }
  const valid = await service.request('POST', `${TOKEN_ROOT}Catalog_Products`, {
    headers: { ...auth, 'Content-Type': 'application/json' },
    body: productBody('U1-OK', [0xc3, 0xa9]),
  })
  t.equal(valid.status, 201, 'valid UTF-8 is stored')
  t.equal(valid.json().Description, 'aéb')
})

t.test('a multipart batch: the operation is 400 InvalidBody, alone and in a change set of creates', async (t) => {
  const json = { 'Content-Type': 'application/json' }
  const operations: OperationSpec[] = [
    { method: 'POST', url: 'Catalog_Products', headers: json, body: productBody('U2-ALONE', [0xff]), id: 'alone' },
  ]
  const alone = buildMultipartBatch(operations)
  const answer = await service.request('POST', `${TOKEN_ROOT}$batch`, {
    headers: { ...auth, 'Content-Type': alone.contentType },
    body: alone.body,
  })
  t.equal(answer.status, 200)
  t.match(answer.text, /Content-ID: alone\r\n\r\nHTTP\/1\.1 400 Bad Request/, 'the operation answers 400')
  t.match(answer.text, /"code":"InvalidBody"/)
  t.equal(await products('U2-ALONE'), 0, 'nothing stored')

  const changeSet = buildMultipartBatch([
    { method: 'POST', url: 'Catalog_Products', headers: json, body: productBody('U2-FIRST', [0xc3, 0xa9]), id: '1', atomicityGroup: 'g' },
    { method: 'POST', url: 'Catalog_Products', headers: json, body: productBody('U2-SECOND', [0xe2, 0x82]), id: '2', atomicityGroup: 'g' },
    { method: 'POST', url: 'Catalog_Products', headers: json, body: productBody('U2-THIRD', [0x41]), id: '3', atomicityGroup: 'g' },
  ])
  const set = await service.request('POST', `${TOKEN_ROOT}$batch`, {
    headers: { ...auth, 'Content-Type': changeSet.contentType },
    body: changeSet.body,
  })
  t.equal(set.status, 200)
  t.match(set.text, /Content-ID: 2\r\n\r\nHTTP\/1\.1 400 Bad Request/, 'the failing create answers for the change set')
  t.match(set.text, /"code":"InvalidBody"/)
  for (const code of ['U2-FIRST', 'U2-SECOND', 'U2-THIRD']) t.equal(await products(code), 0, `${code}: rolled back or never written`)
})

t.test('a JSON batch: 400 BatchMalformed before anything runs', async (t) => {
  const body = Buffer.concat([
    Buffer.from(
      '{"requests":[{"id":"1","method":"post","url":"Catalog_Products","headers":{"content-type":"application/json"},"body":{"Code":"U3","Description":"a',
    ),
    Buffer.from([0xed, 0xa0, 0x80]),
    Buffer.from('b"}}]}'),
  ])
  const response = await service.request('POST', `${TOKEN_ROOT}$batch`, { headers: { ...auth, 'Content-Type': 'application/json' }, body })
  t.equal(response.status, 400)
  t.match(response.json().error, { code: 'BatchMalformed', message: 'Request 1 of the JSON batch is not valid UTF-8.' })
  t.equal(await products('U3'), 0)
})
