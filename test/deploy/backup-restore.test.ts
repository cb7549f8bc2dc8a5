// A backup as docs/operations.md takes it: `mariadb-dump --single-transaction` while the loader creates and
// posts documents through the service, restored into a fresh database. The copy is one moment of the
// source: every document in it has all its table rows and movements, and every total equals the sum of its
// movements (`odata-registers verify`, the read-only totals check, exits 0 on the copy); it holds at least
// the documents committed before the dump began and at most those of the finished load; and the service
// serves it (`/ready` 200, the documents counted through OData).
import { spawn } from 'node:child_process'
import { createReadStream, createWriteStream, statSync } from 'node:fs'
import { once } from 'node:events'
import path from 'node:path'
import t from 'tap'
import type { DatabaseAddress } from '../../src/store/database-url.js'
import { count, dir, exitedCleanly, loadCatalogs, receiptsFile } from '../support/load-fixtures.js'
import { runCli } from '../support/run-cli.js'
import { createTestDatabase, databaseUrl } from '../support/test-database.js'
import { startTestService } from '../support/test-service.js'

const DOCUMENTS = 300
const LINES = 4

function connectionArguments(address: DatabaseAddress): string[] {
  return ['--host', address.host, '--port', String(address.port), '--user', address.user]
}

/** The password goes by the environment, not the command line (where `ps` would show it). */
function withPassword(address: DatabaseAddress): NodeJS.ProcessEnv {
  return address.password ? { ...process.env, MYSQL_PWD: address.password } : process.env
}

t.test('a backup taken while a load runs restores to a consistent, servable copy', async (t) => {
  const source = await startTestService('deploy_backup_source')
  t.teardown(() => source.close())
  const root = `http://127.0.0.1:${source.port}/api/v4/`
  await loadCatalogs(root)

  const load = runCli([
    'load',
    receiptsFile('backup-receipts.ndjson', DOCUMENTS, LINES),
    '--set',
    'Document_GoodsReceipt',
    '--post',
    '--url',
    root,
    '--token',
    'bench-token',
    '--concurrency',
    '2',
    '--rows-per-change-set',
    '10',
  ]).done
  // The dump starts once the load has committed documents (and, but for a very fast machine, before it ends).
  let before = 0
  while ((before = await count(source.database.pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt')) === 0)
    await new Promise((resolve) => setTimeout(resolve, 20))

  const dumpFile = path.join(dir, 'backup.sql')
  const dump = spawn(
    'mariadb-dump',
    [
      '--single-transaction',
      '--routines',
      '--events',
      '--triggers',
      '--hex-blob',
      ...connectionArguments(source.database.address),
      source.database.address.database,
    ],
    { env: withPassword(source.database.address), stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let dumpErrors = ''
  dump.stderr.on('data', (chunk: Buffer) => (dumpErrors += chunk.toString()))
  dump.stdout.pipe(createWriteStream(dumpFile))
  const [dumpStatus] = await once(dump, 'close')
  t.equal(dumpStatus, 0, `mariadb-dump exits 0 ${dumpErrors}`)
  t.ok(statSync(dumpFile).size > 0, 'the dump is written')

  const loaded = await load
  exitedCleanly(t, loaded)
  const after = await count(source.database.pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt')
  t.equal(after, DOCUMENTS, 'the load finished whole')
  t.comment(`documents: ${before} when the dump began, ${DOCUMENTS} at the end of the load`)

  const restored = await createTestDatabase('deploy_backup_restored')
  const restore = spawn('mariadb', [...connectionArguments(restored.address), restored.address.database], {
    env: withPassword(restored.address),
    stdio: ['pipe', 'ignore', 'pipe'],
  })
  let restoreErrors = ''
  restore.stderr.on('data', (chunk: Buffer) => (restoreErrors += chunk.toString()))
  createReadStream(dumpFile).pipe(restore.stdin)
  const [restoreStatus] = await once(restore, 'close')
  t.equal(restoreStatus, 0, `the restore exits 0 ${restoreErrors}`)

  const pool = restored.pool
  const documents = await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt')
  t.ok(documents >= before && documents <= DOCUMENTS, `the copy holds ${documents} documents: at least ${before}, at most ${DOCUMENTS}`)
  t.comment(`the copy: ${documents} documents`)
  const posted = await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt WHERE Posted = 1')
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt__Goods'), documents * LINES, 'every document with all its rows')
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM ar_Stock'), posted * LINES, 'every posted document with all its movements')
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM acr_Main'), posted * LINES, 'and all its accounting entries')
  t.ok((await count(pool, 'SELECT COUNT(*) AS n FROM ar_Stock__totals')) > 0, 'the copy holds totals')
  const verified = await runCli(['verify'], { DATABASE_URL: databaseUrl(restored.address), CONFIG: 'config/demo.json' }).done
  t.equal(
    verified.code,
    0,
    `verify: every total of the copy equals a recomputation from its movements\n${verified.stdout}${verified.stderr}`,
  )

  // The service serves the copy as it is.
  const served = await startTestService('deploy_backup_restored', { process: 'child', database: restored })
  t.teardown(async () => {
    await served.close()
    await restored.drop()
  })
  const ready = await fetch(`http://127.0.0.1:${served.port}/ready`)
  t.equal(ready.status, 200, `/ready: ${await ready.text()}`)
  const counted = await fetch(`http://127.0.0.1:${served.port}/api/v4/Document_GoodsReceipt/$count`, {
    headers: { authorization: 'Bearer demo-token' },
  })
  t.equal(counted.status, 200)
  t.equal(Number(await counted.text()), documents, 'the documents counted through OData')
})
