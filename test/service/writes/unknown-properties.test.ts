// The names of a write body: one the type does not have is `400 UnknownProperty` naming it (nothing is
// written), unless the configuration asks for the reference system's lenient reading
// (`settings.unknownProperties: "ignore"`), which drops it; annotations are allowed either way. An
// `@odata.bind` given as an absolute or host-root address must address this service root, in both modes.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { DEMO_BASIC, REFERENCE_ROOT, startTestService, type TestResponse, type TestService } from '../../support/test-service.js'
import { count, documentBody, fixtures, rows, RECEIPT_TYPE } from './write-helpers.js'

const client = await startTestService('writes_unknown_properties', { data: 'demo' })
t.teardown(() => client.close())
const { pool } = client.database
const f = await fixtures(pool)

function assertUnknown(t: Test, response: TestResponse, names: string[], label: string) {
  t.equal(response.status, 400, `${label}: 400`)
  const error = response.json().error
  t.equal(error.code, 'UnknownProperty', `${label}: UnknownProperty`)
  t.equal(error.target, names[0], `${label}: the target is the first unknown name`)
  t.same(
    error.details.map((d: { target: string }) => d.target),
    names,
    `${label}: every unknown name, with its path`,
  )
  for (const name of names) t.match(error.message, name, `${label}: the message names ${name}`)
}

t.test('unknown names are 400 UnknownProperty, and nothing is written', async (t) => {
  assertUnknown(
    t,
    await client.send('POST', 'Catalog_Products', { Code: 'U-1', Description: 'x', Colour: 'red' }),
    ['Colour'],
    'catalog create',
  )
  t.equal(await count(pool, "SELECT COUNT(*) FROM c_Products WHERE Code = 'U-1'"), 0, 'no catalog row')

  const documents = await count(pool, 'SELECT COUNT(*) FROM d_GoodsReceipt')
  const body = documentBody(f, { extra: { Comments: 'typo' } })
  ;(body.Goods as Record<string, unknown>[])[1]!.Qty = 3
  assertUnknown(
    t,
    await client.send('POST', 'Document_GoodsReceipt', body),
    ['Goods/1/Qty', 'Comments'],
    'document create, in a table-part row too',
  )
  t.equal(await count(pool, 'SELECT COUNT(*) FROM d_GoodsReceipt'), documents, 'no document row')

  const created = (await client.send('POST', 'Catalog_Products', { Code: 'U-2', Description: 'before' })).json()
  assertUnknown(
    t,
    await client.send('PATCH', `Catalog_Products(${created.Ref_Key})`, { Description: 'after', Descripton: 'typo' }),
    ['Descripton'],
    'PATCH',
  )
  assertUnknown(
    t,
    await client.send('PUT', `Catalog_Products(${created.Ref_Key})`, { Code: 'U-2', Description: 'after', descriptioN: 'case matters' }),
    ['descriptioN'],
    'PUT',
  )
  t.same(
    await rows(pool, 'SELECT Description FROM c_Products WHERE Ref_Key = ?', [created.Ref_Key]),
    [{ Description: 'before' }],
    'the row is as it was',
  )

  assertUnknown(
    t,
    await client.send('POST', 'Catalog_Products', { Code: 'U-3', 'Unit@odata.bind': 'Catalog_Units(1)' }),
    ['Unit@odata.bind'],
    'a bind of a navigation the type does not have',
  )

  const recorder = created.Ref_Key
  const stock = `AccumulationRegister_Stock(Recorder=${recorder},Recorder_Type='${RECEIPT_TYPE}')`
  assertUnknown(
    t,
    await client.send('PUT', stock, { RecordSet: [{ Quantity: 1 }, { Quantity: 1, Warehouse: 'x', Qty: 2 }] }),
    ['RecordSet/1/Qty'],
    'a record-set row',
  )
  t.equal(await count(pool, 'SELECT COUNT(*) FROM ar_Stock WHERE Recorder = ?', [recorder]), 0, 'no movement')
  assertUnknown(
    t,
    await client.send('POST', 'InformationRegister_Prices', {
      Period: '2024-01-01T00:00:00Z',
      Product_Key: f.products[0],
      PriceType: 'U-Test',
      Price: 1,
      Currency: 'EUR',
    }),
    ['Currency'],
    'an information register record',
  )
  t.equal(await count(pool, "SELECT COUNT(*) FROM ir_Prices WHERE PriceType = 'U-Test'"), 0, 'no record')
})

t.test('annotations, maintained properties and navigation properties are known names', async (t) => {
  const response = await client.send('POST', 'Document_GoodsReceipt', {
    ...documentBody(f),
    '@odata.type': '#StandardODATA.Document_GoodsReceipt',
    '@odata.etag': 'W/"x"',
    'Number@odata.type': '#String',
    'Warehouse@odata.bind': `Catalog_Warehouses(${f.warehouses[1]})`,
    Warehouse_Key: f.warehouses[1],
    Posted: true,
    DataVersion: 'x',
    Goods: [
      {
        Ref_Key: 'ignored',
        LineNumber: 7,
        Product_Key: f.products[0],
        Quantity: 1,
        Price: 1,
        Amount: 1,
        'Quantity@odata.type': '#Decimal',
      },
    ],
  })
  t.equal(response.status, 201, response.text.slice(0, 300))
  t.equal(response.json().Warehouse_Key, f.warehouses[1])
})

t.test('@odata.bind to another host or another service root is 400, and nothing is written', async (t) => {
  const warehouse = f.warehouses[1]
  const port = client.port
  for (const [address, label] of [
    [`http://elsewhere.example${REFERENCE_ROOT}Catalog_Warehouses(${warehouse})`, 'another host'],
    [`http://127.0.0.1:${port + 1}${REFERENCE_ROOT}Catalog_Warehouses(${warehouse})`, 'another port'],
    [`http://127.0.0.1:${port}/api/v4/Catalog_Warehouses(${warehouse})`, 'the other flavour, absolute'],
    [`/api/v4/Catalog_Warehouses(${warehouse})`, 'the other flavour, from the host root'],
    [`/other/Catalog_Warehouses(${warehouse})`, 'no service root, from the host root'],
  ]) {
    const response = await client.send('POST', 'Document_GoodsReceipt', {
      ...documentBody(f, { warehouse }),
      Number: 'B-1',
      'Warehouse@odata.bind': address,
    })
    t.equal(response.status, 400, `${label}: 400`)
    t.equal(response.json().error.code, 'InvalidValue', `${label}: InvalidValue`)
    t.equal(response.json().error.target, 'Warehouse@odata.bind', `${label}: the target names the bind`)
    t.match(response.json().error.message, /another (host|service root)/, `${label}: the message says why`)
  }
  t.equal(await count(pool, "SELECT COUNT(*) FROM d_GoodsReceipt WHERE Number = 'B-1'"), 0, 'no document')
  for (const [address, label] of [
    [`http://127.0.0.1:${port}${REFERENCE_ROOT}Catalog_Warehouses(${warehouse})`, 'this root, absolute'],
    [`HTTP://127.0.0.1:${port}${REFERENCE_ROOT}Catalog_Warehouses(${warehouse})`, 'this root, absolute, the scheme in capitals'],
    [`${REFERENCE_ROOT}Catalog_Warehouses(guid'${warehouse}')`, 'this root, from the host root'],
    [`Catalog_Warehouses(${warehouse})`, 'relative'],
  ]) {
    const response = await client.send('POST', 'Document_GoodsReceipt', {
      ...documentBody(f, { warehouse }),
      Number: 'B-2',
      'Warehouse@odata.bind': address,
    })
    t.equal(response.status, 201, `${label}: 201 ${response.text.slice(0, 300)}`)
    t.equal(response.json().Warehouse_Key, warehouse, `${label}: bound`)
  }
  const token = await client.request('POST', '/api/t/demo-token/v4/Catalog_Products', {
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ Code: 'B-3', 'Unit@odata.type': '#String', Description: 'x' }),
  })
  t.equal(token.status, 201, 'a token in the path is the same service root')
})

t.test('the lenient mode of the configuration drops unknown names; foreign binds stay refused', async (t) => {
  const configuration = JSON.parse(readFileSync('config/demo.json', 'utf8'))
  configuration.settings = { ...configuration.settings, unknownProperties: 'ignore' }
  const file = join(mkdtempSync(join(tmpdir(), 'lenient-')), 'lenient.json')
  writeFileSync(file, JSON.stringify(configuration))
  const lenient: TestService = await startTestService('writes_unknown_properties_lenient', { configFile: file })
  t.teardown(() => lenient.close())
  const post = (path: string, body: unknown) =>
    lenient.request('POST', `${REFERENCE_ROOT}${path}`, {
      headers: { Authorization: DEMO_BASIC, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    })

  const created = await post('Catalog_Products', { Code: 'L-1', Description: 'lenient', Colour: 'red' })
  t.equal(created.status, 201)
  t.notOk('Colour' in created.json(), 'the unknown property is dropped')
  t.same(
    await rows(lenient.database.pool, "SELECT Code, Description FROM c_Products WHERE Code = 'L-1'"),
    [{ Code: 'L-1', Description: 'lenient' }],
    'the rest is written',
  )
  const settings = await lenient.request('GET', `${REFERENCE_ROOT}$settings`, { headers: { Authorization: DEMO_BASIC } })
  t.notOk('unknownProperties' in settings.json().settings, 'not a run-time setting')

  const foreign = await post('Catalog_Products', { Code: 'L-2', 'Unit@odata.type': '#String', Description: 'x', Colour: 1 })
  t.equal(foreign.status, 201, 'annotations and unknown names together')
  const bind = await post('Document_GoodsReceipt', {
    Number: 'L-3',
    'Warehouse@odata.bind': `http://elsewhere.example${REFERENCE_ROOT}Catalog_Warehouses(${f.warehouses[0]})`,
  })
  t.equal(bind.status, 400, 'a foreign bind is refused in the lenient mode too')
  t.equal(bind.json().error.code, 'InvalidValue')
})
