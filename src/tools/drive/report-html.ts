// The drive report as a page a person would rather look at than read: the headline figures, then charts
// drawn as SVG in Node by Vega-Lite (throughput over time, latency distribution and percentiles per
// batch shape, memory and CPU over time), and the tables of every figure. The page is self-contained:
// no script, no network.
import { parse as parseVega, View } from 'vega'
import { compile, type TopLevelSpec } from 'vega-lite'
import type { DriveReport } from './drive-report.js'

export async function chartSvg(spec: TopLevelSpec): Promise<string> {
  const view = new View(parseVega(compile(spec).spec), { renderer: 'none' })
  const svg = await view.toSVG()
  view.finalize()
  return svg
}

export function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!)
}

const WIDTH = 640

export function round(n: number): string {
  return n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(n >= 10 ? 1 : 2)
}

export const PAGE_STYLE = `body{font-family:system-ui,sans-serif;margin:2rem;color:#222;max-width:72rem}
h1{font-size:1.5rem}h2{font-size:1.15rem;margin-top:2rem}
.figures{display:flex;gap:1.5rem;flex-wrap:wrap}.figure{border:1px solid #ddd;border-radius:6px;padding:.6rem 1rem}
.figure b{display:block;font-size:1.6rem}table{border-collapse:collapse;margin:.5rem 0}td,th{border-bottom:1px solid #eee;padding:.25rem .7rem;text-align:right}
th:first-child,td:first-child{text-align:left}.warning{background:#fff3cd;border:1px solid #e0c36a;padding:.5rem 1rem;border-radius:6px}
figure{margin:1rem 0}figcaption{color:#555;font-size:.9rem}`

/** One line per series over the run's seconds: throughput, memory and CPU are all drawn this way. */
function lineOverTime(values: object[], field: string, title: string, series: string, height: number, xTitle?: string): TopLevelSpec {
  return {
    width: WIDTH,
    height,
    data: { values },
    mark: { type: 'line', point: true },
    encoding: {
      x: { field: 'second', type: 'quantitative', ...(xTitle ? { title: xTitle } : {}) },
      y: { field, type: 'quantitative', title },
      color: { field: series, type: 'nominal' },
    },
  }
}

export async function reportHtml(report: DriveReport): Promise<string> {
  const shapes = Object.entries(report.shapes)
  const throughput = report.timeline.flatMap((p) => [
    { second: p.second, series: 'operations/s', value: p.operations },
    { second: p.second, series: 'rows/s', value: p.rows },
  ])
  const histogram = shapes.flatMap(([name, s]) =>
    s.latencyHistogram.map((bin) => ({ shape: name, from: bin.from, to: bin.to, count: bin.count })),
  )
  const percentiles = shapes.flatMap(([name, s]) =>
    (['p50', 'p90', 'p99', 'max'] as const).map((q) => ({ shape: name, percentile: q, ms: s.latencyMs[q] })),
  )
  const memory = [
    ...(report.server?.samples ?? []).map((s) => ({ second: s.second, process: 'server', rssMB: s.rssMB, cpuPercent: s.cpuPercent })),
    ...report.driver.samples.map((s) => ({ second: s.second, process: 'driver', rssMB: s.rssMB, cpuPercent: s.cpuPercent })),
  ]
  const charts: { id: string; caption: string; spec: TopLevelSpec }[] = [
    {
      id: 'throughput',
      caption: 'Throughput over time (each second of the measured run)',
      spec: lineOverTime(throughput, 'value', 'per second', 'series', 220, 'second'),
    },
    {
      id: 'latency',
      caption: 'Latency distribution per batch shape (ms from sending to the end of the answer)',
      spec: {
        width: WIDTH,
        height: 220,
        data: { values: histogram },
        mark: 'bar',
        encoding: {
          x: { field: 'from', type: 'quantitative', bin: { binned: true }, title: 'latency (ms)' },
          x2: { field: 'to' },
          y: { field: 'count', type: 'quantitative', title: 'batches', stack: null },
          color: { field: 'shape', type: 'nominal' },
          opacity: { value: 0.7 },
        },
      },
    },
    {
      id: 'percentiles',
      caption: 'Latency percentiles per batch shape (ms)',
      spec: {
        width: WIDTH,
        height: 200,
        data: { values: percentiles },
        mark: 'bar',
        encoding: {
          x: { field: 'percentile', type: 'nominal', sort: ['p50', 'p90', 'p99', 'max'], title: null },
          xOffset: { field: 'shape' },
          y: { field: 'ms', type: 'quantitative', title: 'ms' },
          color: { field: 'shape', type: 'nominal' },
        },
      },
    },
    {
      id: 'memory',
      caption: report.server
        ? `Memory over time: the server (pid ${report.server.pid}${report.server.processes > 1 ? ` and its workers, ${report.server.processes} processes in all` : ''}) and the driver`
        : 'Memory over time: the driver (give --pid for the server)',
      spec: lineOverTime(memory, 'rssMB', 'resident MB', 'process', 200),
    },
    {
      id: 'cpu',
      caption: 'CPU over time (percent of one core)',
      spec: lineOverTime(memory, 'cpuPercent', '% of a core', 'process', 200),
    },
  ]
  const drawn = await Promise.all(
    charts.map(
      async (c) => `<figure id="${c.id}" class="chart">${await chartSvg(c.spec)}<figcaption>${escapeHtml(c.caption)}</figcaption></figure>`,
    ),
  )
  const t = report.totals
  const figure = (label: string, value: string) => `<div class="figure">${escapeHtml(label)}<b>${value}</b></div>`
  const shapeRows = shapes
    .map(
      ([name, s]) =>
        `<tr><td>${escapeHtml(name)} (${s.kind})</td><td>${s.batches}</td><td>${round(s.operationsPerSecond)}</td><td>${round(s.rowsPerSecond)}</td><td>${round(s.latencyMs.p50)}</td><td>${round(s.latencyMs.p90)}</td><td>${round(s.latencyMs.p99)}</td><td>${round(s.latencyMs.max)}</td><td>${s.failedBatches}</td></tr>`,
    )
    .join('')
  const errorRows = Object.entries(report.errors)
    .map(([key, n]) => `<tr><td>${escapeHtml(key)}</td><td>${n}</td></tr>`)
    .join('')
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>drive report: ${escapeHtml(report.target)}</title><style>${PAGE_STYLE}</style></head>
<body>
<h1>Load against ${escapeHtml(report.target)}</h1>
<p>${escapeHtml(report.startedAt)}, ${report.seconds.toFixed(1)} s measured, ${t.batches} batches.</p>
${report.warnings.map((w) => `<p class="warning">${escapeHtml(w)}</p>`).join('\n')}
<div class="figures">${figure('operations/s', round(t.operationsPerSecond))}${figure('rows/s', round(t.rowsPerSecond))}${figure('batches/s', round(t.batchesPerSecond))}${figure('failed batches', String(t.failedBatches))}${figure('driver CPU', `${Math.round(report.driver.cpuPercent)}%`)}${report.server ? figure('server CPU (mean)', `${Math.round(report.server.cpuPercentMean)}%`) + figure('server memory (max)', `${Math.round(report.server.rssMBMax)} MB`) : ''}</div>
${drawn.join('\n')}
<h2>Per batch shape</h2>
<table><tr><th>shape</th><th>batches</th><th>operations/s</th><th>rows/s</th><th>p50 ms</th><th>p90 ms</th><th>p99 ms</th><th>max ms</th><th>failed</th></tr>${shapeRows}</table>
<h2>Errors by status and code</h2>
${errorRows ? `<table><tr><th>status code</th><th>count</th></tr>${errorRows}</table>` : '<p>None.</p>'}
</body></html>
`
}
