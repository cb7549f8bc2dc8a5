// A JSON body that names a member twice in one object is 400 (RFC 7493 §2.3, which OData JSON follows):
// JSON.parse would keep the last silently, and the entity be written as half of what the body says.
// Nothing is written. The same name in different objects (rows of a table part) is no repetition.
import t from 'tap'
import { buildMultipartBatch } from '../../../src/tools/shared/batch-body.js'
import { TOKEN_ROOT, startTestService } from '../../support/test-service.js'
import { count, documentBody, fixtures } from './write-helpers.js'

const client = await startTestService('writes_duplicate_members', { data: 'demo' })
t.teardown(() => client.close())
const { pool } = client.database
const f = await fixtures(client.database.pool)
const warehouses = () => count(pool, 'SELECT COUNT(*) FROM c_Warehouses')

t.test('a single request: a top-level member twice', async (t) => {
  const before = await warehouses()
  const answer = await client.send('POST', 'Catalog_Warehouses', '{"Description":"a","Description":"b"}')
  t.equal(answer.status, 400)
  t.equal(answer.json().error.code, 'InvalidBody')
  t.match(answer.json().error.message, /Description/)
  t.equal(await warehouses(), before, 'nothing created')
  const escaped = await client.send('POST', 'Catalog_Warehouses', '{"Description":"a","\\u0044escription":"b"}')
  t.equal(escaped.status, 400, 'however the second is spelt')
})

t.test('a single request: a member twice in a table-part row', async (t) => {
  const documents = await count(pool, 'SELECT COUNT(*) FROM d_GoodsReceipt')
  const body = JSON.stringify(documentBody(f, { rows: 1 })).replace('"Quantity":1,', '"Quantity":1,"Quantity":5,')
  t.match(body, /"Quantity":1,"Quantity":5/)
  const answer = await client.send('POST', 'Document_GoodsReceipt', body)
  t.equal(answer.status, 400)
  t.equal(answer.json().error.code, 'InvalidBody')
  t.equal(await count(pool, 'SELECT COUNT(*) FROM d_GoodsReceipt'), documents, 'nothing created')
  t.equal((await client.send('POST', 'Document_GoodsReceipt', documentBody(f, { rows: 2 }))).status, 201, 'one name per row is fine')
})

t.test('a multipart batch operation', async (t) => {
  const before = await warehouses()
  const built = buildMultipartBatch([
    {
      method: 'POST',
      url: 'Catalog_Warehouses',
      headers: { 'Content-Type': 'application/json' },
      body: Buffer.from('{"Description":"a","Description":"b"}'),
    },
  ])
  const answer = await client.request('POST', `${TOKEN_ROOT}$batch`, {
    headers: { Authorization: 'Bearer demo-token', 'Content-Type': built.contentType },
    body: built.body,
  })
  t.equal(answer.status, 200)
  t.match(answer.text, /HTTP\/1\.1 400 /)
  t.match(answer.text, /InvalidBody/)
  t.equal(await warehouses(), before, 'nothing created')
})
