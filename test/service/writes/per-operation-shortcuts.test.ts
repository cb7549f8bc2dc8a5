// The shortcuts a `$batch` of many small creates takes, each with the result of the long way: versions from
// a pooled random source, a JSON batch body handed over parsed, bodies that cannot bind skipped by the
// plan, entity writers kept per property list.
import t from 'tap'
import type { ODataError } from '../../../src/errors.js'
import { mayBind } from '../../../src/batch/plan/plan-batch.js'
import { loadModel } from '../../../src/model/load-model.js'
import { createEntityWriter, entityWriterFor } from '../../../src/respond/entity-writer.js'
import type { ServiceRequest } from '../../../src/service/service-request.js'
import { newDataVersion } from '../../../src/service/writes/data-version.js'
import { parseJsonBody } from '../../../src/service/writes/entity-body.js'

const model = loadModel('config/demo.json')
const products = model.entitySetByName.get('Catalog_Products')!

t.test('DataVersion: 8 random bytes in base64, all different, across refills of the pool', async (t) => {
  const versions = Array.from({ length: 3000 }, () => newDataVersion())
  t.same(
    versions.filter((v) => Buffer.from(v, 'base64').length !== 8 || v.length !== 12),
    [],
    'every one is eight bytes in base64',
  )
  t.equal(new Set(versions).size, versions.length, 'no version repeats')
})

function request(body: Buffer | undefined, json: unknown, contentType?: string): ServiceRequest {
  const headers = new Map<string, string>()
  if (contentType !== undefined) headers.set('content-type', contentType)
  return {
    method: 'POST',
    path: { kind: 'collection', set: products } as never,
    query: { system: new Map(), custom: new Map() } as never,
    headers,
    body,
    json,
    subject: undefined as never,
    flavour: 'token' as never,
    serviceRoot: 'http://h/api/v4/',
  }
}

t.test('a body handed over parsed reads as its text does', async (t) => {
  const value = { Description: 'x', Article: 'a' }
  const text = Buffer.from(JSON.stringify(value))
  t.same(
    parseJsonBody(request(text, value, 'application/json'), true),
    parseJsonBody(request(text, undefined, 'application/json'), true),
    'same object',
  )
  for (const [label, given] of [
    ['an array', [1]],
    ['a string', 's'],
    ['null', null],
  ] as const) {
    const bytes = Buffer.from(JSON.stringify(given))
    const parsedWay = (() => {
      try {
        parseJsonBody(request(bytes, given, 'application/json'), true)
      } catch (error) {
        return (error as ODataError).code
      }
    })()
    const textWay = (() => {
      try {
        parseJsonBody(request(bytes, undefined, 'application/json'), true)
      } catch (error) {
        return (error as ODataError).code
      }
    })()
    t.equal(parsedWay, 'InvalidBody', `${label}: refused`)
    t.equal(parsedWay, textWay, `${label}: as the text is refused`)
  }
  try {
    parseJsonBody(request(text, value, 'text/plain'), true)
    t.fail('a media type that is not JSON: accepted')
  } catch (error) {
    t.equal((error as ODataError).code, 'UnsupportedMediaType', 'a media type that is not JSON is still 415')
  }
})

t.test('bodies that cannot name a $<id> are not parsed by the plan', async (t) => {
  t.equal(mayBind({ kind: 'bytes', bytes: Buffer.from('{"Description":"x"}') }), false, 'no bind')
  t.equal(mayBind({ kind: 'bytes', bytes: Buffer.from('{"Unit@odata.bind":"$1"}') }), true, 'a bind')
  t.equal(mayBind({ kind: 'bytes', bytes: Buffer.from('{"Unit\\u0040odata\\u002ebind":"$1"}') }), true, 'a bind spelt with escapes')
  t.equal(mayBind({ kind: 'json', value: { Description: 'x' } }), true, 'a parsed body is walked as before')
})

t.test('an entity writer kept per property list writes what a new one writes', async (t) => {
  const row = ['4f0a0000-0000-0000-0000-000000000001', 'AAAAAQAAAAA=', 0, 'C1', 'D', 'A', 'pcs']
  for (const ieee754Compatible of [false, true]) {
    const kept = entityWriterFor(products.properties, { ieee754Compatible })
    t.equal(entityWriterFor(products.properties, { ieee754Compatible }), kept, 'the same writer again')
    t.equal(
      kept.write(row, '"@odata.etag":"x",'),
      createEntityWriter(products.properties, { ieee754Compatible }).write(row, '"@odata.etag":"x",'),
      `IEEE754Compatible=${ieee754Compatible}: same text`,
    )
  }
  t.not(
    entityWriterFor(products.properties, { ieee754Compatible: true }),
    entityWriterFor(products.properties, { ieee754Compatible: false }),
    'one per format',
  )
})

t.test('a body handed over parsed is not turned back into text to be read', async (t) => {
  let reads = 0
  const value = { Description: 'x' }
  const given = {
    ...request(undefined, value, 'application/json'),
    get body() {
      reads++
      return Buffer.from(JSON.stringify(value))
    },
  }
  t.same(parseJsonBody(given, true), value, 'the value')
  t.equal(reads, 0, 'body never read')
})
