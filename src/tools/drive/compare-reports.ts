// Two drive reports side by side (two runs, or two endpoints): every headline figure of each, and the
// ratio of the second to the first, as text for the terminal, JSON, and a page with a chart.
import { readFileSync } from 'node:fs'
import type { DriveReport } from './drive-report.js'
import { chartSvg, escapeHtml, PAGE_STYLE, round } from './report-html.js'

export interface ComparedFigure {
  readonly figure: string
  readonly a: number
  readonly b: number
  /** b / a (null when a is 0). */
  readonly ratio: number | null
}

export interface Comparison {
  readonly a: { readonly file: string; readonly target: string; readonly startedAt: string }
  readonly b: { readonly file: string; readonly target: string; readonly startedAt: string }
  readonly figures: readonly ComparedFigure[]
}

export function readReport(path: string): DriveReport {
  const report = JSON.parse(readFileSync(path, 'utf8')) as DriveReport
  if (report.tool !== 'odata-registers drive') throw new Error(`${path} is not a drive report`)
  return report
}

export function compareReports(aFile: string, a: DriveReport, bFile: string, b: DriveReport): Comparison {
  const figures: ComparedFigure[] = []
  const add = (figure: string, x: number | undefined, y: number | undefined) => {
    if (x === undefined || y === undefined) return
    figures.push({ figure, a: x, b: y, ratio: x === 0 ? null : y / x })
  }
  add('operations/s', a.totals.operationsPerSecond, b.totals.operationsPerSecond)
  add('rows/s', a.totals.rowsPerSecond, b.totals.rowsPerSecond)
  add('batches/s', a.totals.batchesPerSecond, b.totals.batchesPerSecond)
  add('failed batches', a.totals.failedBatches, b.totals.failedBatches)
  for (const name of Object.keys(a.shapes)) {
    const x = a.shapes[name]!
    const y = b.shapes[name]
    if (!y) continue
    add(`${name} operations/s`, x.operationsPerSecond, y.operationsPerSecond)
    for (const q of ['p50', 'p90', 'p99', 'max'] as const) add(`${name} latency ${q} (ms)`, x.latencyMs[q], y.latencyMs[q])
  }
  add('driver CPU %', a.driver.cpuPercent, b.driver.cpuPercent)
  add('server CPU % (mean)', a.server?.cpuPercentMean, b.server?.cpuPercentMean)
  add('server memory MB (max)', a.server?.rssMBMax, b.server?.rssMBMax)
  const side = (file: string, r: DriveReport) => ({ file, target: r.target, startedAt: r.startedAt })
  return { a: side(aFile, a), b: side(bFile, b), figures }
}

export function comparisonText(c: Comparison): string {
  const width = Math.max(...c.figures.map((f) => f.figure.length), 6)
  const lines = [
    `a: ${c.a.file} (${c.a.target}, ${c.a.startedAt})`,
    `b: ${c.b.file} (${c.b.target}, ${c.b.startedAt})`,
    '',
    `${'figure'.padEnd(width)}  ${'a'.padStart(12)}  ${'b'.padStart(12)}  ${'b/a'.padStart(7)}`,
  ]
  for (const f of c.figures)
    lines.push(
      `${f.figure.padEnd(width)}  ${round(f.a).padStart(12)}  ${round(f.b).padStart(12)}  ${(f.ratio === null ? '–' : f.ratio.toFixed(2)).padStart(7)}`,
    )
  return lines.join('\n')
}

export async function comparisonHtml(c: Comparison): Promise<string> {
  const perSecond = c.figures
    .filter((f) => f.figure.endsWith('operations/s') || f.figure === 'rows/s')
    .flatMap((f) => [
      { figure: f.figure, run: 'a', value: f.a },
      { figure: f.figure, run: 'b', value: f.b },
    ])
  const chart = await chartSvg({
    width: 640,
    height: 240,
    data: { values: perSecond },
    mark: 'bar',
    encoding: {
      y: { field: 'figure', type: 'nominal', title: null },
      yOffset: { field: 'run' },
      x: { field: 'value', type: 'quantitative', title: 'per second' },
      color: { field: 'run', type: 'nominal' },
    },
  })
  const rows = c.figures
    .map(
      (f) =>
        `<tr><td>${escapeHtml(f.figure)}</td><td>${round(f.a)}</td><td>${round(f.b)}</td><td>${f.ratio === null ? '–' : f.ratio.toFixed(2)}</td></tr>`,
    )
    .join('')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>drive comparison</title><style>${PAGE_STYLE}</style></head>
<body><h1>Two drive runs side by side</h1>
<p>a: ${escapeHtml(c.a.file)} (${escapeHtml(c.a.target)}, ${escapeHtml(c.a.startedAt)})<br>b: ${escapeHtml(c.b.file)} (${escapeHtml(c.b.target)}, ${escapeHtml(c.b.startedAt)})</p>
<figure id="throughput" class="chart">${chart}<figcaption>Throughput, a and b</figcaption></figure>
<table><tr><th>figure</th><th>a</th><th>b</th><th>b/a</th></tr>${rows}</table></body></html>
`
}
