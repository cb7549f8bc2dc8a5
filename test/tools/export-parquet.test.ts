// `odata-registers export --format parquet` run as a user runs it against the real service, and the file
// read back with hyparquet (the reader of the writer's own project): the same rows as the service
// answers, with their types (exact decimals, timestamps, integers, table parts as JSON text), over
// several row groups' worth of pages; `--changes` to Parquet with removed rows marked; the refusals.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { parquetMetadata, parquetReadObjects } from 'hyparquet'
import t from 'tap'
import { runCli, summaryOf } from '../support/run-cli.js'
import { dir } from '../support/load-fixtures.js'
import { rawRequest, startTestService } from '../support/test-service.js'

const source = await startTestService('tools_export_parquet', { data: 'demo' })
t.teardown(() => source.close())
const root = `http://127.0.0.1:${source.port}/api/v4/`
const credentials = ['--token', 'demo-token']

type Row = Record<string, unknown>

/** Every row of a read as the service answers it, following next links, without annotations. */
async function readAll(path: string): Promise<Row[]> {
  const rows: Row[] = []
  let next: string | undefined = `/api/v4/${path}`
  while (next) {
    const answer = await rawRequest(source.port, 'GET', next, { headers: { Authorization: 'Bearer demo-token' } })
    if (answer.status !== 200) throw new Error(`${path}: ${answer.status} ${answer.text}`)
    const body = answer.json()
    for (const row of body.value) rows.push(Object.fromEntries(Object.entries(row as Row).filter(([name]) => !name.includes('@'))))
    const link = body['@odata.nextLink'] as string | undefined
    next = link ? new URL(link).pathname + new URL(link).search : undefined
  }
  return rows
}

async function readParquet(path: string): Promise<Row[]> {
  const bytes = readFileSync(path)
  const file = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
  return (await parquetReadObjects({ file })) as Row[]
}

/**
 * A value read back from Parquet, in the service's JSON form: timestamps as the service writes them, 64-bit
 * integers as numbers, and numbers at the 15 significant digits the service's decimals have (the reader
 * scales a DECIMAL's integer by multiplying with 10^-scale, so 6323 at scale 2 reads as 63.230000000000004).
 */
function asJson(value: unknown): unknown {
  if (value instanceof Date) return value.toISOString().replace('.000Z', 'Z')
  if (typeof value === 'bigint') return Number(value)
  if (typeof value === 'number') return Number(value.toPrecision(15))
  return value
}

t.test('a set to Parquet, read back with hyparquet: every row and value as the service answers them', async (t) => {
  for (const set of ['AccumulationRegister_Stock_RecordType', 'Document_GoodsReceipt', 'Catalog_Products']) {
    const output = join(dir, `${set}.parquet`)
    const run = await runCli(['export', '--set', set, '--output', output, '--url', root, ...credentials, '--page-size', '300']).done
    t.equal(run.code, 0, run.stderr)
    const expected = await readAll(set)
    t.ok(expected.length > 20, `${set}: rows to compare`)
    t.equal(summaryOf<{ rows: number }>(run.stdout).rows, expected.length)
    t.notOk(existsSync(`${output}.partial`), 'written beside its name, then renamed')
    const read = await readParquet(output)
    t.equal(read.length, expected.length, `${set}: as many rows`)
    const mismatches: string[] = []
    read.forEach((row, i) => {
      const want = expected[i]!
      for (const [name, value] of Object.entries(want)) {
        const got = Array.isArray(value) ? JSON.parse(row[name] as string) : asJson(row[name])
        if (JSON.stringify(got) !== JSON.stringify(value))
          mismatches.push(`row ${i} ${name}: ${JSON.stringify(got)} ≠ ${JSON.stringify(value)}`)
      }
      if (Object.keys(row).length !== Object.keys(want).length) mismatches.push(`row ${i}: columns ${Object.keys(row)}`)
    })
    t.same(mismatches.slice(0, 5), [], `${set}: the same values, in order`)
  }
  // The file's own types: a warehouse reads decimals, timestamps and integers as such.
  const metadata = parquetMetadata(
    (() => {
      const bytes = readFileSync(join(dir, 'AccumulationRegister_Stock_RecordType.parquet'))
      return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength)
    })(),
  )
  const element = (name: string) => metadata.schema.find((e) => e.name === name)!
  t.match(element('Quantity'), { converted_type: 'DECIMAL', scale: 3 }, 'a decimal column keeps its scale')
  t.match(element('Period'), { type: 'INT64', converted_type: 'TIMESTAMP_MILLIS' })
  t.match(element('LineNumber'), { type: 'INT32' })
  t.match(element('Recorder'), { type: 'BYTE_ARRAY', converted_type: 'UTF8' })
})

t.test('--changes to Parquet: each run a file of what changed, removed rows marked in _removed', async (t) => {
  const output = join(dir, 'changes-warehouses.parquet')
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
    root,
    ...credentials,
  ]
  const first = await runCli(args).done
  t.equal(first.code, 0, first.stderr)
  const all = await readParquet(output)
  t.ok(all.length > 2)
  t.same(Object.keys(all[0]!), ['Ref_Key', 'Description', '_removed'])
  const write = (method: string, path: string, body?: unknown) =>
    rawRequest(source.port, method, `/api/v4/${path}`, {
      headers: { Authorization: 'Bearer demo-token', 'Content-Type': 'application/json' },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
  const kept = (await write('POST', 'Catalog_Warehouses', { Description: 'Parquet-kept' })).json().Ref_Key
  const doomed = (await write('POST', 'Catalog_Warehouses', { Description: 'Parquet-doomed' })).json().Ref_Key
  t.equal((await runCli(args).done).code, 0)
  await write('DELETE', `Catalog_Warehouses(${doomed})`)
  await write('PATCH', `Catalog_Warehouses(${kept})`, { Description: 'Parquet, renamed' })
  const third = await runCli(args).done
  t.equal(third.code, 0, third.stderr)
  const byKey = (a: Row, b: Row) => String(a.Ref_Key).localeCompare(String(b.Ref_Key))
  t.same(
    (await readParquet(output)).sort(byKey),
    [
      { Ref_Key: kept, Description: 'Parquet, renamed', _removed: null },
      { Ref_Key: doomed, Description: null, _removed: 'deleted' },
    ].sort(byKey),
    'a change and a removal',
  )
  t.equal((await runCli(args).done).code, 0)
  t.same(await readParquet(output), [], 'nothing changed: a file with no rows, still readable')
})

t.test('Parquet refuses stdout and --follow', async (t) => {
  const stdout = await runCli(['export', '--set', 'Catalog_Products', '--format', 'parquet', '--url', root, ...credentials]).done
  t.equal(stdout.code, 1)
  t.match(stdout.stderr, /Parquet file ends with its index/)
  const follow = await runCli([
    'export',
    '--set',
    'Catalog_Products',
    '--changes',
    '--follow',
    '--output',
    join(dir, 'followed.parquet'),
    '--url',
    root,
    ...credentials,
  ]).done
  t.equal(follow.code, 1)
  t.match(follow.stderr, /cannot be appended to/)
})
