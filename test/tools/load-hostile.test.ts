// Inputs an ETL user meets, against the real service and MariaDB: CSV rows with too few or too many fields,
// an unclosed quote among good rows, lines out of the order of their documents, an endless line, a 200 MB
// field, invalid UTF-8, NUL, a directory or a missing file. Each bad row is a reject naming its line and
// why, every other row loads, documents go whole or not at all, and no input ends in a stack trace or in
// memory that grows with it (the loader's peak resident memory is read from /proc).
import { spawn } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import type { LoadSummary } from '../../src/tools/load/run-load.js'
import { count, dir, exitedCleanly, file, loadCatalogs, loadFlags, PRODUCT_FLAGS } from '../support/load-fixtures.js'
import { runCli, summaryOf } from '../support/run-cli.js'
import { startTestService } from '../support/test-service.js'
import { seededRandom } from '../../src/seed/random.js'

interface Reject {
  source: string
  row: number
  line?: number
  status: number
  code: string
  message: string
  record: Record<string, unknown>
}

/** Products from a CSV of two columns, code and name. */
const CODE_NAME_FLAGS = ['--set', 'Catalog_Products', '--map', 'code=Code', '--map', 'name=Description']

const rejectsIn = (path: string): Reject[] =>
  readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l))

const noStackTrace = (t: Test, stderr: string) => t.notMatch(stderr, /\n\s+at .+:\d+:\d+/, 'no stack trace')

/** The loader with stdin fed from `chunks` (written as fast as it reads), its peak resident memory read from /proc. */
async function loadStreaming(
  args: string[],
  chunks: () => Iterable<Buffer>,
): Promise<{ code: number | null; stdout: string; stderr: string; peakMB: number }> {
  const child = spawn(process.execPath, ['build/src/cli.js', ...args], { stdio: ['pipe', 'pipe', 'pipe'] })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (c: Buffer) => (stdout += c.toString()))
  child.stderr.on('data', (c: Buffer) => (stderr += c.toString()))
  let peakMB = 0
  const sample = () => {
    try {
      const hwm = /VmHWM:\s+(\d+)/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1]
      if (hwm) peakMB = Math.max(peakMB, Number(hwm) / 1024)
    } catch {
      // the process has ended
    }
  }
  const sampler = setInterval(sample, 20)
  child.stdin.on('error', () => {})
  const closed = new Promise<number | null>((resolve) => child.once('close', resolve))
  for (const chunk of chunks()) {
    if (!child.stdin.write(chunk)) await new Promise((resolve) => child.stdin.once('drain', resolve))
  }
  child.stdin.end()
  const code = await closed
  clearInterval(sampler)
  return { code, stdout, stderr, peakMB }
}

t.test('CSV rows with too few or too many fields, invalid UTF-8 and NUL are rejects; the others load', async (t) => {
  const service = await startTestService('tools_load_hostile_csv')
  t.teardown(() => service.close())
  const root = `http://127.0.0.1:${service.port}/api/v4/`
  const rejects = join(dir, 'hostile-fields.rejects')
  const input = join(dir, 'hostile-fields.csv')
  writeFileSync(
    input,
    Buffer.concat([
      Buffer.from('code,name,article\nF1,Bolt,A-1\nF2,O1\nF3,Nut,A-3,extra\nF4,'),
      Buffer.from([0xc3, 0x28]),
      Buffer.from(',A-4\nF5,Nul\u0000,A-5\nF6,Washer,A-6\n'),
    ]),
  )
  const run = await runCli(['load', input, ...PRODUCT_FLAGS, ...loadFlags(root, 'hostile-fields')]).done
  exitedCleanly(t, run)
  t.match(summaryOf<LoadSummary>(run.stdout), { loaded: 2, rejected: 4, inputs: [{ rows: 6, loaded: 2, rejected: 4 }] })
  const found = rejectsIn(rejects).map((r) => ({ row: r.row, line: r.line, code: r.code, message: r.message }))
  t.match(found, [
    { row: 2, line: 3, code: 'FieldCount', message: /2 fields where the header has 3/ },
    { row: 3, line: 4, code: 'FieldCount', message: /4 fields where the header has 3/ },
    { row: 4, line: 5, code: 'InvalidUtf8' },
    { row: 5, line: 6, code: 'NulCharacter' },
  ])
  const pool = service.database.pool
  t.equal(await count(pool, "SELECT COUNT(*) AS n FROM c_Products WHERE Code IN ('F1', 'F6')"), 2)
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM c_Products'), 2, 'no row with values in the wrong columns')
})

t.test('a legal quoted field spanning lines in a record of the wrong width: one reject, nothing inside it loads', async (t) => {
  const service = await startTestService('tools_load_hostile_span')
  t.teardown(() => service.close())
  const root = `http://127.0.0.1:${service.port}/api/v4/`
  const input = file(
    'hostile-span.csv',
    'code,name\nG00000001,ok\nG00000002,"short\nG00000099,injected\nend",extra\nG00000003,ok3\nG00000004,a"b\n',
  )
  const run = await runCli(['load', input, ...CODE_NAME_FLAGS, ...loadFlags(root, 'hostile-span')]).done
  exitedCleanly(t, run)
  t.match(summaryOf<LoadSummary>(run.stdout), { loaded: 2, rejected: 2 })
  t.match(
    rejectsIn(join(dir, 'hostile-span.rejects')).map((r) => ({ line: r.line, code: r.code })),
    [
      { line: 3, code: 'FieldCount' },
      { line: 7, code: 'MalformedCsv' },
    ],
  )
  const codes = (await service.database.pool.query('SELECT Code FROM c_Products ORDER BY Code'))[0] as { Code: string }[]
  t.same(
    codes.map((r) => r.Code),
    ['G00000001', 'G00000003'],
    'no row from inside the quoted field',
  )
})

t.test('an unclosed quote among 20 rows: that row a reject naming its line, the other 19 load (file and stdin)', async (t) => {
  const service = await startTestService('tools_load_hostile_quote')
  t.teardown(() => service.close())
  const root = `http://127.0.0.1:${service.port}/api/v4/`
  const rows = Array.from({ length: 20 }, (_, i) => (i === 9 ? `Q${i + 1},"Cut quote,A` : `Q${i + 1},Item ${i + 1},A`))
  const text = `code,name,article\n${rows.join('\n')}\n`
  const args = (input: string, name: string) => ['load', input, '--input-format', 'csv', ...PRODUCT_FLAGS, ...loadFlags(root, name)]
  const fromFile = await runCli(args(file('hostile-quote.csv', text), 'hostile-quote')).done
  exitedCleanly(t, fromFile)
  t.match(summaryOf<LoadSummary>(fromFile.stdout), { loaded: 19, rejected: 1 })
  t.match(rejectsIn(join(dir, 'hostile-quote.rejects')), [{ line: 11, code: 'UnclosedQuote', message: /line 11/ }])
  const pool = service.database.pool
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM c_Products'), 19)
  t.equal(
    await count(pool, "SELECT COUNT(*) AS n FROM c_Products WHERE Code = 'Q11' AND Description = 'Item 11'"),
    1,
    'the row after it whole',
  )

  // The same on stdin, under other codes: the record is within the limit, so reading goes on from memory.
  const fromStdin = await runCli(args('-', 'hostile-quote-stdin'), {}, text.replaceAll('Q', 'S')).done
  exitedCleanly(t, fromStdin)
  t.match(summaryOf<LoadSummary>(fromStdin.stdout), { loaded: 19, rejected: 1 })
  t.equal(await count(pool, "SELECT COUNT(*) AS n FROM c_Products WHERE Code LIKE 'S%'"), 19)
})

t.test('an unclosed quote on stdin past the record limit: the load stops with its summary and the line', async (t) => {
  const service = await startTestService('tools_load_hostile_stop')
  t.teardown(() => service.close())
  const root = `http://127.0.0.1:${service.port}/api/v4/`
  const text = `code,name\nZ1,One\nZ2,"never closed\n${'Z9,filler\n'.repeat(200)}`
  const run = await runCli(
    [
      'load',
      '-',
      '--input-format',
      'csv',
      ...CODE_NAME_FLAGS,
      '--max-record-bytes',
      '1000',
      '--url',
      root,
      '--token',
      'bench-token',
      '--rejects',
      join(dir, 'hostile-stop.rejects'),
      '--checkpoint',
      join(dir, 'hostile-stop.checkpoint'),
    ],
    {},
    text,
  ).done
  t.equal(run.code, 1, 'exit 1: the input could not be read on')
  t.match(summaryOf<LoadSummary>(run.stdout), { loaded: 1, rejected: 1, stopped: /line 3/ })
  t.match(run.stderr, /stopped: stdin, line 3/)
  const [reject] = rejectsIn(join(dir, 'hostile-stop.rejects'))
  t.match(reject, { line: 3, code: 'UnclosedQuote', message: /the load stops here/ })
  t.notMatch(reject!.message, /reading goes on/, 'the reject does not promise what did not happen')
  noStackTrace(t, run.stderr)
  t.equal(await count(service.database.pool, "SELECT COUNT(*) AS n FROM c_Products WHERE Code = 'Z1'"), 1, 'what came before is loaded')
})

t.test('lines in any order give whole documents; a document with a bad line is rejected whole', async (t) => {
  const service = await startTestService('tools_load_hostile_lines')
  t.teardown(() => service.close())
  const root = `http://127.0.0.1:${service.port}/api/v4/`
  await loadCatalogs(root)
  const documents = 40
  const headers = ['number,date,warehouse,counterparty,organization']
  const lines: string[] = []
  for (let d = 1; d <= documents; d++) {
    headers.push(`U${d},2025-04-01T10:00:00Z,W1,C1,O1`)
    for (let l = 1; l <= 5; l++) lines.push(`U${d},P${((d + l) % 3) + 1},${l},2,${l * 2}`)
  }
  // Sorted by product, as the issue's file was; then a line of U7 with a field missing.
  const random = seededRandom(24)
  lines.sort((a, b) => a.split(',')[1]!.localeCompare(b.split(',')[1]!) || random() - 0.5)
  lines.splice(17, 0, 'U7,P1,9')
  // A closed quote spanning lines of U13 and U14 in a record of U12 with a field missing: one reject, which
  // may hold lines of all three. Last, a quote never closed before U9's line: that line cannot be placed.
  lines.push('U12,P1,"1', 'U13,P2,2,2,4', 'U14",2', '"U9,P1,1,2,2')
  const rejects = join(dir, 'hostile-lines.rejects')
  const run = await runCli([
    'load',
    file('hostile-lines-headers.csv', `${headers.join('\n')}\n`),
    '--lines',
    file('hostile-lines.csv', `number,product,qty,price,amount\n${lines.join('\n')}\nU99,P1,1,1,1\n`),
    '--join',
    'number',
    '--set',
    'Document_GoodsSale',
    '--post',
    '--map',
    'number=Number',
    '--map',
    'date=Date',
    '--map',
    'warehouse=Warehouse',
    '--map',
    'counterparty=Counterparty',
    '--map',
    'organization=Organization',
    '--map',
    'Goods/product=Product',
    '--map',
    'Goods/qty=Quantity',
    '--map',
    'Goods/price=Price',
    '--map',
    'Goods/amount=Amount',
    '--url',
    root,
    '--token',
    'bench-token',
    '--rejects',
    rejects,
    '--checkpoint',
    join(dir, 'hostile-lines.checkpoint'),
  ]).done
  exitedCleanly(t, run)
  const absent = ['U7', 'U9', 'U12', 'U13', 'U14']
  t.match(summaryOf<LoadSummary>(run.stdout), { loaded: documents - absent.length, rejected: absent.length, linesRejected: 2 })
  const found = rejectsIn(rejects)
  t.match(found[0], { row: 7, code: 'FieldCount', message: /line 19 in the lines file: line 19: 3 fields where the header has 5/ })
  t.equal((found[0]!.record.Goods as unknown[]).length, 6, 'the rejected document with all its lines')
  t.same(found.map((r) => r.record.number ?? r.code).sort(), [...absent, 'U99', 'UnplacedLine'].sort())
  t.match(
    found.find((r) => r.record.number === 'U9'),
    { code: 'UnplacedLine', message: /in the lines file: it may hold a line of this document: .*UnclosedQuote|a quote opens/ },
  )
  const pool = service.database.pool
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsSale WHERE Posted = 1'), documents - absent.length)
  t.equal(
    await count(pool, `SELECT COUNT(*) AS n FROM d_GoodsSale WHERE Number IN (${absent.map((n) => `'${n}'`).join(',')})`),
    0,
    'the documents with a bad line, or a line in a bad record, are absent',
  )
  t.equal(
    await count(
      pool,
      'SELECT COUNT(*) AS n FROM (SELECT d.Ref_Key FROM d_GoodsSale d JOIN d_GoodsSale__Goods g ON g.Ref_Key = d.Ref_Key GROUP BY d.Ref_Key HAVING COUNT(*) = 5) whole',
    ),
    documents - absent.length,
    'every document with its 5 lines',
  )
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM ar_Stock'), (documents - absent.length) * 5, 'each line posted once')
})

t.test('an endless NDJSON line and a 200 MB CSV field: rejects cut to a few KB, memory bounded, the next rows load', async (t) => {
  const service = await startTestService('tools_load_hostile_huge')
  t.teardown(() => service.close())
  const root = `http://127.0.0.1:${service.port}/api/v4/`
  await loadCatalogs(root)
  const megabyte = Buffer.alloc(1024 * 1024, 'x')
  const common = ['--url', root, '--token', 'bench-token']
  const head = '{"Code": "E2", "Description": "'
  const endless = await loadStreaming(
    [
      'load',
      '-',
      '--input-format',
      'ndjson',
      '--set',
      'Catalog_Warehouses',
      ...common,
      '--rejects',
      join(dir, 'hostile-endless.rejects'),
      '--checkpoint',
      join(dir, 'hostile-endless.checkpoint'),
    ],
    function* () {
      yield Buffer.from(`{"Code": "E1", "Description": "before"}\n${head}`)
      for (let i = 0; i < 300; i++) yield megabyte
      yield Buffer.from('"}\n{"Code": "E3", "Description": "after"}\n')
    },
  )
  t.equal(endless.code, 0, 'exit 0')
  noStackTrace(t, endless.stderr)
  t.match(summaryOf<LoadSummary>(endless.stdout), { loaded: 2, rejected: 1 })
  const [cut] = rejectsIn(join(dir, 'hostile-endless.rejects'))
  t.match(cut, { line: 2, code: 'RecordTooLong', record: { cut: true, bytes: head.length + 300 * 1024 * 1024 + 2 } })
  t.ok(String(cut!.record.text).length <= 4096, 'the reject holds the first 4 KB')
  t.ok(endless.peakMB < 300, `the loader's peak memory (${Math.round(endless.peakMB)} MB) does not grow with the line`)

  const field = await loadStreaming(
    [
      'load',
      '-',
      '--input-format',
      'csv',
      '--set',
      'Catalog_Warehouses',
      '--map',
      'code=Code',
      '--map',
      'name=Description',
      ...common,
      '--rejects',
      join(dir, 'hostile-field.rejects'),
      '--checkpoint',
      join(dir, 'hostile-field.checkpoint'),
    ],
    function* () {
      yield Buffer.from('code,name\nH1,before\nH2,"')
      for (let i = 0; i < 200; i++) yield megabyte
      yield Buffer.from('"\nH3,after\n')
    },
  )
  t.equal(field.code, 0, 'exit 0')
  noStackTrace(t, field.stderr)
  t.match(summaryOf<LoadSummary>(field.stdout), { loaded: 2, rejected: 1 })
  t.match(rejectsIn(join(dir, 'hostile-field.rejects')), [{ line: 3, code: 'RecordTooLong', record: { cut: true } }])
  t.ok(field.peakMB < 300, `the loader's peak memory (${Math.round(field.peakMB)} MB) does not grow with the field`)
  const pool = service.database.pool
  t.equal(await count(pool, "SELECT COUNT(*) AS n FROM c_Warehouses WHERE Code IN ('E1', 'E3', 'H1', 'H3')"), 4)
})

t.test('a directory, a missing file, an unreadable mapping: exit 2 with a clear message, nothing sent', async (t) => {
  const args = (input: string) => ['load', input, '--set', 'Catalog_Products', '--url', 'http://127.0.0.1:9/api/v4/']
  const directory = await runCli(args(dir)).done
  t.equal(directory.code, 2)
  t.match(directory.stderr, /is a directory/)
  noStackTrace(t, directory.stderr)
  const missing = await runCli(args(join(dir, 'no-such-file.csv'))).done
  t.equal(missing.code, 2)
  t.match(missing.stderr, /does not exist/)
  noStackTrace(t, missing.stderr)
  const mapping = await runCli(['load', '--mapping', dir, '--url', 'http://127.0.0.1:9/api/v4/']).done
  t.equal(mapping.code, 2)
  t.match(mapping.stderr, /mapping file .* is a directory/)
  const lines = await runCli([...args(file('hostile-headers.csv', 'number\n')), '--lines', dir, '--join', 'number']).done
  t.equal(lines.code, 2)
  t.match(lines.stderr, /lines file .* is a directory/)
})

t.test('a checkpoint or reject file that is a device or cannot be created, the lines file on stdin: exit 2 naming it', async (t) => {
  const args = (...more: string[]) => [
    'load',
    file('hostile-roles.csv', 'code\nR1\n'),
    '--set',
    'Catalog_Products',
    '--url',
    'http://127.0.0.1:9/api/v4/',
    ...more,
  ]
  const cases: [string[], RegExp][] = [
    [['--checkpoint', '/dev/zero'], /^odata-registers load: the checkpoint \/dev\/zero is not a regular file/],
    [['--rejects', '/dev/full'], /^odata-registers load: the reject file \/dev\/full is not a regular file/],
    [
      ['--rejects', join(dir, 'no-such-folder', 'r.ndjson')],
      /^odata-registers load: the reject file .* cannot be created: the folder .* is missing or not writable/,
    ],
    [['--lines', '-', '--join', 'code'], /^odata-registers load: the lines file must be a file, not stdin/],
  ]
  for (const [more, message] of cases) {
    const run = await runCli(args(...more)).done
    t.equal(run.code, 2, `${more.join(' ')}: exit 2`)
    t.match(run.stderr, message)
    noStackTrace(t, run.stderr)
  }
  const device = await runCli([
    'load',
    '/dev/zero',
    '--input-format',
    'csv',
    '--set',
    'Catalog_Products',
    '--url',
    'http://127.0.0.1:9/api/v4/',
  ]).done
  t.equal(device.code, 2, 'an input that is a device: exit 2')
  t.match(device.stderr, /the input \/dev\/zero is not a file/)
})
