// Create, update and delete of catalog items and documents (decisions.md §5), checked by reading the
// database back; every refused write leaves the database as it was.
import t from 'tap'
import { count, documentBody, fixtures, rows } from './write-helpers.js'
import { startTestService } from '../../support/test-service.js'

const client = await startTestService('writes_objects', { data: 'demo' })
t.teardown(() => client.close())
const { pool } = client.database
const f = await fixtures(pool)
const NEW_KEY = '5a8f0c2e-1d3b-4e6f-8a9b-0c1d2e3f4a5b'

t.test('POST creates a catalog item with a server-made key: 201, Location, ETag, the entity', async (t) => {
  const before = await count(pool, 'SELECT COUNT(*) FROM c_Products')
  const response = await client.send('POST', 'Catalog_Products', { Code: 'NEW-1', Description: 'Новый товар', Article: 'A-1' })
  t.equal(response.status, 201)
  const body = response.json()
  t.match(body.Ref_Key, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
  t.equal(response.headers.location, `http://127.0.0.1:${client.port}/odata/standard.odata/v4/Catalog_Products(${body.Ref_Key})`)
  t.equal(response.headers.etag, `W/"${body.DataVersion}"`)
  t.equal(body['@odata.etag'], response.headers.etag)
  t.same(
    { Code: body.Code, Description: body.Description, Article: body.Article, Unit: body.Unit, DeletionMark: body.DeletionMark },
    { Code: 'NEW-1', Description: 'Новый товар', Article: 'A-1', Unit: '', DeletionMark: false },
  )
  // Unknown properties: test/service/writes/unknown-properties.test.ts (400, or ignored in the lenient mode).
  t.equal(await count(pool, 'SELECT COUNT(*) FROM c_Products'), before + 1)
  const [stored] = await rows(pool, 'SELECT * FROM c_Products WHERE Ref_Key = ?', [body.Ref_Key])
  t.same(stored, {
    Ref_Key: body.Ref_Key,
    DataVersion: body.DataVersion,
    DeletionMark: 0,
    Code: 'NEW-1',
    Description: 'Новый товар',
    Article: 'A-1',
    Unit: '',
  })
  const read = await client.send('GET', `Catalog_Products(${body.Ref_Key})`)
  t.same(read.json(), body, 'a later GET returns the same entity')
})

t.test('POST with a client-given Ref_Key; the same key again is 409, or 412 with If-None-Match: *', async (t) => {
  const created = await client.send('POST', 'Catalog_Warehouses', {
    Ref_Key: NEW_KEY.toUpperCase(),
    Code: 'W-NEW',
    Description: 'Warehouse',
  })
  t.equal(created.status, 201)
  t.equal(created.json().Ref_Key, NEW_KEY, 'stored lowercase')
  const conflict = await client.send('POST', 'Catalog_Warehouses', { Ref_Key: NEW_KEY, Code: 'W-OTHER', Description: 'Other' })
  t.equal(conflict.status, 409)
  t.equal(conflict.json().error.code, 'Conflict')
  const precondition = await client.send(
    'POST',
    'Catalog_Warehouses',
    { Ref_Key: NEW_KEY, Code: 'W-OTHER', Description: 'Other' },
    { 'If-None-Match': '*' },
  )
  t.equal(precondition.status, 412)
  t.equal(precondition.json().error.code, 'PreconditionFailed')
  t.same(
    await rows(pool, 'SELECT Code FROM c_Warehouses WHERE Ref_Key = ?', [NEW_KEY]),
    [{ Code: 'W-NEW' }],
    'the first one stays as it was',
  )
  const fresh = await client.send(
    'POST',
    'Catalog_Warehouses',
    { Ref_Key: '5a8f0c2e-1d3b-4e6f-8a9b-0c1d2e3f4a5c', Code: 'W-2', Description: 'x' },
    { 'If-None-Match': '*' },
  )
  t.equal(fresh.status, 201, 'If-None-Match: * with a new key creates')
  const zero = await client.send('POST', 'Catalog_Warehouses', {
    Ref_Key: '00000000-0000-0000-0000-000000000000',
    Code: 'Z',
    Description: 'z',
  })
  t.equal(zero.status, 400, 'the empty reference is no key')
})

t.test('wrong types and values out of range are 400 naming the property, and nothing is written', async (t) => {
  const before = await count(pool, 'SELECT COUNT(*) FROM c_Products')
  const cases: [unknown, string, string][] = [
    [{ Code: 'x'.repeat(12), Description: 'd' }, 'InvalidValue', 'Code'],
    [{ Code: 'ok', Description: 'd'.repeat(151) }, 'InvalidValue', 'Description'],
    [{ Code: 'ok', DeletionMark: 'yes' }, 'InvalidValue', 'DeletionMark'],
    [{ Code: 42 }, 'InvalidValue', 'Code'],
    [{ Ref_Key: 'not-a-guid', Code: 'ok' }, 'InvalidValue', 'Ref_Key'],
    [{ Code: 'ok', Unit: null }, 'InvalidValue', 'Unit'],
    ['[1,2]', 'InvalidBody', ''],
    ['{"Code":', 'InvalidBody', ''],
    ['null', 'InvalidBody', ''],
  ]
  for (const [body, code, target] of cases) {
    const response = await client.send('POST', 'Catalog_Products', body)
    t.equal(response.status, 400, JSON.stringify(body))
    t.equal(response.json().error.code, code, JSON.stringify(body))
    if (target) t.equal(response.json().error.target, target, JSON.stringify(body))
  }
  const empty = await client.send('POST', 'Catalog_Products', '')
  t.equal(empty.json().error.code, 'InvalidBody', 'no body')
  const xml = await client.send('POST', 'Catalog_Products', '<Code/>', { 'Content-Type': 'application/xml' })
  t.equal(xml.status, 415)
  t.equal(xml.json().error.code, 'UnsupportedMediaType')
  t.equal(await count(pool, 'SELECT COUNT(*) FROM c_Products'), before, 'nothing was written')
  const reader = await client.request('POST', '/odata/standard.odata/v4/Catalog_Products', {
    headers: { Authorization: `Basic ${Buffer.from('reader:reader').toString('base64')}`, 'Content-Type': 'application/json' },
    body: '{"Code":"R"}',
  })
  t.equal(reader.status, 403, 'a read-only profile may not write')
  t.equal(await count(pool, 'SELECT COUNT(*) FROM c_Products'), before)
})

t.test('PATCH merges, PUT replaces; DataVersion changes on every write; If-Match guards both', async (t) => {
  const created = (await client.send('POST', 'Catalog_Counterparties', { Code: 'C-1', Description: 'First', TaxId: '7700000001' })).json()
  const key = created.Ref_Key
  const patched = await client.send(
    'PATCH',
    `Catalog_Counterparties(guid'${key}')`,
    { Description: 'Renamed', Code: undefined },
    { 'If-Match': created['@odata.etag'] },
  )
  t.equal(patched.status, 200)
  t.same(
    { Code: patched.json().Code, Description: patched.json().Description, TaxId: patched.json().TaxId },
    { Code: 'C-1', Description: 'Renamed', TaxId: '7700000001' },
    'PATCH keeps what it does not name',
  )
  t.not(patched.json().DataVersion, created.DataVersion, 'a new DataVersion')
  t.equal(patched.headers.etag, `W/"${patched.json().DataVersion}"`)

  const stale = await client.send(
    'PATCH',
    `Catalog_Counterparties(${key})`,
    { Description: 'Lost update' },
    { 'If-Match': created['@odata.etag'] },
  )
  t.equal(stale.status, 412, 'an old ETag is refused')
  t.equal(stale.json().error.code, 'PreconditionFailed')
  t.same(
    await rows(pool, 'SELECT Description, DataVersion FROM c_Counterparties WHERE Ref_Key = ?', [key]),
    [{ Description: 'Renamed', DataVersion: patched.json().DataVersion }],
    'nothing changed',
  )

  const replaced = await client.send(
    'PUT',
    `Catalog_Counterparties(${key})`,
    { Description: 'Replaced', Ref_Key: '00000000-0000-4000-8000-000000000009' },
    { 'If-Match': '*' },
  )
  t.equal(replaced.status, 200)
  t.same(
    {
      Ref_Key: replaced.json().Ref_Key,
      Code: replaced.json().Code,
      Description: replaced.json().Description,
      TaxId: replaced.json().TaxId,
    },
    { Ref_Key: key, Code: '', Description: 'Replaced', TaxId: '' },
    'PUT resets what it does not give; the key comes from the URL',
  )
  t.same(await rows(pool, 'SELECT Code, Description, TaxId FROM c_Counterparties WHERE Ref_Key = ?', [key]), [
    { Code: '', Description: 'Replaced', TaxId: '' },
  ])

  const weak = await client.send(
    'PATCH',
    `Catalog_Counterparties(${key})`,
    { Code: 'C-2' },
    { 'If-Match': `"x", ${replaced.headers.etag}` },
  )
  t.equal(weak.status, 200, 'any tag of the list may match')
  const missing = await client.send('PATCH', 'Catalog_Counterparties(00000000-0000-4000-8000-00000000abcd)', { Code: 'x' })
  t.equal(missing.status, 404)
  const missingStar = await client.send(
    'PUT',
    'Catalog_Counterparties(00000000-0000-4000-8000-00000000abcd)',
    { Code: 'x' },
    { 'If-Match': '*' },
  )
  t.equal(missingStar.status, 404, 'no upsert through PUT')
  const badValue = await client.send('PATCH', `Catalog_Counterparties(${key})`, { TaxId: '1234567890123' })
  t.equal(badValue.status, 400)
  t.equal(badValue.json().error.target, 'TaxId')
  t.same(await rows(pool, 'SELECT Code, TaxId FROM c_Counterparties WHERE Ref_Key = ?', [key]), [{ Code: 'C-2', TaxId: '' }])
  const malformed = await client.send('PATCH', `Catalog_Counterparties(${key})`, { Code: 'x' }, { 'If-Match': 'nonsense' })
  t.equal(malformed.status, 400, 'a malformed If-Match')
})

t.test('DELETE removes; If-Match applies; a second DELETE is 404', async (t) => {
  const created = (await client.send('POST', 'Catalog_Products', { Code: 'DEL', Description: 'to delete' })).json()
  const stale = await client.send('DELETE', `Catalog_Products(${created.Ref_Key})`, undefined, { 'If-Match': 'W/"old"' })
  t.equal(stale.status, 412)
  t.equal(await count(pool, 'SELECT COUNT(*) FROM c_Products WHERE Ref_Key = ?', [created.Ref_Key]), 1)
  const deleted = await client.send('DELETE', `Catalog_Products(${created.Ref_Key})`, undefined, { 'If-Match': created['@odata.etag'] })
  t.equal(deleted.status, 204)
  t.equal(deleted.body.length, 0)
  t.equal(await count(pool, 'SELECT COUNT(*) FROM c_Products WHERE Ref_Key = ?', [created.Ref_Key]), 0)
  t.equal((await client.send('DELETE', `Catalog_Products(${created.Ref_Key})`)).status, 404)
})

t.test('documents: table parts written whole, LineNumber renumbered, references by _Key or @odata.bind', async (t) => {
  const body = {
    Number: 'R-1',
    Date: '2024-03-15T13:00:00+03:00',
    'Warehouse@odata.bind': `Catalog_Warehouses(guid'${f.warehouses[1]}')`,
    Counterparty_Key: f.counterparties[2],
    Posted: true,
    Goods: [
      { LineNumber: 7, Product_Key: f.products[0], Quantity: 1.5, Price: '2.25', Amount: 3.38 },
      {
        'Product@odata.bind': `/odata/standard.odata/v4/Catalog_Products(${f.products[1]})`,
        Quantity: 2,
        Price: 1,
        Amount: 2,
        Ref_Key: NEW_KEY,
      },
    ],
  }
  const response = await client.send('POST', 'Document_GoodsReceipt', body)
  t.equal(response.status, 201)
  const created = response.json()
  t.equal(created.Posted, false, 'a document is created unposted whatever the body says')
  t.equal(created.Date, '2024-03-15T10:00:00Z', 'stored in UTC')
  t.equal(created.Warehouse_Key, f.warehouses[1])
  t.equal(created.Organization_Key, '00000000-0000-0000-0000-000000000000', 'an absent reference is empty')
  t.same(
    created.Goods.map((row: Record<string, unknown>) => [
      row.Ref_Key,
      row.LineNumber,
      row.Product_Key,
      row.Quantity,
      row.Price,
      row.Amount,
    ]),
    [
      [created.Ref_Key, 1, f.products[0], 1.5, 2.25, 3.38],
      [created.Ref_Key, 2, f.products[1], 2, 1, 2],
    ],
    'the table part is in the response, renumbered, owned by the document',
  )
  t.same(
    await rows(pool, 'SELECT LineNumber, Product_Key, Quantity, Amount FROM d_GoodsReceipt__Goods WHERE Ref_Key = ? ORDER BY LineNumber', [
      created.Ref_Key,
    ]),
    [
      { LineNumber: 1, Product_Key: f.products[0], Quantity: '1.500', Amount: '3.38' },
      { LineNumber: 2, Product_Key: f.products[1], Quantity: '2.000', Amount: '2.00' },
    ],
  )
  t.equal(await count(pool, 'SELECT COUNT(*) FROM ar_Stock WHERE Recorder = ?', [created.Ref_Key]), 0, 'creating does not post')

  // PATCH without Goods keeps the rows; PATCH with Goods replaces them all.
  const patched = await client.send('PATCH', `Document_GoodsReceipt(${created.Ref_Key})`, { Comment: 'checked' })
  t.equal(patched.json().Goods.length, 2, 'an absent table part stays, and is in the response')
  const replaced = await client.send('PATCH', `Document_GoodsReceipt(${created.Ref_Key})`, {
    Goods: [{ Product_Key: f.products[2], Quantity: 5, Amount: 50 }],
  })
  t.equal(replaced.status, 200)
  t.same(await rows(pool, 'SELECT LineNumber, Product_Key FROM d_GoodsReceipt__Goods WHERE Ref_Key = ?', [created.Ref_Key]), [
    { LineNumber: 1, Product_Key: f.products[2] },
  ])
  const cleared = await client.send('PUT', `Document_GoodsReceipt(${created.Ref_Key})`, {
    Number: 'R-1',
    Date: '2024-03-16T00:00:00Z',
    Goods: [],
  })
  t.equal(cleared.status, 200)
  t.same(cleared.json().Goods, [])
  t.equal(cleared.json().Comment, '', 'PUT reset the comment')
  t.equal(await count(pool, 'SELECT COUNT(*) FROM d_GoodsReceipt__Goods WHERE Ref_Key = ?', [created.Ref_Key]), 0)
})

t.test('a bad value in a table part row refuses the whole document: nothing of it is written', async (t) => {
  const documents = await count(pool, 'SELECT COUNT(*) FROM d_GoodsSale')
  const lines = await count(pool, 'SELECT COUNT(*) FROM d_GoodsSale__Goods')
  const cases: [(body: Record<string, unknown>) => void, string][] = [
    [(b) => ((b.Goods as Record<string, unknown>[])[1]!.Quantity = 1.2345), 'Goods/1/Quantity'],
    [(b) => ((b.Goods as Record<string, unknown>[])[0]!.Amount = 1e13), 'Goods/0/Amount'],
    [(b) => ((b.Goods as Record<string, unknown>[])[1]!.Product_Key = 'nope'), 'Goods/1/Product_Key'],
    [
      (b) => ((b.Goods as Record<string, unknown>[])[0]!['Product@odata.bind'] = `Catalog_Warehouses(${f.warehouses[0]})`),
      'Goods/0/Product@odata.bind',
    ],
    [(b) => (b.Goods = { Product_Key: f.products[0] }), 'Goods'],
    [(b) => (b.Goods = [1]), 'Goods/0'],
    [(b) => (b.Number = '123456789012'), 'Number'],
    [(b) => (b.Date = 'yesterday'), 'Date'],
  ]
  for (const [spoil, target] of cases) {
    const body = documentBody(f)
    spoil(body)
    const response = await client.send('POST', 'Document_GoodsSale', body)
    t.equal(response.status, 400, target)
    t.equal(response.json().error.code, 'InvalidValue', target)
    t.equal(response.json().error.target, target)
  }
  t.equal(await count(pool, 'SELECT COUNT(*) FROM d_GoodsSale'), documents)
  t.equal(await count(pool, 'SELECT COUNT(*) FROM d_GoodsSale__Goods'), lines)
})

t.test('a failure in the middle of the write (the last table row breaks a constraint) leaves nothing behind', async (t) => {
  // The database refuses what the model allows: a CHECK on the table part stands in for any failure
  // between the document row and the last statement.
  await pool.query('ALTER TABLE d_GoodsSale__Goods ADD CONSTRAINT test_quantity_limit CHECK (Quantity < 1000)')
  t.teardown(() => pool.query('ALTER TABLE d_GoodsSale__Goods DROP CONSTRAINT test_quantity_limit'))
  const body = documentBody(f, { rows: 3 })
  ;(body.Goods as Record<string, unknown>[])[2]!.Quantity = 5000
  const ref = '7b1e2d3c-4f5a-4b6c-8d7e-9f0a1b2c3d4e'
  const response = await client.send('POST', 'Document_GoodsSale', { ...body, Ref_Key: ref })
  t.equal(response.status, 500)
  t.equal(response.json().error.code, 'InternalError')
  t.equal(await count(pool, 'SELECT COUNT(*) FROM d_GoodsSale WHERE Ref_Key = ?', [ref]), 0, 'no document')
  t.equal(await count(pool, 'SELECT COUNT(*) FROM d_GoodsSale__Goods WHERE Ref_Key = ?', [ref]), 0, 'no table rows')
})

t.test('Prefer: return=minimal answers 204 with Location and ETag', async (t) => {
  const response = await client.send('POST', 'Catalog_Products', { Code: 'MIN', Description: 'minimal' }, { Prefer: 'return=minimal' })
  t.equal(response.status, 204)
  t.equal(response.headers['preference-applied'], 'return=minimal')
  t.match(response.headers.location, /Catalog_Products\([0-9a-f-]{36}\)$/)
  t.equal(response.headers['odata-entityid'], response.headers.location)
  t.match(response.headers.etag, /^W\/".+"$/)
  t.equal(await count(pool, "SELECT COUNT(*) FROM c_Products WHERE Code = 'MIN'"), 1)
})

t.test('Cyrillic set names: the Location header is percent-encoded', async (t) => {
  const response = await client.request('POST', `/odata/standard.odata/v4/${encodeURIComponent('Catalog_Организации')}`, {
    headers: { Authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ Code: 'ORG', Description: 'ООО Ромашка' }),
  })
  t.equal(response.status, 201)
  t.match(response.headers.location, /\/Catalog_%D0%9E%D1%80%D0%B3/)
  t.equal(response.json().Description, 'ООО Ромашка')
  const read = await client.request('GET', new URL(response.headers.location!).pathname, {
    headers: { Authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}` },
  })
  t.equal(read.status, 200, 'the Location can be read back')
})
