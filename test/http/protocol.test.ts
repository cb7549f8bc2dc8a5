// Wire-level rules of the HTTP layer: OData-Version, 404 for unknown paths and names, 405 with Allow,
// 400 for malformed URLs and query options, HEAD, the service document, $metadata, oversized headers.
import t, { type Test } from 'tap'
import { ERROR_CODES } from '../../src/errors.js'
import { DEMO_BASIC, REFERENCE_ROOT, TOKEN_ROOT, startTestService } from '../support/test-service.js'

const service = await startTestService('http_protocol')
t.teardown(() => service.close())
const headers = { Authorization: DEMO_BASIC }
const get = (path: string, extra: Record<string, string> = {}) =>
  service.request('GET', `${REFERENCE_ROOT}${path}`, { headers: { ...headers, ...extra } })

function assertError(t: Test, response: Awaited<ReturnType<typeof get>>, status: number, code: string, label: string) {
  t.equal(response.status, status, `${label}: status`)
  const body = response.json()
  t.equal(body.error.code, code, `${label}: code`)
  t.type(body.error.message, 'string')
  t.equal(ERROR_CODES[body.error.code as keyof typeof ERROR_CODES].status, status, `${label}: registry agrees`)
}

t.test('service document and $metadata', async (t) => {
  const root = await get('')
  t.equal(root.status, 200)
  t.equal(root.headers['odata-version'], '4.0')
  t.match(root.headers['content-type'], /^application\/json/)
  const names = root.json().value.map((s: { name: string }) => s.name)
  t.ok(names.includes('InformationRegister_КурсыВалют'))
  t.equal(root.json()['@odata.context'], `http://127.0.0.1:${service.port}${REFERENCE_ROOT}$metadata`)
  const metadata = await get('$metadata')
  t.equal(metadata.status, 200)
  t.match(metadata.headers['content-type'], /^application\/xml/)
  t.match(metadata.text, /<EntitySet Name="AccumulationRegister_Stock_RecordType"/)
  const head = await service.request('HEAD', `${REFERENCE_ROOT}$metadata`, { headers })
  t.equal(head.status, 200)
  t.equal(head.body.length, 0, 'HEAD has no body')
  t.equal(Number(head.headers['content-length']), Buffer.byteLength(metadata.text))
  const tokenRoot = await service.request('GET', `${TOKEN_ROOT}?token=demo-token`)
  t.equal(tokenRoot.status, 200)
})

t.test('unknown paths and names are 404', async (t) => {
  assertError(t, await service.request('GET', '/nowhere', { headers }), 404, 'NotFound', 'no service root')
  assertError(
    t,
    await service.request('GET', '/odata/standard.odata/v3/Catalog_Products', { headers }),
    404,
    'NotFound',
    'wrong version segment',
  )
  assertError(t, await get('Catalog_Nothing'), 404, 'NotFound', 'unknown set')
  assertError(t, await get('catalog_products'), 404, 'NotFound', 'names are case-sensitive')
  assertError(t, await get('AccumulationRegister_Stock/Balanse()'), 404, 'NotFound', 'unknown function')
  assertError(t, await get("Catalog_Products(guid'00000000-0000-4000-8000-000000000001')/Nothing"), 404, 'NotFound', 'unknown navigation')
  const message = (await get('Catalog_Nothing')).json().error.message
  t.match(message, /Catalog_Nothing/, 'the name is in the message')
  assertError(t, await get(encodeURIComponent('Справочник_Нет')), 404, 'NotFound', 'unknown Cyrillic set')
})

t.test('methods not allowed are 405 with Allow', async (t) => {
  const cases: [string, string, string][] = [
    ['POST', 'AccumulationRegister_Stock_RecordType', 'GET, HEAD'],
    ['DELETE', 'Catalog_Products', 'GET, POST, HEAD'],
    ['PUT', '$metadata', 'GET, HEAD'],
    ['POST', "Document_GoodsReceipt_Goods(Ref_Key=guid'00000000-0000-4000-8000-000000000001',LineNumber=1)", 'GET, HEAD'],
    ['GET', "Document_GoodsSale(guid'00000000-0000-4000-8000-000000000001')/Post", 'POST'],
    [
      'PUT',
      "InformationRegister_Prices(Period=datetime'2024-01-01T00:00:00',Product_Key=guid'00000000-0000-4000-8000-000000000001',PriceType='R')",
      'GET, PATCH, DELETE, HEAD',
    ],
  ]
  for (const [method, path, allow] of cases) {
    const response = await service.request(method, `${REFERENCE_ROOT}${path}`, { headers, body: method === 'GET' ? undefined : '{}' })
    assertError(t, response, 405, 'MethodNotAllowed', `${method} ${path}`)
    t.equal(response.headers.allow, allow, `${method} ${path}: Allow`)
  }
})

t.test('malformed URLs and query options are 400', async (t) => {
  assertError(t, await get('Catalog_Products?$filter=%ZZ'), 400, 'InvalidUrl', 'bad percent-encoding in the query')
  assertError(t, await get('Catalog_Products?$bogus=1'), 400, 'InvalidQueryOption', 'unknown system option')
  assertError(t, await get('Catalog_Products?$top=1&$top=2'), 400, 'InvalidQueryOption', 'repeated option')
  assertError(t, await get('Catalog_Products?$top=-1'), 400, 'InvalidQueryOption', 'negative $top')
  assertError(t, await get('Catalog_Products?$select=Colour'), 400, 'InvalidSelect', 'unknown property in $select')
  assertError(t, await get('Catalog_Products?$search=x'), 400, 'SearchNotSupported', '$search')
  assertError(t, await get('Catalog_Products//x'), 400, 'InvalidUrl', 'empty segment')
  assertError(t, await get('AccumulationRegister_Stock/Balance(Period)'), 400, 'InvalidParameter', 'unnamed parameter')
  assertError(t, await get('Catalog_Products', { Accept: 'application/xml' }), 406, 'NotAcceptable', 'XML is not produced')
  const encodedName = await get('Catalog_Products?%24top=0')
  t.equal(encodedName.status, 200, '%24top is $top')
  t.same(encodedName.json().value, [])
})

t.test('oversized request headers are refused before the service sees them', async (t) => {
  const response = await service.request('GET', `${REFERENCE_ROOT}$metadata`, {
    headers: { ...headers, 'X-Padding': 'x'.repeat(64 * 1024) },
  })
  t.ok(response.status === 431 || response.status === 400, `status ${response.status}`)
  t.equal((await get('$metadata')).status, 200, 'the server is still serving')
})
