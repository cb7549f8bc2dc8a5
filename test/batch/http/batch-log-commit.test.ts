// A batch that ends with a change set writes its request-log entries inside that change set's transaction,
// so the operations and their log commit together (one commit instead of two; src/batch/run-batch.ts).
// Shown with the log table locked from another connection: the batch's INSERT into the log waits, and
// while it waits, what the change set created is not committed either. A batch that ends with an operation
// outside a change set logs after it, as before: its write is committed while the log waits.
import t, { type Test } from 'tap'
import { buildJsonBatch } from '../../../src/tools/shared/batch-body.js'
import { startTestService, TOKEN_ROOT } from '../../support/test-service.js'

const service = await startTestService('batch_log_commit')
t.teardown(() => service.close())
const pool = service.database.pool
const json = { 'Content-Type': 'application/json' }

const post = (operations: Parameters<typeof buildJsonBatch>[0]) => {
  const built = buildJsonBatch(operations)
  return service.request('POST', `${TOKEN_ROOT}$batch`, {
    headers: { Authorization: 'Bearer demo-token', 'Content-Type': built.contentType },
    body: built.body,
  })
}
const warehouse = (code: string, group?: string) => ({
  id: code,
  method: 'POST',
  url: 'Catalog_Warehouses',
  headers: json,
  body: { Code: code, Description: `log commit ${code}` },
  ...(group === undefined ? {} : { atomicityGroup: group }),
})
const committed = async (code: string) =>
  ((await pool.query('SELECT COUNT(*) AS c FROM c_Warehouses WHERE Code = ?', [code]))[0] as { c: number }[])[0]!.c > 0

/** Runs `body` while another connection holds the log table locked, once the service waits on that lock. */
async function withLogLocked(t: Test, send: () => Promise<{ status: number }>, whileWaiting: () => Promise<void>): Promise<number> {
  const locker = await pool.getConnection()
  try {
    await locker.query('LOCK TABLES request_log WRITE')
    const answer = send()
    // Bounded: the service's INSERT into the log shows in the process list as waiting for the lock. Only
    // this test's database counts: another suite's log INSERT on the same server must not end the wait.
    let waiting = false
    for (let i = 0; i < 200 && !waiting; i++) {
      const [rows] = await pool.query(
        "SELECT COUNT(*) AS c FROM information_schema.PROCESSLIST WHERE DB = DATABASE() AND INFO LIKE 'INSERT INTO `request_log`%'",
      )
      waiting = (rows as { c: number }[])[0]!.c > 0
      if (!waiting) await new Promise((resolve) => setTimeout(resolve, 50))
    }
    t.ok(waiting, 'the batch waits for the log table')
    await whileWaiting()
    await locker.query('UNLOCK TABLES')
    return (await answer).status
  } finally {
    await locker.query('UNLOCK TABLES').catch(() => undefined)
    locker.release()
  }
}

t.test('a batch that ends with a change set commits its operations together with their log entries', async (t) => {
  const status = await withLogLocked(
    t,
    () => post([warehouse('LC-1', 'g'), warehouse('LC-2', 'g')]),
    async () => {
      t.notOk(await committed('LC-1'), 'while the log waits, the change set is not committed')
      t.notOk(await committed('LC-2'))
    },
  )
  t.equal(status, 200)
  t.ok(await committed('LC-1'), 'committed once the log could be written')
  t.ok(await committed('LC-2'))
  const [rows] = await pool.query(
    "SELECT content_id, status, `Пакет` AS batch FROM request_log WHERE url LIKE '%$batch%' OR content_id LIKE 'LC-%' ORDER BY id",
  )
  const entries = rows as { content_id: string | null; status: number; batch: string }[]
  t.same(
    entries.map((e) => [e.content_id, e.status]),
    [
      [null, 200],
      ['LC-1', 201],
      ['LC-2', 201],
    ],
  )
  t.equal(new Set(entries.map((e) => e.batch)).size, 1, 'one batch id')
})

t.test('a batch that ends outside a change set logs after its writes, as a single request does', async (t) => {
  await pool.query('DELETE FROM request_log')
  const status = await withLogLocked(
    t,
    () => post([warehouse('LC-3')]),
    async () => {
      t.ok(await committed('LC-3'), 'the operation is committed while the log waits')
    },
  )
  t.equal(status, 200)
  const [rows] = await pool.query('SELECT content_id, status FROM request_log ORDER BY id')
  t.same(rows, [
    { content_id: null, status: 200 },
    { content_id: 'LC-3', status: 201 },
  ])
})

t.test('a last change set that fails is logged after its rollback, its members 424', async (t) => {
  await pool.query('DELETE FROM request_log')
  const response = await post([
    warehouse('LC-4', 'g'),
    { ...warehouse('LC-5', 'g'), body: { Code: 'X'.repeat(80), Description: 'too long' } },
  ])
  t.equal(response.status, 200)
  t.notOk(await committed('LC-4'), 'nothing of the set is committed')
  const [rows] = await pool.query('SELECT content_id, status, error_code FROM request_log ORDER BY id')
  const entries = rows as { content_id: string | null; status: number; error_code: string | null }[]
  t.same(
    entries.map((e) => [e.content_id, e.status]),
    [
      [null, 200],
      ['LC-4', 424],
      ['LC-5', 400],
    ],
  )
})
