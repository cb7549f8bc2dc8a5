// The loader's exactly-once promise across crashes, against the real service (a process of its own) and
// MariaDB: `kill -9` of the loader mid-load and the same command again, and `kill -9` of the service
// mid-load and the service started again while the loader waits; each row exactly once afterwards, read
// back from the database, and the totals equal to a recomputation.
import { join } from 'node:path'
import t from 'tap'
import { createTestDatabase } from '../support/test-database.js'
import type { LoadSummary } from '../../src/tools/load/run-load.js'
import { runCli, summaryOf } from '../support/run-cli.js'
import { count, dir, exactlyOnce, exitedCleanly, loadCatalogs, receiptsFile, untilAcknowledged } from '../support/load-fixtures.js'
import { startTestService, TOKEN_ROOT } from '../support/test-service.js'

/** The load both crash tests run: receipts posted, 10 rows a change set, 3 in flight, with a checkpoint. */
function receiptLoad(root: string, input: string, checkpoint: string): string[] {
  const options = ['--set', 'Document_GoodsReceipt', '--post', '--url', root, '--token', 'bench-token']
  return ['load', input, ...options, '--rows-per-change-set', '10', '--concurrency', '3', '--checkpoint', checkpoint]
}

t.test('kill -9 of the loader mid-load, then the same command: each row exactly once', async (t) => {
  const database = await createTestDatabase('tools_load_kill_loader')
  const service = await startTestService('', { process: 'child', database, environment: { LOG_LEVEL: 'silent' } })
  t.teardown(async () => {
    await service.stop()
    await database.drop()
  })
  await loadCatalogs(`${service.origin}${TOKEN_ROOT}`)
  const n = 500
  const input = receiptsFile('kill-loader.ndjson', n, 3)
  const checkpoint = join(dir, 'kill-loader.checkpoint')
  const args = [...receiptLoad(`${service.origin}${TOKEN_ROOT}`, input, checkpoint), '--format', 'multipart']
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
  const database = await createTestDatabase('tools_load_kill_service')
  let service = await startTestService('', { process: 'child', database, environment: { LOG_LEVEL: 'silent' } })
  t.teardown(async () => {
    await service.stop()
    await database.drop()
  })
  await loadCatalogs(`${service.origin}${TOKEN_ROOT}`)
  const n = 500
  const input = receiptsFile('kill-service.ndjson', n, 3)
  const checkpoint = join(dir, 'kill-service.checkpoint')
  const load = runCli([...receiptLoad(`${service.origin}${TOKEN_ROOT}`, input, checkpoint), '--retry-for', '60'])
  await untilAcknowledged(checkpoint, 8, load.done)
  const port = service.port
  await service.stop()
  const partial = await count(database.pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt')
  t.ok(partial > 0 && partial < n, `killed mid-load (${partial} of ${n} documents in)`)
  await new Promise((resolve) => setTimeout(resolve, 500))
  service = await startTestService('', { process: 'child', database, environment: { LOG_LEVEL: 'silent' }, port })
  const finished = await load.done
  exitedCleanly(t, finished)
  const summary = summaryOf<LoadSummary>(finished.stdout)
  t.ok(summary.connectionFailures > 0, `the loader met the stopped service (${summary.connectionFailures} failed connections)`)
  t.equal(summary.loaded + summary.present, n, 'every row has one outcome')
  t.equal(summary.rejected, 0)
  await exactlyOnce(t, database.pool, n, 3)
})

t.test('the service stopped for good: the loader gives up with exit 2 and its summary of what was done', async (t) => {
  const database = await createTestDatabase('tools_load_gave_up')
  const service = await startTestService('', { process: 'child', database, environment: { LOG_LEVEL: 'silent' } })
  t.teardown(async () => {
    await service.stop()
    await database.drop()
  })
  await loadCatalogs(`${service.origin}${TOKEN_ROOT}`)
  const n = 500
  const input = receiptsFile('gave-up.ndjson', n, 3)
  const checkpoint = join(dir, 'gave-up.checkpoint')
  const load = runCli([...receiptLoad(`${service.origin}${TOKEN_ROOT}`, input, checkpoint), '--retry-for', '2'])
  await untilAcknowledged(checkpoint, 8, load.done)
  await service.stop()
  const finished = await load.done
  t.equal(finished.code, 2, finished.stderr)
  t.match(finished.stderr, /gave up after 2 s/)
  const summary = summaryOf<LoadSummary>(finished.stdout)
  t.match(summary.gaveUp, /gave up after 2 s/, 'the summary says why')
  t.ok(summary.loaded > 0 && summary.loaded < n, `the summary counts what was loaded (${summary.loaded} of ${n})`)
  t.ok(summary.connectionFailures > 0, 'and the failed connections')
})
