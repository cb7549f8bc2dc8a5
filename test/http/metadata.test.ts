// `$metadata` over HTTP: CSDL XML by default, CSDL JSON for `$format=json` and `Accept: application/json`
// (the same description: every entity type, set and operation of one is in the other), and `$format` the
// only query option it takes.
import t from 'tap'
import { buildMetadataJson } from '../../src/model/csdl.js'
import { DEMO_BASIC, REFERENCE_ROOT, TOKEN_ROOT, startTestService } from '../support/test-service.js'

const service = await startTestService('http_metadata')
t.teardown(() => service.close())
const get = (path: string, headers: Record<string, string> = {}) =>
  service.request('GET', `${REFERENCE_ROOT}${path}`, { headers: { Authorization: DEMO_BASIC, ...headers } })

t.test('CSDL JSON for $format=json and Accept: application/json', async (t) => {
  const xml = await get('$metadata')
  t.equal(xml.status, 200)
  t.match(xml.headers['content-type'], /^application\/xml/, 'XML without a preference')
  for (const [label, response] of [
    ['$format=json', await get('$metadata?$format=json')],
    ['$format=application/json', await get('$metadata?$format=application/json')],
    ['Accept: application/json', await get('$metadata', { Accept: 'application/json' })],
    ['Accept listing JSON first', await get('$metadata', { Accept: 'application/json;q=0.9, application/xml;q=0.8' })],
    [
      'the token flavour',
      await service.request('GET', `${TOKEN_ROOT}$metadata?$format=json`, { headers: { Authorization: 'Bearer demo-token' } }),
    ],
  ] as const) {
    t.equal(response.status, 200, `${label}: 200`)
    t.match(response.headers['content-type'], /^application\/json/, `${label}: JSON`)
    const document = response.json()
    t.equal(document.$Version, '4.01', `${label}: CSDL JSON 4.01`)
    t.equal(document.$EntityContainer, 'StandardODATA.EnterpriseV8', `${label}: the container`)
    t.equal(response.text, buildMetadataJson(service.model), `${label}: the document the model describes`)
  }
  const json = (await get('$metadata?$format=json')).json()
  const schema = json.StandardODATA
  // Every entity type and entity set of the XML document is in the JSON one.
  for (const [, name] of xml.text.matchAll(/<EntityType Name="([^"]+)"/g))
    t.equal(schema[name!]?.$Kind, 'EntityType', `entity type ${name}`)
  for (const [, name] of xml.text.matchAll(/<EntitySet Name="([^"]+)"/g)) t.ok(schema.EnterpriseV8[name!], `entity set ${name}`)
  t.same(schema.Catalog_Products.$Key, ['Ref_Key'])

  for (const [label, response] of [
    ['$format=xml', await get('$metadata?$format=xml')],
    ['Accept: application/xml', await get('$metadata', { Accept: 'application/xml' })],
    ['Accept: */*', await get('$metadata', { Accept: '*/*' })],
  ] as const) {
    t.equal(response.status, 200, `${label}: 200`)
    t.match(response.headers['content-type'], /^application\/xml/, `${label}: XML`)
    t.equal(response.text, xml.text, `${label}: the same document`)
  }
  const notAcceptable = await get('$metadata?$format=atom')
  t.equal(notAcceptable.status, 406)
  t.equal(notAcceptable.json().error.code, 'NotAcceptable')
  t.equal((await get('$metadata', { Accept: 'text/csv' })).status, 406)
})

t.test('query options other than $format are 400 on $metadata', async (t) => {
  for (const option of [
    '$filter=true',
    '$top=1',
    '$select=Code',
    '$expand=*',
    '$orderby=Code',
    '$count=true',
    '$skip=1',
    '$apply=top(1)',
    '$search=x',
    '$schemaversion=1',
  ]) {
    const response = await get(`$metadata?${option}`)
    t.equal(response.status, 400, `${option}: 400`)
    t.equal(response.json().error.code, 'InvalidQueryOption', `${option}: InvalidQueryOption`)
    t.equal(response.json().error.target, option.slice(0, option.indexOf('=')), `${option}: the target names it`)
  }
  t.equal(
    (await service.request('GET', `${TOKEN_ROOT}$metadata?token=demo-token`)).status,
    200,
    'a custom parameter (the token) is no query option of $metadata',
  )
})
