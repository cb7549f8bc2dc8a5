// What a loaded row is known by (docs/loading.md, "Identity"): never the input's name. Two files of the same
// name with different rows both load whole; stdin twice with different rows both load; the same rows again,
// without a checkpoint, are `present` — and only because they are in the database.
import { mkdirSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import type { LoadSummary } from '../../src/tools/load/run-load.js'
import { count, dir, exitedCleanly, loadCatalogs, loadFlags, ndjson, PRODUCT_FLAGS, receipt } from '../support/load-fixtures.js'
import { runCli, summaryOf } from '../support/run-cli.js'
import { startTestService } from '../support/test-service.js'

const receipts = (numbers: string[]) => ndjson(numbers.map((n) => receipt(n, 'W1', [['P1', 1, 2]])))

t.test('two different files of the same name both load whole; the first again is present', async (t) => {
  const service = await startTestService('tools_load_identity_files')
  t.teardown(() => service.close())
  const root = `http://127.0.0.1:${service.port}/api/v4/`
  await loadCatalogs(root)
  const monday = join(dir, 'identity-monday')
  const tuesday = join(dir, 'identity-tuesday')
  mkdirSync(monday, { recursive: true })
  mkdirSync(tuesday, { recursive: true })
  writeFileSync(join(monday, 'receipts.ndjson'), receipts(['M1', 'M2', 'M3']))
  writeFileSync(join(tuesday, 'receipts.ndjson'), receipts(['T1', 'T2']))
  const load = (path: string, checkpoint: string) =>
    runCli(['load', path, '--set', 'Document_GoodsReceipt', '--post', ...loadFlags(root, checkpoint)]).done
  const first = await load(join(monday, 'receipts.ndjson'), 'identity-shared')
  exitedCleanly(t, first)
  t.match(summaryOf<LoadSummary>(first.stdout), { loaded: 3, present: 0, rejected: 0 })
  // Another day's file of the same name, even with the same checkpoint file: another input.
  const second = await load(join(tuesday, 'receipts.ndjson'), 'identity-shared')
  exitedCleanly(t, second)
  t.match(summaryOf<LoadSummary>(second.stdout), { loaded: 2, present: 0, resumed: 0, rejected: 0 })
  const pool = service.database.pool
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt WHERE Posted = 1'), 5, 'both files whole')
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt__Goods'), 5)

  // Monday's rows once more, without a checkpoint: recognised by Number and Date, present because they are there.
  const again = await load(join(monday, 'receipts.ndjson'), 'identity-fresh')
  exitedCleanly(t, again)
  t.match(summaryOf<LoadSummary>(again.stdout), { loaded: 0, present: 3, rejected: 0 })
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt'), 5, 'nothing twice')

  // Monday's file changed in place (one row more): its checkpoint no longer covers it; the old rows are present.
  writeFileSync(join(monday, 'receipts.ndjson'), receipts(['M1', 'M2', 'M3', 'M4']))
  const grown = await load(join(monday, 'receipts.ndjson'), 'identity-shared')
  exitedCleanly(t, grown)
  t.match(summaryOf<LoadSummary>(grown.stdout), { loaded: 1, present: 3, resumed: 0 })
  t.equal(await count(pool, "SELECT COUNT(*) AS n FROM d_GoodsReceipt WHERE Number = 'M4' AND Posted = 1"), 1)
})

t.test('stdin twice with different rows loads both; the same rows a third time are present', async (t) => {
  const service = await startTestService('tools_load_identity_stdin')
  t.teardown(() => service.close())
  const root = `http://127.0.0.1:${service.port}/api/v4/`
  await loadCatalogs(root)
  const load = (text: string) =>
    runCli(['load', '-', '--input-format', 'ndjson', '--set', 'Document_GoodsReceipt', ...loadFlags(root, 'identity-stdin')], {}, text).done
  const a = await load(receipts(['A1', 'A2']))
  exitedCleanly(t, a)
  t.match(summaryOf<LoadSummary>(a.stdout), { loaded: 2, present: 0 })
  const b = await load(receipts(['B1', 'B2']))
  exitedCleanly(t, b)
  t.match(summaryOf<LoadSummary>(b.stdout), { loaded: 2, present: 0, resumed: 0 }, 'rows 1 and 2 of another stdin are other rows')
  const pool = service.database.pool
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt'), 4)
  const c = await load(receipts(['B1', 'B2']))
  exitedCleanly(t, c)
  t.match(summaryOf<LoadSummary>(c.stdout), { loaded: 0, present: 2, resumed: 0 })
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt'), 4)
})

t.test('--key names the columns that identify an object; a row without them is a reject', async (t) => {
  const service = await startTestService('tools_load_identity_key')
  t.teardown(() => service.close())
  const root = `http://127.0.0.1:${service.port}/api/v4/`
  const path = join(dir, 'identity-key.csv')
  writeFileSync(path, 'code,name,article\nK1,Bolt,A-1\nK2,Nut,\nK3,Washer,A-1\n')
  const load = (checkpoint: string) => runCli(['load', path, ...PRODUCT_FLAGS, '--key', 'article', ...loadFlags(root, checkpoint)]).done
  const run = await load('identity-key')
  exitedCleanly(t, run)
  // K3 has K1's article: the same object by --key, and K1 is in the database.
  t.match(summaryOf<LoadSummary>(run.stdout), { loaded: 1, present: 1, rejected: 1 })
  const pool = service.database.pool
  t.equal(await count(pool, "SELECT COUNT(*) AS n FROM c_Products WHERE Article = 'A-1'"), 1)
})

t.test('a file changed past its first megabyte, with the same size and modification time, is not resumed', async (t) => {
  const service = await startTestService('tools_load_identity_changed')
  t.teardown(() => service.close())
  const root = `http://127.0.0.1:${service.port}/api/v4/`
  const path = join(dir, 'identity-changed.csv')
  // Blank lines (skipped) put the rows past the first megabyte.
  const content = (last: string) => `code,name,article\n${'\n'.repeat(1_100_000)}H1,Bolt,A-1\nH2,Nut,A-2\n${last},Washer,A-3\n`
  writeFileSync(path, content('H3'))
  const load = () => runCli(['load', path, ...PRODUCT_FLAGS, ...loadFlags(root, 'identity-changed')]).done
  const first = await load()
  exitedCleanly(t, first)
  t.match(summaryOf<LoadSummary>(first.stdout), { loaded: 3 })
  const { atime, mtime } = statSync(path)
  writeFileSync(path, content('H4'))
  utimesSync(path, atime, mtime)
  const second = await load()
  exitedCleanly(t, second)
  t.match(summaryOf<LoadSummary>(second.stdout), { loaded: 1, present: 2, resumed: 0 }, 'nothing skipped: the changed row loads')
  const pool = service.database.pool
  t.equal(await count(pool, "SELECT COUNT(*) AS n FROM c_Products WHERE Code = 'H4'"), 1)
  // The same bytes again: resumed, nothing sent.
  const third = await load()
  exitedCleanly(t, third)
  t.match(summaryOf<LoadSummary>(third.stdout), { loaded: 0, present: 0, resumed: 3 })
})
