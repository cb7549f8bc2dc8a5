// CORS for browser clients: origins from the configuration (`*` and non-origins refused at start), a
// preflight answered 204 without credentials with the methods, headers and Max-Age OData clients need,
// and the OData headers exposed on answers to an allowed origin (errors, batches and 201s included).
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import t from 'tap'
import { CorsPolicy } from '../../src/http/cors.js'
import { ConfigurationError } from '../../src/model/configuration.js'
import { buildMultipartBatch } from '../../src/tools/shared/batch-body.js'
import { DEMO_BASIC, REFERENCE_ROOT, TOKEN_ROOT, startTestService } from '../support/test-service.js'

const APP = 'https://app.example.com'
const directory = mkdtempSync(path.join(os.tmpdir(), 'cors-'))
const configFile = path.join(directory, 'demo-with-cors.json')
const demo = JSON.parse(readFileSync('config/demo.json', 'utf8'))
delete demo.$schema
writeFileSync(configFile, JSON.stringify({ ...demo, cors: { allowedOrigins: [APP, 'http://localhost:3000'], maxAgeSeconds: 3600 } }))

const service = await startTestService('http_cors', { configFile })
t.teardown(() => service.close())

const preflight = (origin: string, requestedHeaders = 'authorization, if-match, prefer') =>
  service.request('OPTIONS', `${REFERENCE_ROOT}Catalog_Products`, {
    headers: { origin, 'access-control-request-method': 'PATCH', 'access-control-request-headers': requestedHeaders },
  })

const list = (value: string | string[] | undefined) =>
  String(value ?? '')
    .split(',')
    .map((item) => item.trim().toLowerCase())

t.test('a preflight from an allowed origin is 204 without credentials (it was 401)', async (t) => {
  const answer = await preflight(APP)
  t.equal(answer.status, 204)
  t.equal(answer.headers['access-control-allow-origin'], APP)
  for (const method of ['GET', 'POST', 'PATCH', 'PUT', 'DELETE'])
    t.ok(list(answer.headers['access-control-allow-methods']).includes(method.toLowerCase()), method)
  for (const header of ['Authorization', 'If-Match', 'If-None-Match', 'Prefer', 'OData-MaxVersion', 'OData-Version', 'Content-Type']) {
    t.ok(list(answer.headers['access-control-allow-headers']).includes(header.toLowerCase()), header)
  }
  t.equal(answer.headers['access-control-max-age'], '3600')
  t.equal(answer.headers.vary, 'Origin')
  t.equal(answer.body.length, 0)
  const batchPreflight = await service.request('OPTIONS', `${TOKEN_ROOT}$batch`, {
    headers: { origin: 'http://localhost:3000', 'access-control-request-method': 'POST' },
  })
  t.equal(batchPreflight.status, 204)
  t.equal(batchPreflight.headers['access-control-allow-origin'], 'http://localhost:3000')
})

t.test('a preflight from another origin is 403 and allows nothing', async (t) => {
  const answer = await preflight('https://evil.example.net')
  t.equal(answer.status, 403)
  t.equal(answer.headers['access-control-allow-origin'], undefined)
  t.equal(answer.headers['access-control-allow-methods'], undefined)
})

t.test('answers to an allowed origin expose the OData headers', async (t) => {
  const created = await service.request('POST', `${REFERENCE_ROOT}Catalog_Warehouses`, {
    headers: { origin: APP, authorization: DEMO_BASIC, 'content-type': 'application/json' },
    body: JSON.stringify({ Description: 'From a browser' }),
  })
  t.equal(created.status, 201)
  t.equal(created.headers['access-control-allow-origin'], APP)
  const exposed = list(created.headers['access-control-expose-headers'])
  for (const header of ['OData-Version', 'OData-EntityId', 'Preference-Applied', 'Retry-After', 'Location', 'ETag'])
    t.ok(exposed.includes(header.toLowerCase()), header)
  t.ok(created.headers.location, 'the Location a script reads')

  const refused = await service.request('GET', `${REFERENCE_ROOT}Catalog_Products`, { headers: { origin: APP } })
  t.equal(refused.status, 401, 'a request without credentials is still refused')
  t.equal(refused.headers['access-control-allow-origin'], APP, 'and the script may read why')

  const built = buildMultipartBatch([{ method: 'GET', url: 'Catalog_Products?$top=1' }])
  const batch = await service.request('POST', `${TOKEN_ROOT}$batch`, {
    headers: { origin: APP, authorization: 'Bearer demo-token', 'content-type': `multipart/mixed; boundary=${built.boundary}` },
    body: built.body,
  })
  t.equal(batch.status, 200)
  t.equal(batch.headers['access-control-allow-origin'], APP)
})

t.test('another origin gets no CORS headers; a plain OPTIONS is unchanged', async (t) => {
  const other = await service.request('GET', `${REFERENCE_ROOT}Catalog_Products?$top=1`, {
    headers: { origin: 'https://evil.example.net', authorization: DEMO_BASIC },
  })
  t.equal(other.status, 200)
  t.equal(other.headers['access-control-allow-origin'], undefined)
  t.equal(other.headers.vary, 'Origin')
  const plain = await service.request('OPTIONS', `${REFERENCE_ROOT}Catalog_Products`)
  t.equal(plain.status, 401, 'no Origin: not a preflight')
})

t.test('"*" and non-origins are refused at start, naming where they stand', async (t) => {
  t.throws(() => new CorsPolicy({ allowedOrigins: ['https://ok.example', '*'] }), ConfigurationError)
  try {
    new CorsPolicy({ allowedOrigins: ['https://ok.example', '*', 'https://app.example.com/path'] })
  } catch (error) {
    t.match((error as Error).message, /\/cors\/allowedOrigins\/1: "\*": a wildcard is refused/)
    t.match((error as Error).message, /\/cors\/allowedOrigins\/2: "https:\/\/app\.example\.com\/path" is not an origin/)
  }
  t.throws(() => new CorsPolicy({}, 'https://a.example, https://*.example'), /CORS_ORIGINS: "https:\/\/\*\.example": a wildcard is refused/)
  t.equal(new CorsPolicy({ allowedOrigins: [APP] }, 'http://localhost:8081').allows(APP), false, 'CORS_ORIGINS replaces the configuration')
})
