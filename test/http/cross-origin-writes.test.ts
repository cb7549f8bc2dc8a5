// Forged requests from a page on another site (CSRF): the browser sends them with its cached Basic
// credentials, so a request that changes state from an origin neither allowed (CORS) nor the service's own
// is refused before it runs, and a bodiless action sent as a form (the one body a page may post to another
// site without asking first) is refused too. Nothing of either is written.
import t from 'tap'
import { count, documentBody, fixtures } from '../service/writes/write-helpers.js'
import { startTestService } from '../support/test-service.js'

const client = await startTestService('http_cross_origin_writes', { data: 'demo' })
t.teardown(() => client.close())
const { pool } = client.database
const f = await fixtures(pool)
const documents = () => count(pool, 'SELECT COUNT(*) FROM d_GoodsReceipt')
const OWN = `http://127.0.0.1:${client.port}`

t.test('a write from a foreign origin is 403 and writes nothing, with CORS off', async (t) => {
  const before = await documents()
  for (const origin of ['https://evil.example.net', 'null', `http://127.0.0.1:${client.port + 1}`]) {
    const refused = await client.send('POST', 'Document_GoodsReceipt', documentBody(f), { Origin: origin })
    t.equal(refused.status, 403, origin)
    t.equal(refused.json().error.code, 'OriginNotAllowed', origin)
  }
  t.equal(await documents(), before, 'nothing created')
  const read = await client.send('GET', 'Document_GoodsReceipt?$top=1', undefined, { Origin: 'https://evil.example.net' })
  t.equal(read.status, 200, 'a read is not refused: the browser keeps its answer from the page')
})

t.test("the service's own origin and requests without one write as before", async (t) => {
  const before = await documents()
  t.equal((await client.send('POST', 'Document_GoodsReceipt', documentBody(f), { Origin: OWN })).status, 201)
  t.equal((await client.send('POST', 'Document_GoodsReceipt', documentBody(f))).status, 201)
  t.equal(await documents(), before + 2)
})

t.test('a bodiless Post sent as a form is 415 and posts nothing', async (t) => {
  const created = await client.send('POST', 'Document_GoodsReceipt', documentBody(f))
  const key = created.json().Ref_Key as string
  for (const type of ['application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/plain;charset=UTF-8']) {
    const answer = await client.send('POST', `Document_GoodsReceipt(${key})/Post`, '', { 'Content-Type': type })
    t.equal(answer.status, 415, type)
    t.equal(answer.json().error.code, 'UnsupportedMediaType', type)
  }
  t.equal(await count(pool, 'SELECT COUNT(*) FROM d_GoodsReceipt WHERE Ref_Key = ? AND Posted = 1', [key]), 0, 'not posted')
  t.equal((await client.send('POST', `Document_GoodsReceipt(${key})/Post`)).status, 204, 'without a form type it posts')
})
