// The exporter (`odata-registers export`, src/tools/export) run as a user runs it, against the real
// service: a round trip (export with the loader's mapping file, load the files into another database with
// the same file, compare every set), a resumed export (stopped half-way: the output cut back to its last
// page and finished, each row once), `--changes` (each run only what changed since the last, removed rows
// marked), `--follow`, and the command line's refusals.
import { existsSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { runCli, summaryOf } from '../support/run-cli.js'
import { dir, file } from '../support/load-fixtures.js'
import { rawRequest, startTestService, type TestService } from '../support/test-service.js'

const source = await startTestService('tools_export_source', { data: 'demo' })
t.teardown(() => source.close())
const rootOf = (service: TestService) => `http://127.0.0.1:${service.port}/api/v4/`
const credentials = ['--token', 'demo-token']

/** Every row of a read, following next links, keyed and without annotations. */
async function readAll(service: TestService, path: string, key: (row: Record<string, unknown>) => string): Promise<Map<string, unknown>> {
  const rows = new Map<string, unknown>()
  let next: string | undefined = `/api/v4/${path}`
  while (next) {
    const answer = await rawRequest(service.port, 'GET', next, { headers: { Authorization: 'Bearer demo-token' } })
    if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${answer.text}`)
    const body = answer.json()
    for (const row of body.value) {
      const { DataVersion: _version, ...rest } = row
      rows.set(key(row), Object.fromEntries(Object.entries(rest).filter(([name]) => !name.startsWith('@'))))
    }
    next = body['@odata.nextLink'] ? new URL(body['@odata.nextLink']).pathname + new URL(body['@odata.nextLink']).search : undefined
  }
  return rows
}

const byRef = (row: Record<string, unknown>) => String(row.Ref_Key)
const lines = (path: string) =>
  readFileSync(path, 'utf8')
    .split(/\r?\n/)
    .filter((line) => line !== '')

t.test('round trip: export with the loader mapping file, load it elsewhere with the same file, the same rows', async (t) => {
  const target = await startTestService('tools_export_target')
  t.teardown(() => target.close())
  const mapping = file(
    'round-trip.json',
    JSON.stringify({
      files: [
        { path: 'round-trip-warehouses.csv', set: 'Catalog_Warehouses', columns: { code: 'Code', name: 'Description' } },
        { path: 'round-trip-counterparties.ndjson', set: 'Catalog_Counterparties' },
        { path: 'round-trip-organizations.ndjson', set: 'Catalog_Организации' },
        { path: 'round-trip-products.csv', set: 'Catalog_Products' },
        {
          path: 'round-trip-receipts.ndjson',
          set: 'Document_GoodsReceipt',
          columns: { 'Goods/qty': 'Quantity' },
          filter: 'Date lt 2024-04-01T00:00:00Z',
        },
        { path: 'round-trip-prices.csv', set: 'InformationRegister_Prices', filter: 'Period lt 2024-02-01T00:00:00Z' },
      ],
    }),
  )
  const exported = await runCli(['export', '--mapping', mapping, '--url', rootOf(source), ...credentials, '--page-size', '50']).done
  t.equal(exported.code, 0, exported.stderr)
  t.match(lines(join(dir, 'round-trip-warehouses.csv'))[0], /^Ref_Key,.*code,name/, 'the CSV header names the mapped columns')
  t.match(lines(join(dir, 'round-trip-receipts.ndjson'))[0], /"qty":/, 'table part rows renamed too')
  t.notOk(existsSync(join(dir, 'round-trip-products.csv.checkpoint')), 'a finished export leaves no checkpoint')

  const loaded = await runCli(['load', '--mapping', mapping, '--url', rootOf(target), ...credentials]).done
  t.equal(loaded.code, 0, loaded.stderr)
  t.equal(summaryOf<{ rejected: number }>(loaded.stdout).rejected, 0, 'nothing rejected')
  const receiptFields = '$select=Ref_Key,Number,Date,Warehouse_Key,Counterparty_Key,Organization_Key,Comment,Goods'
  const priceKey = (row: Record<string, unknown>) => `${row.Period}|${row.Product_Key}|${row.PriceType}`
  // What was exported (read from the source with the mapping's filters) is what the other database holds, all of it.
  for (const [exported, held, key] of [
    ['Catalog_Warehouses', 'Catalog_Warehouses', byRef],
    ['Catalog_Counterparties', 'Catalog_Counterparties', byRef],
    ['Catalog_Организации', 'Catalog_Организации', byRef],
    ['Catalog_Products', 'Catalog_Products', byRef],
    [`Document_GoodsReceipt?$filter=Date lt 2024-04-01T00:00:00Z&${receiptFields}`, `Document_GoodsReceipt?${receiptFields}`, byRef],
    ['InformationRegister_Prices?$filter=Period lt 2024-02-01T00:00:00Z', 'InformationRegister_Prices', priceKey],
  ] as const) {
    const expected = await readAll(source, encodeURI(exported), key)
    t.ok(expected.size > 0, `${exported}: rows to compare`)
    t.same(await readAll(target, encodeURI(held), key), expected, `${held}: the same ${expected.size} rows in the other database`)
  }
})

// CSV too: its rows are written by the columns of its header, which a resumed run finds already in the file.
for (const format of ['ndjson', 'csv'] as const)
  t.test(`an export stopped half-way resumes from its checkpoint: each row once (${format})`, async (t) => {
    const output = join(dir, `resumed-stock.${format}`)
    const args = ['export', '--set', 'AccumulationRegister_Stock_RecordType', '--output', output, '--url', rootOf(source), ...credentials]
    const whole = await runCli([...args, '--page-size', '500']).done
    t.equal(whole.code, 0, whole.stderr)
    const expected = lines(output)
    t.ok(expected.length > 1000)
    t.match(expected.at(-1), format === 'csv' ? /^[0-9a-f-]{36},/ : /^\{"Recorder":"[0-9a-f-]{36}"/, 'the last row has its values')
    // A run killed once it has checkpointed a page, and a half-written page behind it.
    const run = runCli([...args, '--page-size', '100'])
    let ended = false
    void run.done.then(() => (ended = true))
    await new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        const state = existsSync(`${output}.checkpoint`) ? JSON.parse(readFileSync(`${output}.checkpoint`, 'utf8')) : undefined
        if (state?.rows >= 100 || ended) {
          clearInterval(timer)
          run.child.kill('SIGKILL')
          resolve()
        }
      }, 2)
    })
    await run.done
    t.notOk(ended && !existsSync(`${output}.checkpoint`), 'stopped before the end')
    writeFileSync(output, format === 'csv' ? '"cut,' : '{"cut": ', { flag: 'a' })
    const resumed = await runCli([...args, '--page-size', '100']).done
    t.equal(resumed.code, 0, resumed.stderr)
    t.equal(summaryOf<{ resumed: boolean }>(resumed.stdout).resumed, true)
    t.same(lines(output), expected, 'the same rows, in order, none twice, the cut line gone')
  })

t.test('an export to stdout stopped half-way is written again from its start: a stream cannot be cut back', async (t) => {
  const checkpoint = join(dir, 'stdout-stock.checkpoint')
  const args = ['export', '--set', 'AccumulationRegister_Stock_RecordType', '--output', '-', '--checkpoint', checkpoint]
  const all = [...args, '--url', rootOf(source), ...credentials, '--page-size', '100']
  const rowsOf = (stdout: string) => stdout.split('\n').filter((line) => line !== '')
  const whole = await runCli(all).done
  t.equal(whole.code, 0, whole.stderr)
  const expected = rowsOf(whole.stdout)
  t.ok(expected.length > 1000)
  // Killed once a few pages have gone down the pipe (the first page would have been checkpointed by then).
  const run = runCli(all)
  let received = 0
  run.child.stdout!.on('data', (chunk: Buffer) => {
    received += chunk.length
    if (received > 150_000) run.child.kill('SIGKILL')
  })
  const stopped = await run.done
  t.equal(stopped.signal, 'SIGKILL', 'stopped before the end')
  const again = await runCli(all).done
  t.equal(again.code, 0, again.stderr)
  t.equal(summaryOf<{ resumed: boolean }>(again.stderr).resumed, false)
  t.same(rowsOf(again.stdout), expected, 'every row, from the first')
  t.notOk(existsSync(checkpoint), 'no checkpoint left')
})

t.test('an export the service refuses leaves the file of the last run as it was, and makes none', async (t) => {
  const output = join(dir, 'refused-products.csv')
  const args = ['export', '--set', 'Catalog_Products', '--output', output, '--url', rootOf(source)]
  const first = await runCli([...args, ...credentials]).done
  t.equal(first.code, 0, first.stderr)
  const written = readFileSync(output, 'utf8')
  t.ok(lines(output).length > 100)
  for (const [refused, expected] of [
    [['--token', 'no-such-token'], /401 Unauthorized/],
    [[...credentials, '--filter', 'Code eq'], /400 InvalidFilter/],
  ] as const) {
    const run = await runCli([...args, ...refused]).done
    t.equal(run.code, 1)
    t.match(run.stderr, expected)
    t.equal(readFileSync(output, 'utf8'), written, `${refused.join(' ')}: the file of the last run kept`)
  }
  const missing = join(dir, 'refused-missing.ndjson')
  const run = await runCli(['export', '--set', 'Catalog_NoSuchSet', '--output', missing, '--url', rootOf(source), ...credentials]).done
  t.equal(run.code, 1)
  t.match(run.stderr, /404 NotFound/)
  t.notOk(existsSync(missing), 'no empty file for a set that does not exist')
})

t.test('--changes: the first run writes every row, each later one only what changed, removed rows marked', async (t) => {
  const output = join(dir, 'changes-warehouses.csv')
  const args = [
    'export',
    '--set',
    'Catalog_Warehouses',
    '--select',
    'Ref_Key,Description',
    '--changes',
    '--output',
    output,
    '--url',
    rootOf(source),
    ...credentials,
  ]
  const first = await runCli(args).done
  t.equal(first.code, 0, first.stderr)
  const all = lines(output)
  t.equal(all[0], 'Ref_Key,Description,_removed')
  t.ok(all.length > 2)
  const state = JSON.parse(readFileSync(`${output}.checkpoint`, 'utf8'))
  t.match(state.deltaLink, /\$deltatoken=/, 'the delta link is kept')

  const write = (method: string, path: string, body?: unknown) =>
    rawRequest(source.port, method, `/api/v4/${path}`, {
      headers: { Authorization: 'Bearer demo-token', 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  const created = (await write('POST', 'Catalog_Warehouses', { Description: 'Changes-new' })).json().Ref_Key
  const doomed = (await write('POST', 'Catalog_Warehouses', { Description: 'Changes-doomed' })).json().Ref_Key
  const second = await runCli(args).done
  t.equal(second.code, 0, second.stderr)
  t.same(lines(output).slice(1).sort(), [`${created},Changes-new,`, `${doomed},Changes-doomed,`].sort(), 'only the two new rows')

  await write('DELETE', `Catalog_Warehouses(${doomed})`)
  await write('PATCH', `Catalog_Warehouses(${created})`, { Description: 'Changes, renamed' })
  const third = await runCli(args).done
  t.equal(third.code, 0, third.stderr)
  t.same(lines(output).slice(1).sort(), [`${created},"Changes, renamed",`, `${doomed},,deleted`].sort(), 'a change and a removal')
  t.equal((await runCli(args).done).code, 0)
  t.same(lines(output), ['Ref_Key,Description,_removed'], 'nothing changed: the header alone')
})

t.test('--follow keeps polling and appends each change; Ctrl-C ends it', async (t) => {
  const output = join(dir, 'follow-products.ndjson')
  const run = runCli([
    'export',
    '--set',
    'Catalog_Products',
    '--select',
    'Ref_Key,Description',
    '--changes',
    '--follow',
    '--interval',
    '0.2',
    '--output',
    output,
    '--url',
    rootOf(source),
    ...credentials,
  ])
  const waitFor = (predicate: () => boolean) =>
    new Promise<void>((resolve) => {
      const timer = setInterval(() => {
        if (predicate()) {
          clearInterval(timer)
          resolve()
        }
      }, 20)
    })
  await waitFor(() => existsSync(`${output}.checkpoint`))
  const before = lines(output).length
  const answer = await rawRequest(source.port, 'POST', '/api/v4/Catalog_Products', {
    headers: { Authorization: 'Bearer demo-token', 'Content-Type': 'application/json' },
    body: JSON.stringify({ Description: 'Followed' }),
  })
  await waitFor(() => lines(output).length > before)
  t.same(JSON.parse(lines(output).at(-1)!), { Ref_Key: answer.json().Ref_Key, Description: 'Followed' }, 'the new row appended')
  run.child.kill('SIGINT')
  const done = await run.done
  t.equal(done.code, 0, done.stderr)
})

t.test('the command line: --help, unknown flags, missing pieces, a set that does not track changes', async (t) => {
  const help = await runCli(['export', '--help']).done
  t.equal(help.code, 0)
  t.match(help.stdout, /odata-registers export --set RESOURCE/)
  const unknown = await runCli(['export', '--set', 'Catalog_Products', '--sideways']).done
  t.equal(unknown.code, 1)
  t.match(unknown.stderr, /unknown option --sideways/)
  const nothing = await runCli(['export']).done
  t.equal(nothing.code, 1)
  t.match(nothing.stderr, /nothing to export/)
  const follow = await runCli(['export', '--set', 'Catalog_Products', '--follow']).done
  t.match(follow.stderr, /--follow polls for changes/)
  const parts = await runCli([
    'export',
    '--set',
    'Document_GoodsReceipt_Goods',
    '--changes',
    '--output',
    join(dir, 'parts.ndjson'),
    '--url',
    rootOf(source),
    ...credentials,
  ]).done
  t.equal(parts.code, 1)
  t.match(parts.stderr, /does not track changes/)
})

t.test('a virtual-table call exports like a set', async (t) => {
  const output = join(dir, 'balance.csv')
  const run = await runCli([
    'export',
    '--set',
    'AccumulationRegister_Stock/Balance()',
    '--select',
    'Warehouse_Key,Product_Key,QuantityBalance',
    '--output',
    output,
    '--url',
    rootOf(source),
    ...credentials,
    '--page-size',
    '7',
  ]).done
  t.equal(run.code, 0, run.stderr)
  const rows = lines(output)
  t.equal(rows[0], 'Warehouse_Key,Product_Key,QuantityBalance')
  const balance = await rawRequest(source.port, 'GET', '/api/v4/AccumulationRegister_Stock/Balance()/$count', {
    headers: { Authorization: 'Bearer demo-token' },
  })
  t.equal(rows.length - 1, Number(balance.text), 'every group, over several pages')
})

t.test('an output that cannot be written is named in the error, with what to do', async (t) => {
  const output = join(dir, 'no-such-folder', 'products.ndjson')
  const run = await runCli(['export', '--set', 'Catalog_Products', '--output', output, '--url', rootOf(source), ...credentials]).done
  t.equal(run.code, 1)
  t.match(run.stderr, `cannot write ${output}`)
  t.match(run.stderr, /ENOENT/)
  t.match(run.stderr, /run the same command again: it resumes from the checkpoint/)
})

t.test('a resource with a query is refused before anything is asked, naming the options to use', async (t) => {
  const run = await runCli(['export', '--set', 'Catalog_Products?$top=1', '--url', rootOf(source), ...credentials]).done
  t.equal(run.code, 1)
  t.match(run.stderr, /--set: Catalog_Products\?\$top=1 is a resource path and takes no query; give \$filter with --filter/)
  t.equal(run.stdout, '', 'no rows written')
})
