// Batches that write: what was and was not committed, read back from the database (service.md §4.4
// rules 3, 5, 6, 8; §7 rows 424 and 500; decisions.md §7).
import t from 'tap'
import type { JsonValue } from '../../../src/batch/intake/index.js'
import { buildJsonBatch, buildMultipartBatch, type OperationSpec } from '../../../src/tools/shared/batch-body.js'
import { startTestService, TOKEN_ROOT } from '../../support/test-service.js'

const service = await startTestService('batch_writes', { data: 'demo' })
t.teardown(() => service.close())
const pool = service.database.pool
const one = async <T>(sql: string, values: unknown[] = []): Promise<T> => ((await pool.query(sql, values))[0] as T[])[0]!
const count = async (sql: string, values: unknown[] = []) => Number(Object.values(await one<Record<string, unknown>>(sql, values))[0])
const warehouse = (await one<{ Ref_Key: string }>('SELECT Ref_Key FROM c_Warehouses ORDER BY Code LIMIT 1')).Ref_Key
const product = (await one<{ Ref_Key: string }>('SELECT Ref_Key FROM c_Products ORDER BY Code LIMIT 1')).Ref_Key
const BATCH = `${TOKEN_ROOT}$batch`
const auth = { Authorization: 'Bearer demo-token' }
const json = { 'Content-Type': 'application/json' }

function postJson(operations: OperationSpec[], headers: Record<string, string> = {}) {
  const built = buildJsonBatch(operations)
  return service.request('POST', BATCH, { headers: { ...auth, 'Content-Type': built.contentType, ...headers }, body: built.body })
}
function postMultipart(operations: OperationSpec[], headers: Record<string, string> = {}) {
  const built = buildMultipartBatch(operations)
  return service.request('POST', BATCH, { headers: { ...auth, 'Content-Type': built.contentType, ...headers }, body: built.body })
}
const receipt = (number: string, extra: Record<string, string> = {}): { [name: string]: JsonValue } => ({
  Number: number,
  Date: '2025-03-01T10:00:00Z',
  Warehouse_Key: warehouse,
  Goods: [
    { Product_Key: product, Quantity: 2, Price: 5, Amount: 10 },
    { Product_Key: product, Quantity: 3, Price: 5, Amount: 15 },
  ],
  ...extra,
})
const documents = (number: string) => count('SELECT COUNT(*) FROM d_GoodsReceipt WHERE Number = ?', [number])
const movementsOf = (number: string) =>
  count('SELECT COUNT(*) FROM ar_Stock s JOIN d_GoodsReceipt d ON d.Ref_Key = s.Recorder WHERE d.Number = ?', [number])

t.test('a change set commits as a whole: create, then $1/Post', async (t) => {
  const response = await postMultipart([
    { id: '1', method: 'POST', url: 'Document_GoodsReceipt', headers: json, body: receipt('CS-OK'), atomicityGroup: 'g' },
    { id: '2', method: 'POST', url: '$1/Post', atomicityGroup: 'g' },
  ])
  t.equal(response.status, 200)
  t.match(response.text, /Content-Type: multipart\/mixed; boundary=changesetresponse_/)
  t.match(response.text, /Content-ID: 1\r\n\r\nHTTP\/1\.1 201 Created/)
  t.match(response.text, /Content-ID: 2\r\n\r\nHTTP\/1\.1 204 No Content/)
  t.equal(await documents('CS-OK'), 1)
  t.equal(await count("SELECT Posted FROM d_GoodsReceipt WHERE Number = 'CS-OK'"), 1, 'posted')
  t.equal(await movementsOf('CS-OK'), 2, 'movements written')
})

t.test('a failing operation rolls the whole change set back', async (t) => {
  const multipart = await postMultipart([
    { id: '1', method: 'POST', url: 'Document_GoodsReceipt', headers: json, body: receipt('CS-FAIL-M'), atomicityGroup: 'g' },
    { id: '2', method: 'POST', url: '$1/Post', atomicityGroup: 'g' },
    { id: '3', method: 'PATCH', url: '$1', headers: json, body: { Number: 'X'.repeat(40) }, atomicityGroup: 'g' },
  ])
  t.equal(multipart.status, 200)
  t.notMatch(multipart.text, /changesetresponse_/, 'one error response replaces the change set')
  t.match(multipart.text, /Content-ID: 3\r\n\r\nHTTP\/1\.1 400 Bad Request/)
  t.equal(await documents('CS-FAIL-M'), 0, 'the created document was rolled back')
  t.equal(
    await count(
      'SELECT COUNT(*) FROM ar_Stock WHERE Recorder NOT IN (SELECT Ref_Key FROM d_GoodsReceipt UNION ALL SELECT Ref_Key FROM d_GoodsSale)',
    ),
    0,
    'no orphan movements',
  )

  const group = await postJson(
    [
      { id: '1', method: 'POST', url: 'Document_GoodsReceipt', headers: json, body: receipt('CS-FAIL-J'), atomicityGroup: 'g' },
      { id: '2', method: 'POST', url: '$1/Post', atomicityGroup: 'g' },
      { id: '3', method: 'PATCH', url: '$1', headers: json, body: { Number: 'X'.repeat(40) }, atomicityGroup: 'g' },
      { id: '4', method: 'GET', url: `Catalog_Products(${product})`, dependsOn: ['g'] },
    ],
    { Prefer: 'continue-on-error' },
  )
  const statuses = group.json().responses.map((r: { id: string; status: number }) => [r.id, r.status])
  t.same(
    statuses,
    [
      ['1', 424],
      ['2', 424],
      ['3', 400],
      ['4', 424],
    ],
    'the failed operation has its error, the rest of its group and its dependants 424',
  )
  t.equal(group.json().responses[2].body.error.code, 'InvalidValue')
  t.equal(group.json().responses[0].body.error.code, 'FailedDependency')
  t.equal(group.json().responses[0].atomicityGroup, 'g')
  t.equal(await documents('CS-FAIL-J'), 0)
})

t.test('$<id> in @odata.bind values and at the start of URLs', async (t) => {
  const response = await postJson([
    {
      id: 'w',
      method: 'POST',
      url: 'Catalog_Warehouses',
      headers: json,
      body: { Code: 'W-NEW', Description: 'Batch store' },
      atomicityGroup: 'g',
    },
    {
      id: 'd',
      method: 'POST',
      url: 'Document_GoodsReceipt',
      headers: json,
      body: (({ Warehouse_Key, ...rest }) => ({ ...rest, 'Warehouse@odata.bind': '$w' }))(receipt('BIND-1')) as never,
      atomicityGroup: 'g',
    },
    { id: 'p', method: 'POST', url: '$d/StandardODATA.Post', atomicityGroup: 'g' },
    { id: 'r', method: 'GET', url: '$d/Goods', dependsOn: ['g'] },
  ])
  const responses = response.json().responses
  t.same(
    responses.map((r: { status: number }) => r.status),
    [201, 201, 204, 200],
  )
  const warehouseKey = responses[0].body.Ref_Key
  t.equal(responses[1].body.Warehouse_Key, warehouseKey, 'the bind took the created key')
  t.equal(responses[3].body.value.length, 2, 'a reference in a dependent read')
  t.equal(await count('SELECT COUNT(*) FROM d_GoodsReceipt WHERE Number = ? AND Warehouse_Key = ?', ['BIND-1', warehouseKey]), 1)
  t.equal(await movementsOf('BIND-1'), 2)
  const location = responses[0].headers.Location as string
  t.match(location, /Catalog_Warehouses\(/)
})

t.test('outside change sets: completed operations stay, the rest does not run', async (t) => {
  const stop = await postJson([
    { id: '1', method: 'POST', url: 'Catalog_Warehouses', headers: json, body: { Code: 'STOP-1', Description: 'kept' } },
    { id: '2', method: 'POST', url: 'Catalog_Warehouses', headers: json, body: { Code: 'X'.repeat(50), Description: 'refused' } },
    { id: '3', method: 'POST', url: 'Catalog_Warehouses', headers: json, body: { Code: 'STOP-3', Description: 'never run' } },
  ])
  t.same(
    stop.json().responses.map((r: { status: number }) => r.status),
    [201, 400],
  )
  t.equal(await count("SELECT COUNT(*) FROM c_Warehouses WHERE Code = 'STOP-1'"), 1, 'the completed operation stays')
  t.equal(await count("SELECT COUNT(*) FROM c_Warehouses WHERE Code = 'STOP-3'"), 0, 'the rest did not run')
  const go = await postJson(
    [
      { id: '1', method: 'POST', url: 'Catalog_Warehouses', headers: json, body: { Code: 'GO-1', Description: 'a' } },
      { id: '2', method: 'POST', url: 'Catalog_Warehouses', headers: json, body: { Code: 'X'.repeat(50), Description: 'refused' } },
      { id: '3', method: 'POST', url: 'Catalog_Warehouses', headers: json, body: { Code: 'GO-3', Description: 'c' } },
    ],
    { Prefer: 'odata.continue-on-error' },
  )
  t.same(
    go.json().responses.map((r: { status: number }) => r.status),
    [201, 400, 201],
  )
  t.equal(await count("SELECT COUNT(*) FROM c_Warehouses WHERE Code IN ('GO-1', 'GO-3')"), 2)
})

t.test('the request log: rolled-back operations are logged 424', async (t) => {
  await pool.query('DELETE FROM request_log')
  await postJson([
    { id: '1', method: 'POST', url: 'Catalog_Warehouses', headers: json, body: { Code: 'LOG-1', Description: 'a' }, atomicityGroup: 'g' },
    {
      id: '2',
      method: 'POST',
      url: 'Catalog_Warehouses',
      headers: json,
      body: { Code: 'X'.repeat(50), Description: 'b' },
      atomicityGroup: 'g',
    },
  ])
  const [rows] = await pool.query('SELECT content_id, status, error_code FROM request_log WHERE content_id IS NOT NULL ORDER BY content_id')
  t.same(rows, [
    { content_id: '1', status: 424, error_code: 'FailedDependency' },
    { content_id: '2', status: 400, error_code: 'InvalidValue' },
  ])
})

t.test('a log that cannot be written after the batch ran: 500 LogWriteFailed, operations committed', async (t) => {
  await pool.query('RENAME TABLE request_log TO request_log_away')
  t.teardown(() => pool.query('RENAME TABLE request_log_away TO request_log'))
  const response = await postJson([
    { id: 'a', method: 'POST', url: 'Catalog_Warehouses', headers: json, body: { Code: 'LOGFAIL', Description: 'committed' } },
  ])
  t.equal(response.status, 500)
  const error = response.json().error
  t.equal(error.code, 'LogWriteFailed')
  t.same(
    error.details.map((d: { target: string; code: string }) => [d.target, d.code]),
    [['a', '201']],
    'details list each executed operation',
  )
  t.equal(await count("SELECT COUNT(*) FROM c_Warehouses WHERE Code = 'LOGFAIL'"), 1, 'the operation is committed')
})

t.test('operations run under the batch subject and profile; respond-async is ignored; repeatable operations', async (t) => {
  const reader = await postJson(
    [{ id: '1', method: 'POST', url: 'Catalog_Warehouses', headers: json, body: { Code: 'RD-1', Description: 'x' } }],
    { Authorization: 'Bearer reader-token' },
  )
  t.equal(reader.json().responses[0].status, 403, 'the reader profile may not write, inside a batch too')
  t.equal(await count("SELECT COUNT(*) FROM c_Warehouses WHERE Code = 'RD-1'"), 0)

  const async = await postJson([{ id: '1', method: 'GET', url: `Catalog_Warehouses(${warehouse})` }], { Prefer: 'respond-async' })
  t.equal(async.status, 200, 'answered synchronously')
  t.equal(async.headers['preference-applied'], undefined)

  const repeatable = (code: string) => ({
    id: '1',
    method: 'POST',
    url: 'Catalog_Warehouses',
    headers: { ...json, 'Repeatability-Request-ID': 'batch-retry-1', 'Repeatability-First-Sent': new Date().toUTCString() },
    body: { Code: code, Description: 'once' },
  })
  const first = await postJson([repeatable('REP-1')])
  const again = await postJson([repeatable('REP-1')])
  t.equal(first.json().responses[0].status, 201)
  t.equal(again.json().responses[0].status, 201)
  t.equal(again.json().responses[0].headers['Repeatability-Result'], 'accepted', 'the kept response is replayed')
  t.equal(await count("SELECT COUNT(*) FROM c_Warehouses WHERE Code = 'REP-1'"), 1, 'written once')
})

t.test('JSON batch answers name their headers canonically', async (t) => {
  const response = await postJson([
    { id: '1', method: 'POST', url: 'Catalog_Warehouses', headers: json, body: { Code: 'CASE-1', Description: 'full' } },
    {
      id: '2',
      method: 'POST',
      url: 'Catalog_Warehouses',
      headers: { ...json, Prefer: 'return=minimal' },
      body: { Code: 'CASE-2', Description: 'minimal' },
    },
    { id: '3', method: 'GET', url: 'Catalog_Warehouses/$count' },
  ])
  const [full, minimal, counted] = response.json().responses as { status: number; headers: Record<string, string> }[]
  t.equal(full!.status, 201)
  t.match(full!.headers.Location, /Catalog_Warehouses\(/, 'Location')
  t.match(full!.headers.ETag, /^W\/"/, 'ETag')
  t.match(full!.headers['Content-Type'], /^application\/json/, 'Content-Type')
  t.equal(minimal!.status, 204)
  t.match(minimal!.headers['OData-EntityId'], /Catalog_Warehouses\(/, 'OData-EntityId')
  t.equal(minimal!.headers['Preference-Applied'], 'return=minimal', 'Preference-Applied')
  t.match(counted!.headers['Content-Type'], /^text\/plain/)
  for (const item of [full!, minimal!, counted!]) {
    for (const name of Object.keys(item.headers)) t.not(name, name.toLowerCase(), `${name} is not written in lower case`)
  }
})
