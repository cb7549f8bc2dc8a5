// The loader's exactly-once promise across crashes, against the real service (a process of its own) and
// MariaDB: `kill -9` of the loader mid-load and the same command again, and `kill -9` of the service
// mid-load and the service started again while the loader waits; each row exactly once afterwards, read
// back from the database, and the totals equal to a recomputation.
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { createTestDatabase } from '../support/test-database.js'
import type { LoadSummary } from '../../src/tools/load/run-load.js'
import { runCli, summaryOf } from '../support/run-cli.js'
import { count, dir, exactlyOnce, exitedCleanly, loadCatalogs, receiptsFile, untilAcknowledged } from '../support/load-fixtures.js'
import { startTestService, TOKEN_ROOT } from '../support/test-service.js'

/** Receipts per test: enough that a crash lands mid-load. */
const n = 500

/**
 * What every test here starts from: a database of its own, the service as a child process over it (so it can
 * be stopped like a crashed one) with the catalogs loaded, and the file of `n` receipts. The teardown stops
 * whichever service `current` holds then (a test may start another on the same port).
 */
async function crashFixture(t: Test, name: string) {
  const database = await createTestDatabase(`tools_load_${name.replaceAll('-', '_')}`)
  const current = { service: await startTestService('', { process: 'child', database, environment: { LOG_LEVEL: 'silent' } }) }
  t.teardown(async () => {
    await current.service.stop()
    await database.drop()
  })
  const root = `${current.service.origin}${TOKEN_ROOT}`
  await loadCatalogs(root)
  const input = receiptsFile(`${name}.ndjson`, n, 3)
  const checkpoint = join(dir, `${name}.checkpoint`)
  /** The load every test runs: receipts posted, 10 rows a change set, 3 in flight, with a checkpoint. */
  const loadArgs = (...more: string[]) => [
    'load',
    input,
    ...['--set', 'Document_GoodsReceipt', '--post', '--url', root, '--token', 'bench-token'],
    ...['--rows-per-change-set', '10', '--concurrency', '3', '--checkpoint', checkpoint, ...more],
  ]
  return { database, current, checkpoint, loadArgs }
}

t.test('kill -9 of the loader mid-load, then the same command: each row exactly once', async (t) => {
  const { database, checkpoint, loadArgs } = await crashFixture(t, 'kill-loader')
  const args = loadArgs('--format', 'multipart')
  const first = runCli(args)
  await untilAcknowledged(checkpoint, 8, first.done)
  first.child.kill('SIGKILL')
  const killed = await first.done
  t.equal(killed.signal, 'SIGKILL')
  const partial = await count(database.pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt')
  t.ok(partial > 0 && partial < n, `killed mid-load (${partial} of ${n} documents in)`)

  const second = await runCli(args).done
  exitedCleanly(t, second)
  const summary = summaryOf<LoadSummary>(second.stdout)
  t.ok(summary.resumed >= 80, `resumed past the acknowledged rows (${summary.resumed})`)
  t.equal(summary.resumed + summary.loaded + summary.present, n, 'every row has one outcome')
  t.equal(summary.rejected, 0)
  await exactlyOnce(t, database.pool, n, 3)
})

t.test('kill -9 of the service mid-load, started again: the loader waits, resumes, each row exactly once', async (t) => {
  const { database, current, checkpoint, loadArgs } = await crashFixture(t, 'kill-service')
  const load = runCli(loadArgs('--retry-for', '60'))
  await untilAcknowledged(checkpoint, 8, load.done)
  const port = current.service.port
  await current.service.stop()
  const partial = await count(database.pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt')
  t.ok(partial > 0 && partial < n, `killed mid-load (${partial} of ${n} documents in)`)
  await new Promise((resolve) => setTimeout(resolve, 500))
  current.service = await startTestService('', { process: 'child', database, environment: { LOG_LEVEL: 'silent' }, port })
  const finished = await load.done
  exitedCleanly(t, finished)
  const summary = summaryOf<LoadSummary>(finished.stdout)
  t.ok(summary.connectionFailures > 0, `the loader met the stopped service (${summary.connectionFailures} failed connections)`)
  t.equal(summary.loaded + summary.present, n, 'every row has one outcome')
  t.equal(summary.rejected, 0)
  await exactlyOnce(t, database.pool, n, 3)
})

t.test('the service stopped for good: the loader gives up with exit 2 and its summary of what was done', async (t) => {
  const { current, checkpoint, loadArgs } = await crashFixture(t, 'gave-up')
  const load = runCli(loadArgs('--retry-for', '2'))
  await untilAcknowledged(checkpoint, 8, load.done)
  await current.service.stop()
  const finished = await load.done
  t.equal(finished.code, 2, finished.stderr)
  t.match(finished.stderr, /gave up after 2 s/)
  const summary = summaryOf<LoadSummary>(finished.stdout)
  t.match(summary.gaveUp, /gave up after 2 s/, 'the summary says why')
  t.ok(summary.loaded > 0 && summary.loaded < n, `the summary counts what was loaded (${summary.loaded} of ${n})`)
  t.ok(summary.connectionFailures > 0, 'and the failed connections')
})
