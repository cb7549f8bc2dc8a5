// The load driver (`odata-registers drive`, src/tools/drive) run as a user runs it against the real
// service (a process of its own, so that the driver samples its CPU and memory by pid) and MariaDB: the
// demo workload's report has every figure, consistent with what the service stored; failed operations
// are counted by status and code; two reports compare with ratios; and the HTML page, opened in headless
// Chromium, has its charts drawn.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import type { ShapeFigures } from '../../src/tools/drive/drive-report.js'
import { createTestDatabase } from '../support/test-database.js'
import { runCli, summaryOf } from '../support/run-cli.js'
import { findChromium } from '../support/find-chromium.js'
import { startTestService, TOKEN_ROOT } from '../support/test-service.js'

const dir = mkdtempSync(join(tmpdir(), 'odata-drive-'))
const database = await createTestDatabase('tools_drive')
const service = await startTestService('', { process: 'child', database, environment: { LOG_LEVEL: 'silent' } })
t.teardown(async () => {
  await service.stop()
  await database.drop()
})

const drive = (args: string[]) => runCli(['drive', ...args, '--url', `${service.origin}${TOKEN_ROOT}`, '--token', 'bench-token']).done

t.test('a run of the demo workload reports every figure', async (t) => {
  const out = join(dir, 'run-a')
  const run = await drive([
    'perf/workloads/demo-mix.yaml',
    '--duration',
    '3',
    '--warmup',
    '1',
    '--concurrency',
    '2',
    '--pid',
    String(service.child.pid),
    '--out',
    out,
  ])
  t.equal(run.code, 0, 'the command exits 0')
  if (run.code !== 0) t.comment(run.stderr)
  const summary = summaryOf(run.stdout)
  const report = JSON.parse(readFileSync(`${out}.json`, 'utf8'))
  t.same(summary.operations, report.totals.operations)
  t.ok(report.seconds >= 3 && report.seconds < 6, `measured for the duration asked (${report.seconds} s)`)
  t.ok(report.totals.operationsPerSecond > 0 && report.totals.rowsPerSecond > 0 && report.totals.batchesPerSecond > 0)
  t.same(report.errors, {}, 'no errors')
  t.same(Object.keys(report.shapes).sort(), ['balance', 'create-post', 'read'])
  for (const [name, shape] of Object.entries(report.shapes) as [string, ShapeFigures][]) {
    t.ok(shape.batches > 0, `${name}: batches sent`)
    const l = shape.latencyMs
    t.ok(
      l.p50 > 0 && l.p50 <= l.p90 && l.p90 <= l.p99 && l.p99 <= l.max,
      `${name}: latency percentiles in order (${l.p50}, ${l.p90}, ${l.p99}, ${l.max})`,
    )
    t.equal(
      shape.latencyHistogram.reduce((s: number, b: { count: number }) => s + b.count, 0),
      shape.batches,
      `${name}: the histogram holds every batch`,
    )
    t.equal(shape.failedBatches, 0)
  }
  const creates = report.shapes['create-post']
  t.equal(creates.operations, creates.batches * 40, 'a create-post batch is 20 creates and their 20 Posts')
  t.equal(creates.rows, creates.batches * 20 * 3, 'rows written: 3 table rows a document')
  // What the service stored: the measured batches and the warm-up's, each document posted.
  const [[stored]] = (await database.pool.query(
    "SELECT COUNT(*) AS n, SUM(Posted) AS posted FROM d_GoodsReceipt WHERE Number LIKE 'DRV%'",
  )) as unknown as [[{ n: number; posted: string }]]
  t.ok(
    Number(stored.n) >= creates.batches * 20 && Number(stored.n) % 20 === 0,
    `documents stored in whole change sets (${stored.n}, ${creates.batches * 20} of them measured)`,
  )
  t.equal(Number(stored.posted), Number(stored.n), 'each posted')
  // The ratio of shapes follows the weights (1:3:1), by smooth weighted round robin.
  const b = (n: string) => report.shapes[n].batches
  t.ok(
    Math.abs(b('read') - 3 * b('create-post')) <= 3 + 0.2 * b('read'),
    `the mix follows the weights (${b('create-post')}:${b('read')}:${b('balance')})`,
  )
  t.ok(
    report.timeline.length >= 2 && report.timeline.every((p: { operations: number }) => p.operations > 0),
    'a throughput point for each whole second',
  )
  t.ok(
    report.server.samples.length >= 2 && report.server.samples.every((s: { rssMB: number }) => s.rssMB > 10),
    'the server memory over time',
  )
  t.ok(report.server.cpuPercentMean > 0, 'the server CPU')
  t.ok(report.driver.cpuPercent > 0 && report.driver.samples.length >= 2, "the driver's own cost")
  t.type(report.warnings, Array)
})

t.test('failed operations are counted by status and code', async (t) => {
  const workload = join(dir, 'failing.json')
  writeFileSync(
    workload,
    JSON.stringify({
      concurrency: 1,
      count: 6,
      shapes: [
        { name: 'missing', kind: 'read', urls: ['Catalog_Nope'], operations: 1 },
        { name: 'bad-create', kind: 'create', set: 'Catalog_Products', documents: 2, body: { Code: 'TOO-LONG-A-CODE-FOR-ELEVEN' } },
      ],
    }),
  )
  const out = join(dir, 'failing')
  const run = await drive([workload, '--out', out])
  t.equal(run.code, 0, 'the command exits 0')
  const report = JSON.parse(readFileSync(`${out}.json`, 'utf8'))
  t.equal(report.totals.batches, 6)
  t.same(report.shapes.missing.errors, { '404 NotFound': 3 })
  t.same(report.shapes['bad-create'].errors, { '400 InvalidValue': 3 }, 'a failed change set is one error')
  t.same(report.errors, { '404 NotFound': 3, '400 InvalidValue': 3 })
  t.equal(report.totals.failedBatches, 6)
})

t.test('two runs compared side by side, ratios included', async (t) => {
  const out = join(dir, 'run-b')
  const run = await drive(['perf/workloads/demo-mix.yaml', '--duration', '2', '--warmup', '0', '--concurrency', '1', '--out', out])
  t.equal(run.code, 0, 'the command exits 0')
  const compared = await runCli(['drive', '--compare', join(dir, 'run-a.json'), `${out}.json`, '--out', join(dir, 'a-vs-b')]).done
  t.equal(compared.code, 0, 'the command exits 0')
  const a = JSON.parse(readFileSync(join(dir, 'run-a.json'), 'utf8'))
  const b = JSON.parse(readFileSync(`${out}.json`, 'utf8'))
  const comparison = JSON.parse(readFileSync(join(dir, 'a-vs-b.json'), 'utf8'))
  const ops = comparison.figures.find((f: { figure: string }) => f.figure === 'operations/s')
  t.equal(ops.a, a.totals.operationsPerSecond)
  t.equal(ops.b, b.totals.operationsPerSecond)
  t.ok(Math.abs(ops.ratio - b.totals.operationsPerSecond / a.totals.operationsPerSecond) < 1e-9, 'the ratio is b / a')
  t.ok(
    comparison.figures.some((f: { figure: string }) => f.figure === 'read latency p99 (ms)'),
    'per-shape latencies compared',
  )
  t.match(compared.stdout, /operations\/s\s+[\d,.]+\s+[\d,.]+\s+\d+\.\d\d/)
})

/** What the page check reads of an element (the project compiles without the DOM's types). */
interface PageElement {
  readonly id: string
  querySelector(selector: string): PageElement | null
  querySelectorAll(selector: string): Iterable<PageElement> & { readonly length: number }
  getBoundingClientRect(): { readonly width: number; readonly height: number }
  getBBox(): { readonly width: number; readonly height: number }
  getAttribute(name: string): string | null
}

const chromium = findChromium()

t.test(
  'the HTML report renders with its charts in headless Chromium',
  { skip: 'reason' in chromium ? `the page was not looked at: ${chromium.reason}` : false },
  async (t) => {
    const puppeteer = (await import('puppeteer-core')).default
    const browser = await puppeteer.launch({
      executablePath: 'path' in chromium ? chromium.path : undefined,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    })
    t.teardown(() => browser.close())
    for (const [page, charts] of [
      ['run-a.html', ['throughput', 'latency', 'percentiles', 'memory', 'cpu']],
      ['a-vs-b.html', ['throughput']],
    ] as const) {
      const tab = await browser.newPage()
      await tab.setViewport({ width: 1100, height: 900 })
      await tab.goto(`file://${join(dir, page)}`, { waitUntil: 'load' })
      // In the page (the project compiles without the DOM's types, hence PageElement).
      const drawn: { id: string; width: number; height: number; marks: number; axes: number }[] = await tab.evaluate(() =>
        [...(globalThis as unknown as { document: PageElement }).document.querySelectorAll('figure.chart')].map((figure) => {
          const svg = figure.querySelector('svg')
          const box = svg?.getBoundingClientRect()
          // Vega draws each mark in a group classed mark-<type>; a drawn chart has marks with geometry.
          const marks = [...(svg?.querySelectorAll('g.mark-line path, g.mark-rect path, g.mark-symbol path') ?? [])].filter((p) => {
            const b = p.getBBox()
            return (p.getAttribute('d') ?? '') !== '' && (b.width > 0 || b.height > 0)
          })
          return {
            id: figure.id,
            width: box?.width ?? 0,
            height: box?.height ?? 0,
            marks: marks.length,
            axes: svg?.querySelectorAll('g.role-axis').length ?? 0,
          }
        }),
      )
      t.same(
        drawn.map((c) => c.id),
        [...charts],
        `${page}: every chart is there`,
      )
      for (const chart of drawn) {
        t.ok(
          chart.width > 300 && chart.height > 150,
          `${page} ${chart.id}: laid out (${Math.round(chart.width)}×${Math.round(chart.height)})`,
        )
        t.ok(chart.marks > 0, `${page} ${chart.id}: marks drawn (${chart.marks})`)
        t.ok(chart.axes >= 2, `${page} ${chart.id}: with axes`)
      }
      await tab.screenshot({ path: join(dir, `${page}.png`), fullPage: true })
    }
  },
)
