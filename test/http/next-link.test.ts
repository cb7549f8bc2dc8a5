// `@odata.nextLink` keeps the way the client logged in (docs/decisions.md, decisions taken here): followed as given,
// with no header, it answers the next page on the token-path root and with the `token` parameter; a
// client that logged in by a header gets a link without a token. Context URLs stay token-free, and no
// token reaches the request log.
import t, { type Test } from 'tap'
import { rawRequest, startTestService } from '../support/test-service.js'

const service = await startTestService('http_next_link', { data: 'demo' })
t.teardown(() => service.close())
const TOKEN = 'demo-token'
const page = { Prefer: 'odata.maxpagesize=2' }

/** Follows an absolute link exactly as given, with only the headers named. */
const follow = (link: string, headers: Record<string, string> = page) => {
  const url = new URL(link)
  t.equal(url.host, `127.0.0.1:${service.port}`)
  return rawRequest(service.port, 'GET', `${url.pathname}${url.search}`, { headers: { ...headers, Host: url.host } })
}

const keys = (body: { value: { Ref_Key: string }[] }) => body.value.map((row) => row.Ref_Key)

async function walk(t: Test, first: string, headers: Record<string, string>): Promise<{ links: string[]; seen: string[] }> {
  let response = await service.request('GET', first, { headers: { ...page, ...headers, Host: `127.0.0.1:${service.port}` } })
  t.equal(response.status, 200)
  const seen: string[] = [...keys(response.json())]
  const links: string[] = []
  t.notMatch(response.json()['@odata.context'], TOKEN, 'the context URL carries no token')
  for (let n = 0; n < 2; n++) {
    const link = response.json()['@odata.nextLink'] as string
    t.type(link, 'string')
    links.push(link)
    response = await follow(link)
    t.equal(response.status, 200, `page ${n + 2}, followed as given`)
    seen.push(...keys(response.json()))
  }
  return { links, seen }
}

t.test('token in the path: the next link keeps the token segment', async (t) => {
  const { links, seen } = await walk(t, `/api/t/${TOKEN}/v4/Catalog_Products?$orderby=Code&$select=Ref_Key,Code`, {})
  for (const link of links) t.ok(link.startsWith(`http://127.0.0.1:${service.port}/api/t/${TOKEN}/v4/Catalog_Products?`), link)
  t.equal(new Set(seen).size, 6, 'three pages of two, none repeated')
  const [rows] = (await service.database.pool.query('SELECT Ref_Key FROM c_Products ORDER BY Code LIMIT 6')) as unknown as [
    { Ref_Key: string }[],
  ]
  t.same(
    seen,
    rows.map((row) => row.Ref_Key),
    'the pages are the first six products by code',
  )
})

t.test('token as a query parameter: the next link keeps it', async (t) => {
  const { links } = await walk(t, `/api/v4/Catalog_Products?token=${TOKEN}&$orderby=Code`, {})
  for (const link of links) t.match(link, `token=${TOKEN}`)
})

t.test('token in a header: the next link has none, and the header is needed again', async (t) => {
  const response = await service.request('GET', '/api/v4/Catalog_Products?$orderby=Code', {
    headers: { ...page, Authorization: `Bearer ${TOKEN}` },
  })
  const link = response.json()['@odata.nextLink'] as string
  t.notMatch(link, TOKEN)
  t.equal((await follow(link)).status, 401)
  t.equal((await follow(link, { ...page, Authorization: `Bearer ${TOKEN}` })).status, 200)
})

t.test('no token reaches the request log', async (t) => {
  await new Promise((resolve) => setTimeout(resolve, 400))
  const [rows] = (await service.database.pool.query("SELECT url FROM request_log WHERE url LIKE '%Catalog_Products%'")) as unknown as [
    { url: string }[],
  ]
  t.ok(rows.length >= 8, 'the pages were logged')
  t.same(
    rows.filter((row) => row.url.includes(TOKEN)),
    [],
  )
})
