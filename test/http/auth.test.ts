// decisions.md §1: Basic on the reference root, a token (header, query or path) on the token root,
// 401 for missing or unknown credentials, 403 by profile.
import t from 'tap'
import { DEMO_BASIC, READER_BASIC, REFERENCE_ROOT, TOKEN_ROOT, startTestService } from '../support/test-service.js'

const service = await startTestService('http_auth')
t.teardown(() => service.close())
const key = '11111111-2222-4333-8444-555555555555'
await service.database.pool.query("INSERT INTO c_Warehouses (Ref_Key, DataVersion, Code, Description) VALUES (?, '7', '1', 'Main store')", [
  key,
])
const entity = `Catalog_Warehouses(guid'${key}')`

t.test('reference flavour: HTTP Basic', async (t) => {
  const missing = await service.request('GET', `${REFERENCE_ROOT}${entity}`)
  t.equal(missing.status, 401)
  t.equal(missing.json().error.code, 'Unauthorized')
  t.match(missing.headers['www-authenticate'], /^Basic realm="odata"/)
  const wrong = await service.request('GET', `${REFERENCE_ROOT}${entity}`, {
    headers: { Authorization: `Basic ${Buffer.from('demo:nope').toString('base64')}` },
  })
  t.equal(wrong.status, 401)
  const unknownUser = await service.request('GET', `${REFERENCE_ROOT}${entity}`, {
    headers: { Authorization: `Basic ${Buffer.from('ghost:demo').toString('base64')}` },
  })
  t.equal(unknownUser.status, 401)
  const tokenOnReference = await service.request('GET', `${REFERENCE_ROOT}${entity}`, { headers: { Authorization: 'Bearer demo-token' } })
  t.equal(tokenOnReference.status, 401, 'a token does not log in on the reference flavour')
  const ok = await service.request('GET', `${REFERENCE_ROOT}${entity}`, { headers: { Authorization: DEMO_BASIC } })
  t.equal(ok.status, 200)
  t.equal(ok.json().Description, 'Main store')
  t.equal((await service.request('GET', `${REFERENCE_ROOT}${entity}`, { headers: { Authorization: READER_BASIC } })).status, 200)
})

t.test('token flavour: header, query parameter, path', async (t) => {
  const missing = await service.request('GET', `${TOKEN_ROOT}${entity}`)
  t.equal(missing.status, 401)
  t.match(missing.headers['www-authenticate'], /^Bearer/)
  t.equal((await service.request('GET', `${TOKEN_ROOT}${entity}`, { headers: { Authorization: 'Bearer demo-token' } })).status, 200)
  t.equal((await service.request('GET', `${TOKEN_ROOT}${entity}?token=demo-token`)).status, 200)
  t.equal((await service.request('GET', `/api/t/demo-token/v4/${entity}`)).status, 200)
  t.equal((await service.request('GET', `/api/t/reader-token/v4/${entity}`)).status, 200)
  t.equal((await service.request('GET', `${TOKEN_ROOT}${entity}`, { headers: { Authorization: 'Bearer wrong-token' } })).status, 401)
  t.equal((await service.request('GET', `${TOKEN_ROOT}${entity}?token=wrong-token`)).status, 401)
  t.equal((await service.request('GET', `/api/t/wrong-token/v4/${entity}`)).status, 401)
  t.equal(
    (await service.request('GET', `${TOKEN_ROOT}${entity}`, { headers: { Authorization: DEMO_BASIC } })).status,
    401,
    'Basic does not log in on the token flavour',
  )
  const context = (await service.request('GET', `/api/t/demo-token/v4/${entity}`)).json()['@odata.context']
  t.notMatch(context, /demo-token/, 'the token never comes back in the context URL')
})

t.test('profiles: 403 where the profile may not write', async (t) => {
  const denied = await service.request('POST', `${TOKEN_ROOT}Catalog_Warehouses`, {
    headers: { Authorization: 'Bearer reader-token', 'Content-Type': 'application/json' },
    body: '{"Description":"x"}',
  })
  t.equal(denied.status, 403)
  t.equal(denied.json().error.code, 'Forbidden')
  const deniedDelete = await service.request('DELETE', `${REFERENCE_ROOT}${entity}`, { headers: { Authorization: READER_BASIC } })
  t.equal(deniedDelete.status, 403)
  const [rows] = await service.database.pool.query('SELECT COUNT(*) AS c FROM c_Warehouses')
  t.equal(Number((rows as { c: number }[])[0]!.c), 1, 'nothing written')
})

t.test('$batch: 501 on the reference flavour, 405 with Allow for other methods', async (t) => {
  const reference = await service.request('POST', `${REFERENCE_ROOT}$batch`, {
    headers: { Authorization: DEMO_BASIC, 'Content-Type': 'application/json' },
    body: '{"requests":[]}',
  })
  t.equal(reference.status, 501)
  t.equal(reference.json().error.code, 'BatchNotSupported')
  const get = await service.request('GET', `${TOKEN_ROOT}$batch`, { headers: { Authorization: 'Bearer demo-token' } })
  t.equal(get.status, 405)
  t.equal(get.headers.allow, 'POST, OPTIONS')
})
