// Repeatability-Request-ID (decisions.md §5): the first response is kept in MySQL and replayed to a
// repeat with `Repeatability-Result: accepted`, without running the operation again — also when the
// copies arrive at the same moment.
import t from 'tap'
import { rawRequest, startTestService } from '../../support/test-service.js'
import { count, documentBody, fixtures, rows } from './write-helpers.js'

const client = await startTestService('writes_repeatability', { data: 'demo' })
t.teardown(() => client.close())
const { pool } = client.database
const f = await fixtures(pool)
const firstSent = () => new Date().toUTCString()

t.test('a repeated create is answered from the store, and creates nothing more', async (t) => {
  const headers = { 'Repeatability-Request-ID': 'create-0001', 'Repeatability-First-Sent': firstSent() }
  const body = documentBody(f, { rows: 2 })
  const first = await client.send('POST', 'Document_GoodsReceipt', body, headers)
  t.equal(first.status, 201)
  t.equal(first.headers['repeatability-result'], 'accepted')
  const before = await count(pool, 'SELECT COUNT(*) FROM d_GoodsReceipt')
  const repeat = await client.send('POST', 'Document_GoodsReceipt', body, headers)
  t.equal(repeat.status, 201)
  t.equal(repeat.headers['repeatability-result'], 'accepted')
  t.equal(repeat.text, first.text, 'the same body')
  t.equal(repeat.headers.location, first.headers.location)
  t.equal(repeat.headers.etag, first.headers.etag)
  t.equal(await count(pool, 'SELECT COUNT(*) FROM d_GoodsReceipt'), before, 'no second document')
  t.same(await rows(pool, "SELECT subject, status FROM _repeatability WHERE request_id = 'create-0001'"), [
    { subject: 'demo', status: 201 },
  ])

  const other = await client.send('POST', 'Document_GoodsReceipt', documentBody(f, { rows: 1 }), headers)
  t.equal(other.status, 400, 'the same id for another request is refused')
  t.equal(other.headers['repeatability-result'], 'rejected')
  t.equal(await count(pool, 'SELECT COUNT(*) FROM d_GoodsReceipt'), before)

  const token = await client.request('POST', '/api/v4/Document_GoodsReceipt', {
    headers: { Authorization: 'Bearer demo-token', 'Content-Type': 'application/json', ...headers },
    body: JSON.stringify(body),
  })
  t.equal(token.status, 201, 'the same subject on the other root gets the kept response')
  t.equal(token.text, first.text)
})

t.test('a repeated Post does not post twice; a refusal is kept too', async (t) => {
  const created = (await client.send('POST', 'Document_GoodsSale', documentBody(f))).json()
  const headers = { 'Repeatability-Request-ID': `post-${created.Ref_Key}` }
  const first = await client.send('POST', `Document_GoodsSale(${created.Ref_Key})/Post`, undefined, headers)
  t.equal(first.status, 204)
  const version = (
    await rows<{ DataVersion: string }>(pool, 'SELECT DataVersion FROM d_GoodsSale WHERE Ref_Key = ?', [created.Ref_Key])
  )[0]!.DataVersion
  const repeat = await client.send('POST', `Document_GoodsSale(${created.Ref_Key})/Post`, undefined, headers)
  t.equal(repeat.status, 204)
  t.equal(repeat.headers.etag, first.headers.etag)
  t.equal(
    (await rows<{ DataVersion: string }>(pool, 'SELECT DataVersion FROM d_GoodsSale WHERE Ref_Key = ?', [created.Ref_Key]))[0]!.DataVersion,
    version,
    'not posted again (the version would change)',
  )

  const refusedHeaders = { 'Repeatability-Request-ID': 'bad-create' }
  const refused = await client.send('POST', 'Catalog_Products', { Code: 'x'.repeat(40) }, refusedHeaders)
  t.equal(refused.status, 400)
  t.equal(refused.headers['repeatability-result'], 'accepted')
  const again = await client.send('POST', 'Catalog_Products', { Code: 'x'.repeat(40) }, refusedHeaders)
  t.equal(again.status, 400)
  t.equal(again.text, refused.text, 'a 4xx is the first response too')
})

t.test('copies sent at the same moment run once', async (t) => {
  const body = JSON.stringify({ ...documentBody(f, { rows: 3 }), Number: 'PARALLEL' })
  const results = await Promise.all(
    Array.from({ length: 6 }, () =>
      rawRequest(client.port, 'POST', '/odata/standard.odata/v4/Document_GoodsReceipt', {
        headers: {
          Authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}`,
          'Content-Type': 'application/json',
          'Repeatability-Request-ID': 'parallel-1',
        },
        body,
      }),
    ),
  )
  t.same(
    results.map((r) => r.status),
    Array(6).fill(201),
  )
  t.equal(new Set(results.map((r) => r.json().Ref_Key)).size, 1, 'every copy got the same document')
  t.equal(await count(pool, "SELECT COUNT(*) FROM d_GoodsReceipt WHERE Number = 'PARALLEL'"), 1)
  t.equal(
    await count(
      pool,
      "SELECT COUNT(*) FROM d_GoodsReceipt__Goods g JOIN d_GoodsReceipt d ON d.Ref_Key = g.Ref_Key WHERE d.Number = 'PARALLEL'",
    ),
    3,
  )
})

t.test('malformed or stale repeatability headers are rejected before anything runs', async (t) => {
  const before = await count(pool, 'SELECT COUNT(*) FROM c_Products')
  const cases: [Record<string, string>, number][] = [
    [{ 'Repeatability-Request-ID': 'has space' }, 400],
    [{ 'Repeatability-Request-ID': 'x'.repeat(201) }, 400],
    [{ 'Repeatability-Request-ID': 'ok-1', 'Repeatability-First-Sent': 'yesterday' }, 400],
    [{ 'Repeatability-Request-ID': 'ok-2', 'Repeatability-First-Sent': new Date(Date.now() - 25 * 3_600_000).toUTCString() }, 412],
  ]
  for (const [headers, status] of cases) {
    const response = await client.send('POST', 'Catalog_Products', { Code: 'R' }, headers)
    t.equal(response.status, status, JSON.stringify(headers))
    t.equal(response.headers['repeatability-result'], 'rejected')
  }
  t.equal(await count(pool, 'SELECT COUNT(*) FROM c_Products'), before)
})

t.test('an expired record is replaced by the new response', async (t) => {
  const headers = { 'Repeatability-Request-ID': 'expiring' }
  const first = await client.send('POST', 'Catalog_Products', { Code: 'E1' }, headers)
  t.equal(first.status, 201)
  await pool.query("UPDATE _repeatability SET created_at = UTC_TIMESTAMP() - INTERVAL 25 HOUR WHERE request_id = 'expiring'")
  const second = await client.send('POST', 'Catalog_Products', { Code: 'E1' }, headers)
  t.equal(second.status, 201)
  t.not(second.json().Ref_Key, first.json().Ref_Key, 'ran again: the old response was no longer kept')
  t.equal(await count(pool, "SELECT COUNT(*) FROM _repeatability WHERE request_id = 'expiring'"), 1)
})
