// An operation URL with whitespace or a control character at either end is refused (400
// UnsafeOperationUrl), and no credential of such a URL reaches the request log (decisions.md §8).
import t from 'tap'
import { buildJsonBatch } from '../../../src/tools/shared/batch-body.js'
import { demoConfigurationWithLogLevel, startTestService, TOKEN_ROOT } from '../../support/test-service.js'

const configFile = demoConfigurationWithLogLevel('all')
const service = await startTestService('operation_url_padding', { configFile })
t.teardown(() => service.close())

t.test('a padded operation URL is 400 and its password is not logged', async (t) => {
  const absolute = `http://u:S3cretPw@127.0.0.1:${service.port}${TOKEN_ROOT}Catalog_Warehouses?$top=1`
  const padded = [` ${absolute}`, `\t${absolute}`, `\u00a0${absolute}`, `\ufeff${absolute}`, `${absolute} `, `${absolute}\u3000`]
  const built = buildJsonBatch(padded.map((url, i) => ({ id: String(i), method: 'GET', url })))
  const response = await service.request('POST', `${TOKEN_ROOT}$batch`, {
    headers: { Authorization: 'Bearer demo-token', 'Content-Type': built.contentType, Prefer: 'odata.continue-on-error' },
    body: built.body,
  })
  t.equal(response.status, 200)
  const items = response.json().responses as { status: number; body: { error: { code: string } } }[]
  t.equal(items.length, padded.length)
  for (const [i, item] of items.entries()) {
    t.equal(item.status, 400, JSON.stringify(padded[i]))
    t.equal(item.body.error.code, 'UnsafeOperationUrl', JSON.stringify(padded[i]))
    t.notMatch(JSON.stringify(item.body), /S3cretPw/, 'no password in the answer')
  }
  const [logged] = (await service.database.pool.query('SELECT url FROM request_log WHERE content_id IS NOT NULL')) as unknown as [
    { url: string }[],
  ]
  t.equal(logged.length, padded.length, 'every operation is logged')
  t.notOk(
    logged.some((row) => row.url.includes('S3cretPw')),
    'no password',
  )
  t.ok(
    logged.every((row) => row.url.includes('***@127.0.0.1')),
    'the userinfo is masked',
  )
})

t.test('the unpadded URL still runs', async (t) => {
  const built = buildJsonBatch([{ id: '1', method: 'GET', url: `http://127.0.0.1:${service.port}${TOKEN_ROOT}Catalog_Warehouses?$top=1` }])
  const response = await service.request('POST', `${TOKEN_ROOT}$batch`, {
    headers: { Authorization: 'Bearer demo-token', 'Content-Type': built.contentType },
    body: built.body,
  })
  t.equal(response.json().responses[0].status, 200)
})

t.test('userinfo in any spelling is 400 UnsafeOperationUrl, and no error message repeats a password', async (t) => {
  const host = `127.0.0.1:${service.port}`
  const withUserinfo = [
    `http:\\\\u:PWBS1@${host}${TOKEN_ROOT}Catalog_Products`,
    `http:u:PWBS2@${host}${TOKEN_ROOT}Catalog_Products`,
    `//u:PWBS3@${host}${TOKEN_ROOT}Catalog_Products`,
    `\\\\u:PWBS4@${host}${TOKEN_ROOT}Catalog_Products`,
    `http://u:PWBS5@${host}${TOKEN_ROOT}Catalog_Products`,
    'http:\\\\u:PWBS6@elsewhere/x',
    '//u:PWBS7@elsewhere/x',
  ]
  // Userinfo inside a URL's data is data; an error quoting it masks it all the same.
  const quoting = ["Catalog_Products('//u:PWBS8@h')", "Catalog_Products('%2F%2Fu:PWBS9@h')"]
  const built = buildJsonBatch([...withUserinfo, ...quoting].map((url, i) => ({ id: String(i), method: 'GET', url })))
  const response = await service.request('POST', `${TOKEN_ROOT}$batch`, {
    headers: { Authorization: 'Bearer demo-token', 'Content-Type': built.contentType, Prefer: 'odata.continue-on-error' },
    body: built.body,
  })
  t.equal(response.status, 200)
  t.notMatch(response.text, /PWBS/, 'no password in the answer')
  const items = response.json().responses as { status: number; body: { error: { code: string; message: string } } }[]
  for (const [i, url] of withUserinfo.entries()) {
    t.equal(items[i]!.status, 400, url)
    t.equal(items[i]!.body.error.code, 'UnsafeOperationUrl', url)
    t.match(items[i]!.body.error.message, /\*\*\*@/, `the message shows the userinfo masked: ${url}`)
  }
  for (const [i, url] of quoting.entries()) {
    const item = items[withUserinfo.length + i]!
    t.ok(item.status >= 400 && item.status < 500, `${url} is refused (${item.status})`)
    t.match(item.body.error.message, /\*\*\*@h/, `the message quotes the literal masked: ${item.body.error.message}`)
  }
})
