// Export of the movement rows (`AccumulationRegister_Stock_RecordType`, about a million at SEED_SCALE 100),
// the reads issue's three figures, each against a baseline measured in the same run:
//   1. rows per second of the whole export through the service, against a raw mysql2 stream of the same
//      SQL serialised with JSON.stringify (target ≥ 0.7), and the service's peak memory growth during the
//      export (sampled from /proc in the parent: the service runs in a child process; target < 100 MB);
//   2. paged export with `Prefer: odata.maxpagesize=5000`, following every next link: the last page takes
//      no more than twice the first (keyset paging: no OFFSET over a million rows);
//   3. time to the first byte of the million-row export, against that of a ten-row read (target ≤ 3×):
//      nothing waits for the whole result.
// Run: node scripts/run-benchmarks.mjs export-records   (SEED_SCALE to change the size; seeding the first
// time takes minutes, the bench database is reused afterwards).
import { exportSelectSql } from './support/export-sql.js'
import type { ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import http from 'node:http'
import net from 'node:net'
import { startBenchmarkServer } from '../test/support/service-child.js'
import { prepareBenchDatabase } from './support/bench-database.js'
import { printResult } from './support/report.js'

const SCALE = Number(process.env.SEED_SCALE ?? 100)
const PORT = 18111
const SET = 'AccumulationRegister_Stock_RecordType'
const ROOT = '/odata/standard.odata/v4/'
const AUTHORIZATION = `Basic ${Buffer.from('bench:bench').toString('base64')}`
const REPEATS = 5

const { model, pool } = await prepareBenchDatabase(SCALE)
const [[{ total }]] = (await pool.query(`SELECT COUNT(*) AS total FROM ar_Stock`)) as unknown as [[{ total: number }]]
await pool.end()
const rowCount = Number(total)
console.log(`  ${rowCount} movements at SEED_SCALE ${SCALE}`)

// The SQL the service runs for the export: every column, in key order (the read pipeline's own plan).
const exportSql = exportSelectSql(model, SET)

async function startChild(args: string[]): Promise<ChildProcess> {
  return (await startBenchmarkServer('export-server.js', args, { LOG_LEVEL: 'silent' })).child
}

async function baselineRowsPerSecond(): Promise<number> {
  const child = await startChild(['baseline'])
  const result = await new Promise<{ rows: number; seconds: number }>((resolve) => {
    child.once('message', (message) => resolve(message as { rows: number; seconds: number }))
    child.send({ sql: exportSql })
  })
  checkRows('the baseline', result.rows)
  return result.rows / result.seconds
}

/** Resident memory of a process, from /proc (kB → bytes). */
function memory(pid: number, field: 'VmRSS' | 'VmHWM'): number {
  const match = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return match ? Number(match[1]) * 1024 : NaN
}

const requestBytes = (path: string, extra = '') =>
  Buffer.from(`GET ${ROOT}${path} HTTP/1.1\r\nHost: 127.0.0.1:${PORT}\r\nAuthorization: ${AUTHORIZATION}\r\n${extra}\r\n`)
const ROW_MARK = Buffer.from('{"Recorder":"')
const END_OF_CHUNKS = Buffer.from('\r\n0\r\n\r\n')

/** The whole export over a raw socket: seconds, rows seen, and the server's memory while it ran. */
function exportOnce(pid: number): Promise<{ seconds: number; rows: number; rssBefore: number; rssPeak: number }> {
  return new Promise((resolve, reject) => {
    const rssBefore = memory(pid, 'VmRSS')
    let rssPeak = rssBefore
    const sampler = setInterval(() => {
      rssPeak = Math.max(rssPeak, memory(pid, 'VmRSS'))
    }, 10)
    const socket = net.connect(PORT, '127.0.0.1')
    let rows = 0
    let tail: Buffer = Buffer.alloc(0)
    const started = process.hrtime.bigint()
    socket.on('connect', () => socket.write(requestBytes(SET)))
    socket.on('data', (chunk: Buffer) => {
      // Count rows by their first property, keeping a few bytes across chunk borders.
      const data = tail.length > 0 ? Buffer.concat([tail, chunk]) : chunk
      for (let at = data.indexOf(ROW_MARK); at >= 0; at = data.indexOf(ROW_MARK, at + ROW_MARK.length)) rows++
      tail = data.subarray(Math.max(0, data.length - ROW_MARK.length + 1))
      if (data.subarray(data.length - END_OF_CHUNKS.length).equals(END_OF_CHUNKS)) {
        const seconds = Number(process.hrtime.bigint() - started) / 1e9
        clearInterval(sampler)
        rssPeak = Math.max(rssPeak, memory(pid, 'VmRSS'))
        socket.destroy()
        resolve({ seconds, rows, rssBefore, rssPeak })
      }
    })
    socket.on('error', (error) => {
      clearInterval(sampler)
      reject(error)
    })
  })
}

/** Milliseconds from sending a request to its first response byte (the rest is not read). */
function firstByte(path: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(PORT, '127.0.0.1')
    let started = 0n
    socket.on('connect', () => {
      started = process.hrtime.bigint()
      socket.write(requestBytes(path))
    })
    socket.once('data', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6
      socket.destroy()
      resolve(ms)
    })
    socket.on('error', reject)
  })
}

/** One page: milliseconds for the whole body, its rows and its next link. */
function fetchPage(pathAndQuery: string): Promise<{ ms: number; rows: number; next: string | undefined }> {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint()
    const request = http.request(
      {
        host: '127.0.0.1',
        port: PORT,
        path: pathAndQuery,
        agent: false,
        headers: { Authorization: AUTHORIZATION, Prefer: 'odata.maxpagesize=5000' },
      },
      (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => {
          const ms = Number(process.hrtime.bigint() - started) / 1e6
          const body = Buffer.concat(chunks)
          if (response.statusCode !== 200)
            return reject(new Error(`${pathAndQuery}: ${response.statusCode} ${body.subarray(0, 300).toString()}`))
          let rows = 0
          for (let at = body.indexOf(ROW_MARK); at >= 0; at = body.indexOf(ROW_MARK, at + ROW_MARK.length)) rows++
          const tail = body.subarray(Math.max(0, body.length - 2048)).toString('utf8')
          const match = /"@odata\.nextLink":"([^"]+)"\}$/.exec(tail)
          resolve({ ms, rows, next: match ? match[1]!.slice(match[1]!.indexOf(ROOT)) : undefined })
        })
      },
    )
    request.on('error', reject)
    request.end()
  })
}

/**
 * Other benchmarks (posting) may add movements to the shared bench database while this one runs, so a
 * count may grow a little; a count far off means rows were lost or repeated.
 */
function checkRows(what: string, rows: number): void {
  if (Math.abs(rows - rowCount) > rowCount * 0.05) throw new Error(`${what} gave ${rows} rows, expected about ${rowCount}`)
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!

const service = await startChild(['service', String(PORT)])
try {
  const pid = service.pid!
  // 1. Throughput and memory. A warm-up export first (buffer pool, JIT), then baseline, service, baseline.
  const warm = await exportOnce(pid)
  checkRows('the service export', warm.rows)
  const before = await baselineRowsPerSecond()
  const measured = await exportOnce(pid)
  const after = await baselineRowsPerSecond()
  const baseline = (before + after) / 2
  const serviceRowsPerSecond = measured.rows / measured.seconds
  printResult({
    benchmark: 'export-records',
    figure: serviceRowsPerSecond,
    unit: 'rows/s',
    baseline,
    baselineName: 'raw mysql2 stream + JSON.stringify, same SQL',
    target: 0.7,
    extra: { rows: measured.rows, seconds: measured.seconds },
  })
  const growthMB = (measured.rssPeak - measured.rssBefore) / 1048576
  printResult({
    benchmark: 'export-records-memory',
    figure: Math.max(growthMB, 0.01),
    unit: 'MB',
    baseline: 100,
    baselineName: 'limit; figure: peak RSS growth during the export',
    target: 1,
    lowerIsBetter: true,
    extra: { rssBeforeMB: measured.rssBefore / 1048576, rssPeakMB: measured.rssPeak / 1048576, vmHwmMB: memory(pid, 'VmHWM') / 1048576 },
  })

  // 2. Paged export: follow every link, then time the first and the last page again, alternately.
  const firstPath = `${ROOT}${SET}`
  let next: string | undefined = firstPath
  let lastPath = firstPath
  // The very last page holds the remainder; the last full one is the fair comparison with the first.
  let lastFullPath = firstPath
  let lastRows = 0
  let pages = 0
  let pagedRows = 0
  const pagedStarted = process.hrtime.bigint()
  while (next !== undefined) {
    const page = await fetchPage(next)
    pages++
    pagedRows += page.rows
    lastPath = next
    lastRows = page.rows
    if (page.rows === 5000) lastFullPath = next
    next = page.next
  }
  const pagedSeconds = Number(process.hrtime.bigint() - pagedStarted) / 1e9
  checkRows('the paged export', pagedRows)
  const firstTimes: number[] = []
  const lastFullTimes: number[] = []
  const lastTimes: number[] = []
  for (let i = 0; i < REPEATS; i++) {
    firstTimes.push((await fetchPage(firstPath)).ms)
    lastFullTimes.push((await fetchPage(lastFullPath)).ms)
    lastTimes.push((await fetchPage(lastPath)).ms)
  }
  printResult({
    benchmark: 'export-records-paged',
    figure: Math.max(median(lastFullTimes), median(lastTimes)),
    unit: 'ms',
    baseline: median(firstTimes),
    baselineName: 'first page; figure: the slower of the last full page and the last page',
    target: 0.5,
    lowerIsBetter: true,
    extra: {
      pages,
      rows: pagedRows,
      seconds: pagedSeconds,
      lastFullPageMs: median(lastFullTimes),
      lastPageMs: median(lastTimes),
      lastPageRows: lastRows,
    },
  })
  console.log(
    `  paged export: ${pages} pages in ${pagedSeconds.toFixed(1)} s; first page ${median(firstTimes).toFixed(1)} ms, last full page ${median(lastFullTimes).toFixed(1)} ms, last page (${lastRows} rows) ${median(lastTimes).toFixed(1)} ms`,
  )

  // 3. Time to the first byte: the whole export against ten rows. A pause after each, so that the
  // abandoned export's query has ended on the server before the next request is timed.
  const fullTimes: number[] = []
  const tenTimes: number[] = []
  const pause = () => new Promise((resolve) => setTimeout(resolve, 300))
  await firstByte(`${SET}?$top=10`)
  await pause()
  for (let i = 0; i < REPEATS; i++) {
    tenTimes.push(await firstByte(`${SET}?$top=10`))
    await pause()
    fullTimes.push(await firstByte(SET))
    await pause()
  }
  printResult({
    benchmark: 'export-records-first-byte',
    figure: median(fullTimes),
    unit: 'ms',
    baseline: median(tenTimes),
    baselineName: 'first byte of a ten-row read; figure: of the whole export',
    target: 1 / 3,
    lowerIsBetter: true,
  })
} finally {
  service.kill()
}
