// The request log is an audit trail (decisions.md §8): no value a client controls may fail its INSERT, and
// one entry the server refuses must not take the others of its buffer with it.
import t from 'tap'
import { logContentId, logErrorCode, logMethod, logName, logUrl } from '../../src/log/log-entry-fields.js'
import { demoConfigurationWithLogLevel, DEMO_BASIC, REFERENCE_ROOT, startTestService } from '../support/test-service.js'

const configFile = demoConfigurationWithLogLevel('all')
const service = await startTestService('request_log_entries', { configFile })
t.teardown(() => service.close())
const pool = service.database.pool

async function rows(where: string): Promise<Record<string, unknown>[]> {
  return (await pool.query(`SELECT method, url, status FROM request_log WHERE ${where} ORDER BY id`))[0] as Record<string, unknown>[]
}

/** Waits (without a deadline of its own) until the background flush wrote `count` entries matching `where`. */
async function waitForEntries(where: string, count: number): Promise<Record<string, unknown>[]> {
  for (let tries = 0; tries < 100; tries++) {
    const found = await rows(where)
    if (found.length >= count) return found
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return rows(where)
}

t.test('a method longer than its column, mixed with real requests, takes no entry with it', async (t) => {
  const sent: Promise<{ status: number }>[] = []
  for (let i = 0; i < 100; i++) {
    sent.push(service.request('GET', `${REFERENCE_ROOT}Catalog_Warehouses?$top=1&n=${i}`, { headers: { authorization: DEMO_BASIC } }))
    if (i % 5 === 0) sent.push(service.request('LONGMETHODNAME', `/nowhere?n=${i}`))
  }
  const answers = await Promise.all(sent)
  t.equal(answers.filter((answer) => answer.status === 200).length, 100)
  const real = await waitForEntries("url LIKE '%Catalog_Warehouses%'", 100)
  t.equal(real.length, 100, 'every real GET is logged')
  const long = await waitForEntries("url LIKE '/nowhere%'", 20)
  t.equal(long.length, 20, 'the long-method requests are logged too')
  t.same(long[0], { method: 'LONGMETHO~', url: '/nowhere?n=0', status: 404 }, 'the method cut to its column, marked as cut')
})

t.test('each client-controlled field is bounded to its column', async (t) => {
  t.equal(logMethod('GET'), 'GET')
  t.equal(logMethod('M\u00e9THOD\n'), 'M?THOD?')
  t.equal(logMethod('X'.repeat(200)), `${'X'.repeat(9)}~`)
  t.equal(logName('s'.repeat(100)), 's'.repeat(100))
  t.equal(logName('s'.repeat(101)).length, 100)
  t.equal(logContentId('c'.repeat(500))?.length, 200)
  t.equal(logContentId(undefined), null)
  t.equal(logErrorCode('Bad\u00a0Code'), 'Bad?Code')
  t.ok(Buffer.byteLength(logUrl('\u0416'.repeat(40_000))) <= 65_535)
})

t.test('an entry the server still refuses alone is the only one lost, and counted', async (t) => {
  // A trigger stands for any refusal the server could make of one row: the rows beside it must be written.
  await pool.query(
    "CREATE TRIGGER refuse_poison BEFORE INSERT ON request_log FOR EACH ROW BEGIN IF NEW.url LIKE '%poison-entry%' THEN SIGNAL SQLSTATE '45000' SET MESSAGE_TEXT = 'refused'; END IF; END",
  )
  t.teardown(() => pool.query('DROP TRIGGER IF EXISTS refuse_poison'))
  const scrape = async () => (await service.request('GET', '/metrics')).text
  const failures = (text: string) => Number(/^odata_request_log_failures_total (\d+)/m.exec(text)?.[1] ?? 0)
  const before = failures(await scrape())
  const sent: Promise<unknown>[] = []
  for (let i = 0; i < 10; i++) {
    sent.push(service.request('GET', `${REFERENCE_ROOT}Catalog_Warehouses?$top=1&beside=${i}`, { headers: { authorization: DEMO_BASIC } }))
    if (i === 4)
      sent.push(
        service.request('GET', `${REFERENCE_ROOT}Catalog_Warehouses?$top=1&poison-entry`, { headers: { authorization: DEMO_BASIC } }),
      )
  }
  await Promise.all(sent)
  t.equal((await waitForEntries("url LIKE '%beside=%'", 10)).length, 10, 'every entry beside the refused one is written')
  t.equal((await rows("url LIKE '%poison-entry%'")).length, 0)
  let after = before
  for (let tries = 0; tries < 50 && after === before; tries++) {
    await new Promise((resolve) => setTimeout(resolve, 100))
    after = failures(await scrape())
  }
  t.equal(after - before, 1, 'one entry lost, counted once')
})
