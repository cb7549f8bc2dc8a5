// The bulk loader (`odata-registers load`, src/tools/load) run as a user runs it, against the real
// service and MariaDB: a load of valid and invalid rows of every kind (the rejects exactly those), the
// same load again (resumed from its checkpoint; without it, every keyed row found present), `429` waited
// out under a low rate rule and a profile's operation limit learnt from its refusal, and the README's
// example on the demo data. The crash tests are in load-crash.test.ts.
import { spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { startTestService } from '../support/test-service.js'
import type { LoadSummary } from '../../src/tools/load/run-load.js'
import { runCli, summaryOf } from '../support/run-cli.js'
import { totalsAndRecomputation } from '../support/totals-snapshot.js'
import {
  catalogFiles,
  count,
  dir,
  exactlyOnce,
  exitedCleanly,
  file,
  loadCatalogs,
  ndjson,
  receipt,
  receiptsFile,
  rejectsOf,
} from '../support/load-fixtures.js'

t.test('a load of valid and invalid rows: each valid row once, each invalid one in the reject file', async (t) => {
  const service = await startTestService('tools_load_mixed')
  t.teardown(() => service.close())
  const root = `http://127.0.0.1:${service.port}/api/v4/`
  const mapping = file(
    'mixed.json',
    JSON.stringify({
      files: [
        ...catalogFiles(),
        {
          path: file(
            'receipts.ndjson',
            ndjson([
              receipt('R1', 'W1', [
                ['P1', 2, 10],
                ['P2', 1, 5],
              ]),
              receipt('R2', 'W2', [['P3', 4, 1]]),
              receipt('R3', 'W9', [['P1', 1, 1]]), // no warehouse W9
              receipt('R4', 'W1', [['P2', 3, 2]]),
              receipt('R5-TOO-LONG-NUMBER', 'W1', [['P1', 1, 1]]), // Number is 11 characters at most: the service refuses it
              '{"Number": "R6", cut',
            ]),
          ),
          set: 'Document_GoodsReceipt',
          post: true,
        },
        {
          path: file(
            'sale-headers.csv',
            'number,date,warehouse,counterparty,organization\nS1,2025-03-02T09:00:00Z,W1,C1,O1\nS2,2025-03-02T10:00:00Z,W2,C1,O1\nS3,2025-03-02T11:00:00Z,W1,C1,O1\n',
          ),
          lines: file(
            'sale-lines.csv',
            'number,product,qty,price,amount\nS1,P1,1,20,20\nS1,P2,1,8,8\nS2,P3,abc,1,1\nS3,P1,1,20,20\nS9,P1,1,1,1\n',
          ),
          join: 'number',
          set: 'Document_GoodsSale',
          tablePart: 'Goods',
          columns: {
            number: 'Number',
            date: 'Date',
            warehouse: 'Warehouse',
            counterparty: 'Counterparty',
            organization: 'Organization',
            'Goods/product': 'Product',
            'Goods/qty': 'Quantity',
            'Goods/price': 'Price',
            'Goods/amount': 'Amount',
          },
          post: true,
        },
        {
          path: file('prices.csv', 'period,product,price\n2025-03-01T00:00:00Z,P1,10\n2025-03-01T00:00:00Z,P2,5\nnot-a-date,P3,1\n'),
          set: 'InformationRegister_Prices',
          columns: { period: 'Period', product: 'Product', price: 'Price' },
          constants: { PriceType: 'Retail' },
        },
      ],
    }),
  )
  const args = ['load', '--mapping', mapping, '--url', root, '--token', 'bench-token', '--concurrency', '2']
  const first = await runCli(args).done
  exitedCleanly(t, first)
  const summary = summaryOf<LoadSummary>(first.stdout)
  const progress = first.stderr
    .split('\n')
    .filter((l) => l.startsWith('{"event":"progress"'))
    .map((l) => JSON.parse(l))
  t.ok(progress.length > 0, 'progress as JSON lines when not on a terminal')
  t.match(progress.at(-1), { rows: 19, loaded: 14, rejected: 5, fraction: 1 })
  // 7 catalog items, 3 receipts, 2 sales, 2 prices loaded; R3, R5, R6, S2 and a price rejected; S9's line an orphan.
  t.match(summary, {
    loaded: 14,
    present: 0,
    rejected: 5,
    linesRejected: 1,
    resumed: 0,
    limits: { maxOperations: 100, source: 'default' },
  })
  t.match(
    summary.inputs.find((i) => i.input.startsWith('Document_GoodsSale')),
    { unit: 'documents', loaded: 2, rejected: 1, linesLoaded: 3, linesRejected: 1 },
    'documents counted as documents, their lines apart',
  )
  t.match(
    summary.inputs.find((i) => i.input.startsWith('Catalog_Products')),
    { unit: 'items', loaded: 3 },
  )
  const expected = [
    { source: 'Document_GoodsReceipt:receipts.ndjson', row: 3, status: 0, code: 'UnknownReference' },
    { source: 'Document_GoodsReceipt:receipts.ndjson', row: 5, status: 400, code: 'InvalidValue' },
    { source: 'Document_GoodsReceipt:receipts.ndjson', row: 6, status: 0, code: 'UnreadableRow' },
    { source: 'Document_GoodsSale:sale-headers.csv+sale-lines.csv', row: 2, status: 0, code: 'InvalidValue' },
    { source: 'Document_GoodsSale:sale-headers.csv+sale-lines.csv:lines', row: 5, status: 0, code: 'OrphanLine' },
    { source: 'InformationRegister_Prices:prices.csv', row: 3, status: 400, code: 'InvalidValue' },
  ]
  const sortRejects = (list: { source: string; row: number }[]) =>
    [...list].sort((a, b) => a.source.localeCompare(b.source) || a.row - b.row)
  t.same(sortRejects(rejectsOf(`${mapping}.rejects.ndjson`)), expected)
  const rejected = JSON.parse(
    readFileSync(`${mapping}.rejects.ndjson`, 'utf8')
      .split('\n')
      .find((l) => l.includes('"row":5') && l.includes('receipts'))!,
  )
  t.equal(rejected.record.Number, 'R5-TOO-LONG-NUMBER', 'the reject file has the row as read')
  const badLine = readFileSync(`${mapping}.rejects.ndjson`, 'utf8')
    .split('\n')
    .find((l) => l.includes('Document_GoodsSale') && l.includes('InvalidValue'))!
  t.match(JSON.parse(badLine).message, /Quantity.*its line 4 in the lines file/, 'a bad line names its line in the lines file')
  t.match(rejected.message, /Number/)

  const pool = service.database.pool
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt WHERE Posted = 1'), 3)
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt'), 3)
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsSale WHERE Posted = 1'), 2)
  t.equal(
    await count(
      pool,
      "SELECT COUNT(*) AS n FROM d_GoodsReceipt d JOIN c_Warehouses w ON w.Ref_Key = d.Warehouse_Key WHERE d.Number = 'R2' AND w.Code = 'W2'",
    ),
    1,
    'a reference by Code is the item with that code',
  )
  t.equal(
    await count(
      pool,
      "SELECT COUNT(*) AS n FROM d_GoodsSale__Goods g JOIN d_GoodsSale d ON d.Ref_Key = g.Ref_Key JOIN c_Products p ON p.Ref_Key = g.Product_Key WHERE d.Number = 'S1' AND p.Code IN ('P1', 'P2')",
    ),
    2,
    'the lines CSV joined to its header',
  )
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM ar_Stock'), 3 + 1 + 2 + 1, 'every table row of a loaded document posted once')
  t.equal(await count(pool, "SELECT COUNT(*) AS n FROM ir_Prices WHERE PriceType = 'Retail'"), 2)
  const snapshot = async () => ({
    documents:
      (await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt')) + (await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsSale')),
    movements: await count(pool, 'SELECT COUNT(*) AS n FROM ar_Stock'),
    items: (await count(pool, 'SELECT COUNT(*) AS n FROM c_Products')) + (await count(pool, 'SELECT COUNT(*) AS n FROM c_Warehouses')),
    prices: await count(pool, 'SELECT COUNT(*) AS n FROM ir_Prices'),
  })
  const after = await snapshot()

  // The same command again: the checkpoint has every row, nothing is sent, no rejection repeated.
  const again = await runCli(args).done
  exitedCleanly(t, again)
  t.match(
    summaryOf(again.stdout),
    { loaded: 0, present: 0, rejected: 0, linesRejected: 1, resumed: 19, batches: 0 },
    'only the orphan line is reported again: it has no row of its own',
  )
  t.equal(rejectsOf(`${mapping}.rejects.ndjson`).length, expected.length + 1)

  // Without the checkpoint (and in multipart): keyed rows are found present, register records written again.
  const fresh = await runCli([
    ...args,
    '--checkpoint',
    join(dir, 'other.checkpoint'),
    '--rejects',
    join(dir, 'other.rejects'),
    '--format',
    'multipart',
  ]).done
  exitedCleanly(t, fresh)
  t.match(summaryOf(fresh.stdout), { loaded: 2, present: 12, rejected: 5, linesRejected: 1 })
  t.same(await snapshot(), after, 'each row exactly once')
  const { kept, recomputed } = await totalsAndRecomputation(pool)
  t.same(kept, recomputed, 'the totals equal a recomputation')
})

/** Receipts R1..Rn with `lines` rows each, referring to the catalogs by Code. */
t.test('429 under a low rate rule, and a profile limit below the setting: the loader adapts and loads everything once', async (t) => {
  const configuration = JSON.parse(readFileSync('config/demo.json', 'utf8'))
  const bench = configuration.profiles.find((p: { name: string }) => p.name === 'bench')
  bench.rateRules = [{ operations: 40, per: 1 }]
  // Not in $settings (which the bench subject may not read anyway): learnt from the first refusal.
  bench.maxBatchOperations = 16
  const configFile = file('rate-limited.json', JSON.stringify(configuration))
  const service = await startTestService('tools_load_rate', { configFile })
  t.teardown(() => service.close())
  const root = `http://127.0.0.1:${service.port}/api/v4/`
  await loadCatalogs(root)
  const n = 60
  const run = await runCli([
    'load',
    receiptsFile('rate.ndjson', n, 2),
    '--set',
    'Document_GoodsReceipt',
    '--post',
    '--url',
    root,
    '--token',
    'bench-token',
    '--concurrency',
    '2',
  ]).done
  exitedCleanly(t, run)
  const summary = summaryOf<LoadSummary>(run.stdout)
  t.ok(summary.throttled > 0, `the service answered 429 (${summary.throttled} times)`)
  t.same(
    summary.limits,
    { maxOperations: 16, maxBytes: 10 * 1024 * 1024, source: '400 TooManyOperations' },
    'the limit stated by the refusal',
  )
  t.match(summary, { loaded: n, present: 0, rejected: 0 })
  await exactlyOnce(t, service.database.pool, n, 2)
})

t.test("the README's example loads on the demo data: the one bad row rejected, the rest once", async (t) => {
  const service = await startTestService('tools_load_example', { data: 'demo' })
  t.teardown(() => service.close())
  const args = [
    'load',
    '--mapping',
    'docs/examples/load/load.json',
    '--url',
    `http://127.0.0.1:${service.port}/api/v4/`,
    '--token',
    'bench-token',
    '--checkpoint',
    join(dir, 'example.checkpoint'),
    '--rejects',
    join(dir, 'example.rejects'),
  ]
  const run = await runCli(args).done
  exitedCleanly(t, run)
  t.match(summaryOf(run.stdout), { loaded: 9, present: 0, rejected: 1 })
  t.same(rejectsOf(join(dir, 'example.rejects')), [
    { source: 'Document_GoodsReceipt:receipts.ndjson', row: 3, status: 0, code: 'UnknownReference' },
  ])
  const pool = service.database.pool
  t.equal(await count(pool, "SELECT COUNT(*) AS n FROM d_GoodsReceipt WHERE Number LIKE 'IN-%' AND Posted = 1"), 2)
  t.equal(await count(pool, "SELECT COUNT(*) AS n FROM d_GoodsSale WHERE Number LIKE 'OUT-%' AND Posted = 1"), 2)
  const again = await runCli(args).done
  t.match(summaryOf(again.stdout), { loaded: 0, rejected: 0, resumed: 10, resumedRejected: 1 }, 'the earlier refusal is told apart')
})

t.test('on a terminal the summary is text naming the reject file and the checkpoint; --json keeps the JSON line', async (t) => {
  const service = await startTestService('tools_load_terminal', { data: 'demo' })
  t.teardown(() => service.close())
  const checkpoint = join(dir, 'terminal.checkpoint')
  const rejects = join(dir, 'terminal.rejects')
  const command = (extra: string) =>
    `node build/src/cli.js load --mapping docs/examples/load/load.json --url http://127.0.0.1:${service.port}/api/v4/ --token bench-token --checkpoint ${checkpoint} --rejects ${rejects} ${extra}`
  // `script` runs the command on a pseudo-terminal, as a person would.
  const onTerminal = await runCommand('script', ['-qec', command(''), '/dev/null'])
  t.equal(onTerminal.code, 0)
  t.notMatch(onTerminal.stdout, /"event":"summary"/, 'no JSON line on a terminal')
  t.match(onTerminal.stdout, /Document_GoodsReceipt:receipts\.ndjson: 2 documents loaded \(\d+ lines\), 0 already present, 1 rejected/)
  t.match(onTerminal.stdout, /Catalog_Warehouses:warehouses\.csv: \d+ items loaded/)
  t.match(onTerminal.stdout, /InformationRegister_Prices:prices\.csv: \d+ records loaded/)
  t.match(onTerminal.stdout, /rows\/s/)
  t.match(onTerminal.stdout, `rejects: ${rejects} (1)`)
  t.match(onTerminal.stdout, `checkpoint: ${checkpoint}`)
  const json = await runCommand('script', ['-qec', command('--json'), '/dev/null'])
  t.match(json.stdout, /\{"event":"summary",.*"resumed":10/, '--json: the JSON line on a terminal too')
})

function runCommand(command: string, args: string[]): Promise<{ code: number | null; stdout: string }> {
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'inherit'] })
  let stdout = ''
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
  return new Promise((resolve) => child.once('close', (code) => resolve({ code, stdout })))
}
