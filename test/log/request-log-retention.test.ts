// The request log's retention (docs/request-log.md): entries older than REQUEST_LOG_KEEP_DAYS, or all but
// the newest REQUEST_LOG_KEEP_ROWS, are removed in chunks of bounded size; one process prunes at a time;
// `cli prune-log` runs the same once.
import t from 'tap'
import { pruneRequestLog } from '../../src/log/request-log-retention.js'
import { loadModel } from '../../src/model/load-model.js'
import { migrate } from '../../src/store/migrate.js'
import { createTestDatabase, databaseUrl } from '../support/test-database.js'
import { runCli } from '../support/run-cli.js'

const database = await createTestDatabase('request_log_retention')
t.teardown(() => database.drop())
await migrate(database.pool, loadModel('config/demo.json'))
const pool = database.pool

/** `old` entries of 40 days ago, then `recent` of now, in id order as the log writes them. */
async function fill(old: number, recent: number): Promise<void> {
  await pool.query('DELETE FROM request_log')
  const now = Date.now()
  const rows = [
    ...Array.from({ length: old }, (_, i) => [new Date(now - 40 * 86_400_000 + i * 1000), 'GET', `/old/${i}`, 200]),
    ...Array.from({ length: recent }, (_, i) => [new Date(now - 1000 + i), 'GET', `/recent/${i}`, 200]),
  ]
  await pool.query('INSERT INTO request_log (at, method, url, status) VALUES ?', [rows])
}

const urls = async () => ((await pool.query('SELECT url FROM request_log ORDER BY id'))[0] as { url: string }[]).map((row) => row.url)

t.test('by days: older entries go, in chunks', async (t) => {
  await fill(60, 40)
  const result = await pruneRequestLog(pool, { keepDays: 30 }, 7)
  t.same(result, { removed: 60, chunks: 9 }, 'nine statements of at most seven rows')
  const left = await urls()
  t.equal(left.length, 40)
  t.ok(left.every((url) => url.startsWith('/recent/')))
})

t.test('by rows: the newest are kept', async (t) => {
  await fill(30, 20)
  const result = await pruneRequestLog(pool, { keepRows: 10 }, 1000)
  t.same(result, { removed: 40, chunks: 1 })
  t.same(
    await urls(),
    Array.from({ length: 10 }, (_, i) => `/recent/${10 + i}`),
  )
})

t.test('both: whichever removes more', async (t) => {
  await fill(30, 20)
  t.same(await pruneRequestLog(pool, { keepDays: 30, keepRows: 25 }), { removed: 30, chunks: 1 })
  t.same(await pruneRequestLog(pool, { keepDays: 30, keepRows: 5 }), { removed: 15, chunks: 1 })
})

t.test('nothing to remove: no statement', async (t) => {
  await fill(0, 5)
  t.same(await pruneRequestLog(pool, { keepDays: 30, keepRows: 5 }), { removed: 0, chunks: 0 })
})

t.test('by days, through the ids: gaps left by earlier removals, every bound between two entries', async (t) => {
  for (const old of [0, 1, 2, 17, 33]) {
    await fill(old, 34 - old)
    // Remove every third entry, so the ids the search lands on are often gone.
    await pool.query('DELETE FROM request_log WHERE MOD(id, 3) = 0')
    const [[{ expected }]] = (await pool.query("SELECT COUNT(*) AS expected FROM request_log WHERE url LIKE '/old/%'")) as unknown as [
      [{ expected: number }],
    ]
    const result = await pruneRequestLog(pool, { keepDays: 30 })
    t.equal(result?.removed, Number(expected), `${old} old entries, a third of them gone before`)
    t.ok(
      (await urls()).every((url) => url.startsWith('/recent/')),
      'only recent entries are left',
    )
  }
})

t.test('one process at a time: another holding the pruning skips this round', async (t) => {
  await fill(10, 0)
  const other = await pool.getConnection()
  t.teardown(() => other.release())
  await other.query("SELECT GET_LOCK('odata_request_log_retention', 0)")
  t.equal(await pruneRequestLog(pool, { keepRows: 0 }), undefined)
  t.equal((await urls()).length, 10, 'nothing removed')
  await other.query("SELECT RELEASE_LOCK('odata_request_log_retention')")
  t.same(await pruneRequestLog(pool, { keepRows: 0 }), { removed: 10, chunks: 1 })
})

t.test('cli prune-log', async (t) => {
  await fill(8, 4)
  const url = databaseUrl(database.address)
  const refused = await runCli(['prune-log'], { DATABASE_URL: url, REQUEST_LOG_KEEP_DAYS: '', REQUEST_LOG_KEEP_ROWS: '' }).done
  t.not(refused.code, 0, 'without a rule it says what to set')
  t.match(refused.output, /REQUEST_LOG_KEEP_DAYS or REQUEST_LOG_KEEP_ROWS/)
  const pruned = await runCli(['prune-log'], { DATABASE_URL: url, REQUEST_LOG_KEEP_DAYS: '30' }).done
  t.equal(pruned.code, 0, pruned.output)
  t.match(pruned.output, /removed 8 request-log entries/)
  t.equal((await urls()).length, 4)
})
