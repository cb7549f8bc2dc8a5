// `odata-registers drive`: the load driver's command line (docs/client-tools.md, "Driving load").
//
//   odata-registers drive workload.yaml --url http://127.0.0.1:8080/api/v4/ --token bench-token --pid 1234 --out run-a
//   odata-registers drive --compare run-a.json run-b.json --out a-vs-b
//
// Writes PREFIX.json (every figure) and PREFIX.html (the charts); prints one JSON summary line on stdout
// and a line a second on stderr while it runs.
import { writeFileSync } from 'node:fs'
import { authorizationFrom, headersFrom, readArguments } from '../shared/command-arguments.js'
import { DRIVE_USAGE } from './drive-usage.js'
import { runWorkload } from './run-workload.js'
import { readWorkloadFile, workloadFrom } from './workload.js'

export async function driveCommand(args: readonly string[]): Promise<number> {
  const a = readArguments(args, {
    values: ['url', 'token', 'user', 'header', 'concurrency', 'duration', 'count', 'warmup', 'rate', 'format', 'pid', 'out'],
    flags: ['compare'],
  })
  if (a.flag('compare')) {
    if (a.positional.length !== 2) throw new Error(`--compare takes two report files\n${DRIVE_USAGE}`)
    const [aFile, bFile] = a.positional as [string, string]
    const { compareReports, comparisonHtml, comparisonText, readReport } = await import('./compare-reports.js')
    const comparison = compareReports(aFile, readReport(aFile), bFile, readReport(bFile))
    const out = a.value('out') ?? 'drive-comparison'
    writeFileSync(`${out}.json`, JSON.stringify(comparison, null, 2))
    writeFileSync(`${out}.html`, await comparisonHtml(comparison))
    console.log(comparisonText(comparison))
    console.log(`\nwritten: ${out}.json, ${out}.html`)
    return 0
  }
  if (a.positional.length !== 1) throw new Error(`drive takes one workload file\n${DRIVE_USAGE}`)
  const document = readWorkloadFile(a.positional[0]!)
  const authorization = authorizationFrom({ token: a.value('token'), user: a.value('user') })
  const headers = { ...((document.headers as Record<string, string>) ?? {}), ...headersFrom(a.values('header')) }
  if (authorization) headers.authorization = authorization
  const override = (name: string) => (a.value(name) !== undefined ? a.number(name, 0) : undefined)
  const workload = workloadFrom({
    ...document,
    root: a.value('url') ?? document.root ?? process.env.ODATA_URL,
    headers,
    format: a.value('format') ?? document.format,
    concurrency: override('concurrency') ?? document.concurrency,
    duration: override('duration') ?? (a.value('count') !== undefined ? undefined : document.duration),
    count: override('count') ?? (a.value('duration') !== undefined ? undefined : document.count),
    warmup: a.value('warmup') !== undefined ? Number(a.value('warmup')) : document.warmup,
    rate: override('rate') ?? document.rate,
  })
  const pid = a.value('pid') !== undefined ? a.number('pid', 0) : undefined
  const report = await runWorkload(workload, {
    serverPid: pid,
    onSecond: (p) => process.stderr.write(`${JSON.stringify({ event: 'second', ...p })}\n`),
  })
  const out = a.value('out') ?? 'drive-report'
  writeFileSync(`${out}.json`, JSON.stringify(report, null, 2))
  // Vega is loaded after the run: its start-up is no part of the driver's measured cost.
  const { reportHtml } = await import('./report-html.js')
  writeFileSync(`${out}.html`, await reportHtml(report))
  for (const warning of report.warnings) console.error(`warning: ${warning}`)
  console.log(
    JSON.stringify({
      event: 'summary',
      ...report.totals,
      seconds: report.seconds,
      errors: report.errors,
      warnings: report.warnings,
      report: `${out}.json`,
      page: `${out}.html`,
    }),
  )
  return 0
}
