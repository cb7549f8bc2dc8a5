// Consecutive creates and their Posts in one change set are written with multi-row INSERTs; every
// observable result must be what one-by-one execution gives, and anything unusual falls back to it.
import t from 'tap'
import type { JsonValue } from '../../../src/batch/intake/index.js'
import { buildJsonBatch, buildMultipartBatch, type OperationSpec } from '../../../src/tools/shared/batch-body.js'
import { checkTotals } from '../../../src/store/totals-check.js'
import { recomputeTotals } from '../../../src/store/totals-rebuild.js'
import { startTestService, TOKEN_ROOT } from '../../support/test-service.js'

const service = await startTestService('batch_coalesced', { data: 'demo' })
t.teardown(() => service.close())
const pool = service.database.pool
const rows = async <T>(sql: string, values: unknown[] = []) => (await pool.query(sql, values))[0] as T[]
const count = async (sql: string, values: unknown[] = []) =>
  Number(Object.values((await rows<Record<string, unknown>>(sql, values))[0]!)[0])
const [warehouse] = await rows<{ Ref_Key: string }>('SELECT Ref_Key FROM c_Warehouses ORDER BY Code LIMIT 1')
const products = (await rows<{ Ref_Key: string }>('SELECT Ref_Key FROM c_Products ORDER BY Code LIMIT 5')).map((r) => r.Ref_Key)
const [counterparty] = await rows<{ Ref_Key: string }>('SELECT Ref_Key FROM c_Counterparties ORDER BY Code LIMIT 1')
const json = { 'Content-Type': 'application/json' }
const auth = { Authorization: 'Bearer demo-token' }

function sale(number: string, extra: Record<string, JsonValue> = {}): { [name: string]: JsonValue } {
  return {
    Number: number,
    Date: '2025-04-02T09:00:00Z',
    Warehouse_Key: warehouse!.Ref_Key,
    Counterparty_Key: counterparty!.Ref_Key,
    Goods: products.map((p, i) => ({ Product_Key: p, Quantity: i + 1, Price: 2, Amount: 2 * (i + 1) })),
    ...extra,
  }
}
function createsAndPosts(prefix: string, n: number, extra: (i: number) => Record<string, JsonValue> = () => ({})): OperationSpec[] {
  const operations: OperationSpec[] = []
  for (let i = 1; i <= n; i++)
    operations.push({
      id: `${prefix}${i}`,
      method: 'POST',
      url: 'Document_GoodsSale',
      headers: json,
      body: sale(`${prefix}-${i}`, extra(i)),
      atomicityGroup: 'g',
    })
  for (let i = 1; i <= n; i++) operations.push({ id: `${prefix}p${i}`, method: 'POST', url: `$${prefix}${i}/Post`, atomicityGroup: 'g' })
  return operations
}
async function post(operations: OperationSpec[], format: 'json' | 'multipart' = 'json') {
  const built = format === 'json' ? buildJsonBatch(operations) : buildMultipartBatch(operations)
  return service.request('POST', `${TOKEN_ROOT}$batch`, { headers: { ...auth, 'Content-Type': built.contentType }, body: built.body })
}

t.test('the results are those of one-by-one execution', async (t) => {
  const together = await post(createsAndPosts('T', 6))
  const responses = together.json().responses as {
    id: string
    status: number
    headers: Record<string, string>
    body?: Record<string, unknown>
  }[]
  t.same(
    responses.map((r) => r.status),
    [201, 201, 201, 201, 201, 201, 204, 204, 204, 204, 204, 204],
  )
  for (const [i, response] of responses.slice(0, 6).entries()) {
    const key = response.body!.Ref_Key as string
    t.equal(response.headers.Location, `http://127.0.0.1:${service.port}/api/v4/Document_GoodsSale(${key})`, 'Location of each create')
    t.equal(response.body!.Number, `T-${i + 1}`)
    t.equal(response.body!.Posted, false, 'created unposted')
    t.equal((response.body!.Goods as unknown[]).length, 5, 'the table part in the 201 body')
    const [stored] = await rows<{ DataVersion: string; Posted: number }>('SELECT DataVersion, Posted FROM d_GoodsSale WHERE Ref_Key = ?', [
      key,
    ])
    t.equal(stored!.Posted, 1)
    t.equal(responses[6 + i]!.headers.ETag, `W/"${stored!.DataVersion}"`, "each Post's ETag is the document's new DataVersion")
    t.equal(await count('SELECT COUNT(*) FROM ar_Stock WHERE Recorder = ?', [key]), 5, 'stock movements')
    t.equal(await count('SELECT COUNT(*) FROM ar_Sales WHERE Recorder = ?', [key]), 5, 'sales movements')
    t.equal(await count('SELECT COUNT(*) FROM acr_Main WHERE Recorder = ?', [key]), 5, 'accounting movements')
    t.same(
      (await rows<{ LineNumber: number }>('SELECT LineNumber FROM ar_Stock WHERE Recorder = ? ORDER BY LineNumber', [key])).map(
        (r) => r.LineNumber,
      ),
      [1, 2, 3, 4, 5],
      'line numbers per recorder',
    )
  }

  // One by one (separate change sets) for comparison: the same movements.
  const oneByOne: OperationSpec[] = []
  for (let i = 1; i <= 2; i++) {
    oneByOne.push({ id: `S${i}`, method: 'POST', url: 'Document_GoodsSale', headers: json, body: sale(`S-${i}`), atomicityGroup: `g${i}` })
    oneByOne.push({ id: `Sp${i}`, method: 'POST', url: `$S${i}/Post`, headers: { Prefer: 'odata.track-changes' }, atomicityGroup: `g${i}` })
  }
  t.equal((await post(oneByOne)).status, 200)
  const shape = async (number: string) =>
    rows(
      'SELECT s.LineNumber, s.RecordType, s.Product_Key, s.Quantity, s.Amount, s.Period FROM ar_Stock s JOIN d_GoodsSale d ON d.Ref_Key = s.Recorder WHERE d.Number = ? ORDER BY s.LineNumber',
      [number],
    )
  t.same(await shape('T-1'), await shape('S-1'), 'the same movements as one by one')

  // Totals kept incrementally equal a recomputation.
  const totals = () => rows('SELECT * FROM ar_Stock__totals WHERE Quantity <> 0 OR Amount <> 0 ORDER BY Period, Warehouse_Key, Product_Key')
  const accountingTotals = () =>
    rows(
      'SELECT * FROM acr_Main__totals WHERE AmountDr <> 0 OR AmountCr <> 0 OR QuantityDr <> 0 OR QuantityCr <> 0 ORDER BY 1, 2, 3, 4, 5, 6, 7, 8, 9',
    )
  const kept = [await totals(), await accountingTotals()]
  await recomputeTotals(pool, service.model)
  t.same([await totals(), await accountingTotals()], kept, 'totals agree with a recomputation')
})

t.test('an existing key falls back to one by one and fails at its operation', async (t) => {
  const [existing] = await rows<{ Ref_Key: string }>("SELECT Ref_Key FROM d_GoodsSale WHERE Number = 'T-1'")
  const operations = createsAndPosts('D', 3, (i): Record<string, JsonValue> => (i === 2 ? { Ref_Key: existing!.Ref_Key } : {}))
  const multipart = await post(operations, 'multipart')
  t.match(multipart.text, /Content-ID: D2\r\n\r\nHTTP\/1\.1 409 Conflict/, 'the duplicate is reported at its own operation')
  t.equal(await count("SELECT COUNT(*) FROM d_GoodsSale WHERE Number LIKE 'D-%'"), 0, 'nothing of the set was kept')
})

t.test('a document marked for deletion is refused at its Post', async (t) => {
  const operations = createsAndPosts('M', 2, (i): Record<string, JsonValue> => (i === 2 ? { DeletionMark: true } : {}))
  const response = await post(operations)
  const statuses = response
    .json()
    .responses.map((r: { id: string; status: number; body?: { error?: { code: string } } }) => [r.id, r.status, r.body?.error?.code])
  t.same(
    statuses.find((s: unknown[]) => s[0] === 'Mp2'),
    ['Mp2', 400, 'DeletionMarked'],
  )
  t.equal(await count("SELECT COUNT(*) FROM d_GoodsSale WHERE Number LIKE 'M-%'"), 0)
})

// A run's totals are written last (store/deferred-statements.ts): before the next operation of the set, which
// may move the same recorder's movements again, they must be in place, or it would read the totals and
// movements around them.
t.test('a document posted in a run, then posted again and unposted in the same change set: totals stay exact', async (t) => {
  const operations = createsAndPosts('R', 3)
  operations.push({ id: 'Rrepost', method: 'POST', url: '$R1/Post', headers: { Prefer: 'return=minimal' }, atomicityGroup: 'g' })
  operations.push({ id: 'Runpost', method: 'POST', url: '$R2/Unpost', atomicityGroup: 'g' })
  const response = await post(operations)
  t.same(
    response.json().responses.map((r: { status: number }) => r.status),
    [201, 201, 201, 204, 204, 204, 204, 204],
  )
  t.equal(await count("SELECT COUNT(*) FROM ar_Stock s JOIN d_GoodsSale d ON d.Ref_Key = s.Recorder WHERE d.Number = 'R-1'"), 5)
  t.equal(await count("SELECT COUNT(*) FROM ar_Stock s JOIN d_GoodsSale d ON d.Ref_Key = s.Recorder WHERE d.Number = 'R-2'"), 0)
  const check = await checkTotals(pool, service.model)
  t.same(check.differences, [], 'the totals kept equal a recomputation from the movements')
})
