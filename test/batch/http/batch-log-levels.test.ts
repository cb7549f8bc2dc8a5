// service.md §4.4 rule 8 and decisions.md §8: at the `writes` level a batch of reads only is not logged;
// a batch that writes is, with its operations under the same batch id.
import t from 'tap'
import { buildJsonBatch } from '../../../src/tools/shared/batch-body.js'
import { demoConfigurationWithLogLevel, startTestService, TOKEN_ROOT } from '../../support/test-service.js'

const configFile = demoConfigurationWithLogLevel('writes')
const service = await startTestService('batch_log_levels', { configFile })
t.teardown(() => service.close())
const pool = service.database.pool
const post = (operations: Parameters<typeof buildJsonBatch>[0]) => {
  const built = buildJsonBatch(operations)
  return service.request('POST', `${TOKEN_ROOT}$batch`, {
    headers: { Authorization: 'Bearer demo-token', 'Content-Type': built.contentType },
    body: built.body,
  })
}
const logged = async () => Number(((await pool.query('SELECT COUNT(*) AS c FROM request_log'))[0] as { c: number }[])[0]!.c)

t.test('a batch of reads only is not logged at the writes level', async (t) => {
  t.equal((await post([{ id: 'a', method: 'GET', url: 'Catalog_Warehouses' }])).status, 200)
  t.equal(await logged(), 0)
})

t.test('a batch that writes is logged, reads inside it are not', async (t) => {
  await post([
    {
      id: 'w',
      method: 'POST',
      url: 'Catalog_Warehouses',
      headers: { 'Content-Type': 'application/json' },
      body: { Code: 'LV-1', Description: 'x' },
    },
    { id: 'r', method: 'GET', url: 'Catalog_Warehouses' },
  ])
  const [rows] = await pool.query('SELECT method, content_id, operations FROM request_log ORDER BY id')
  t.same(rows, [
    { method: 'POST', content_id: null, operations: 2 },
    { method: 'POST', content_id: 'w', operations: null },
  ])
})
