// Runs a workload against a service root: `concurrency` workers, each with its batch in flight on a
// keep-alive connection of its own, taking shapes in the weights' proportions (smooth weighted round
// robin, so a short run has the mix asked for), paced by `rate` when given; a warm-up that is sent but
// not counted; then the measured part, by duration or count. Each batch's latency is from sending to
// the end of its answer.
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { errorOf, ServiceClient } from '../shared/service-client.js'
import { answerFigures, buildShape, type BuiltShape } from './batch-shapes.js'
import { driverWarnings, type DriveReport, type ShapeFigures, type TimelinePoint } from './drive-report.js'
import { LatencyRecord } from './latency-record.js'
import { ProcessSampler } from './process-sampler.js'
import type { Workload } from './workload.js'

interface ShapeState {
  readonly shape: BuiltShape
  readonly latencies: LatencyRecord
  batches: number
  failedBatches: number
  operations: number
  rows: number
  readonly errors: Record<string, number>
  current: number
}

export interface RunOptions {
  readonly serverPid?: number
  /** Called once a second with the batches so far (for a progress line). */
  readonly onSecond?: (point: TimelinePoint) => void
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export async function runWorkload(workload: Workload, options: RunOptions = {}): Promise<DriveReport> {
  const client = new ServiceClient({ root: workload.root, headers: workload.headers, connections: workload.concurrency })
  const states: ShapeState[] = workload.shapes.map((spec) => ({
    shape: buildShape(spec, workload.format),
    latencies: new LatencyRecord(),
    batches: 0,
    failedBatches: 0,
    operations: 0,
    rows: 0,
    errors: {},
    current: 0,
  }))
  const totalWeight = states.reduce((sum, s) => sum + s.shape.spec.weight, 0)
  const pick = (): ShapeState => {
    let best = states[0]!
    for (const state of states) {
      state.current += state.shape.spec.weight
      if (state.current > best.current) best = state
    }
    best.current -= totalWeight
    return best
  }

  const timeline = new Map<number, { batches: number; operations: number; rows: number; errors: number }>()
  let measuring = false
  let measureStart = 0
  let measured = 0
  let stopping = false
  let lateStarts = 0
  const warmupEnd = performance.now() + workload.warmup * 1000
  const serverSampler = options.serverPid !== undefined ? new ProcessSampler(options.serverPid) : undefined
  const driverSampler = new ProcessSampler(process.pid)
  const loopDelay = monitorEventLoopDelay({ resolution: 10 })
  let cpuAtStart = process.cpuUsage()

  const beginMeasuring = () => {
    measuring = true
    measureStart = performance.now()
    cpuAtStart = process.cpuUsage()
    loopDelay.enable()
    serverSampler?.start(measureStart)
    driverSampler.start(measureStart)
  }
  if (workload.warmup === 0) beginMeasuring()

  // Pacing under `rate`: slot k starts at origin + k / rate; a worker takes the next free slot.
  let slot = 0
  let rateOrigin = performance.now()
  const waitForSlot = async () => {
    if (workload.rate === undefined) return
    const at = rateOrigin + (slot++ * 1000) / workload.rate
    const wait = at - performance.now()
    if (wait > 0) await sleep(wait)
    else if (wait < -10 && measuring) lateStarts++
  }

  const record = (
    state: ShapeState,
    started: number,
    ended: number,
    operations: number,
    rows: number,
    errors: Record<string, number>,
    batchFailed: boolean,
  ) => {
    state.batches++
    state.operations += operations
    state.rows += rows
    if (batchFailed) state.failedBatches++
    let errorCount = 0
    for (const [key, n] of Object.entries(errors)) {
      state.errors[key] = (state.errors[key] ?? 0) + n
      errorCount += n
    }
    state.latencies.add(ended - started)
    const second = Math.floor((ended - measureStart) / 1000)
    const point = timeline.get(second) ?? { batches: 0, operations: 0, rows: 0, errors: 0 }
    point.batches++
    point.operations += operations
    point.rows += rows
    point.errors += errorCount
    timeline.set(second, point)
    measured++
  }

  const done = () => {
    if (!measuring) return false
    if (workload.count !== undefined && measured >= workload.count) return true
    return workload.duration !== undefined && performance.now() - measureStart >= workload.duration * 1000
  }

  let lastReported = -1
  const worker = async () => {
    while (!stopping) {
      if (!measuring && performance.now() >= warmupEnd) {
        beginMeasuring()
        rateOrigin = performance.now()
        slot = 0
      }
      if (done()) {
        stopping = true
        break
      }
      await waitForSlot()
      const state = pick()
      const batch = state.shape.next()
      const counted = measuring
      const started = performance.now()
      let operations = 0
      let rows = 0
      let errors: Record<string, number> = {}
      let failed = false
      try {
        const answer = await client.request('POST', '$batch', { headers: { 'content-type': batch.contentType }, body: batch.body })
        if (answer.status === 200) {
          const figures = answerFigures(state.shape, String(answer.headers['content-type'] ?? ''), answer.body)
          operations = figures.operations
          rows = figures.rows
          errors = { ...figures.errors }
          failed = Object.keys(errors).length > 0
        } else {
          const error = errorOf(answer)
          errors = { [`${answer.status} ${error.code}`]: 1 }
          failed = true
          if (answer.status === 429) await sleep((Number(answer.headers['retry-after']) || 1) * 1000)
        }
      } catch (error) {
        errors = { [`network ${(error as { code?: string }).code ?? (error as Error).message}`]: 1 }
        failed = true
        await sleep(100)
      }
      const ended = performance.now()
      if (counted && measuring) {
        record(state, started, ended, operations, rows, errors, failed)
        const second = Math.floor((ended - measureStart) / 1000)
        if (second > lastReported && options.onSecond && lastReported >= 0) {
          const point = timeline.get(lastReported)
          if (point) options.onSecond({ second: lastReported, ...point })
        }
        lastReported = Math.max(lastReported, second)
      }
    }
  }
  const measuredStart = Date.now()
  await Promise.all(Array.from({ length: workload.concurrency }, worker))
  const seconds = (performance.now() - measureStart) / 1000
  const cpu = process.cpuUsage(cpuAtStart)
  loopDelay.disable()
  serverSampler?.stop()
  driverSampler.stop()
  await client.close()

  const shapes: Record<string, ShapeFigures> = {}
  const allErrors: Record<string, number> = {}
  for (const state of states) {
    shapes[state.shape.spec.name] = {
      kind: state.shape.spec.kind,
      batches: state.batches,
      failedBatches: state.failedBatches,
      operations: state.operations,
      rows: state.rows,
      operationsPerSecond: state.operations / seconds,
      rowsPerSecond: state.rows / seconds,
      latencyMs: state.latencies.summary(),
      errors: state.errors,
      latencyHistogram: state.latencies.histogram(30),
    }
    for (const [key, n] of Object.entries(state.errors)) allErrors[key] = (allErrors[key] ?? 0) + n
  }
  const sum = (f: (s: ShapeFigures) => number) => Object.values(shapes).reduce((total, s) => total + f(s), 0)
  const batches = sum((s) => s.batches)
  const cpuPercent = ((cpu.user + cpu.system) / 1e6 / seconds) * 100
  const eventLoopDelayP99Ms = loopDelay.percentile(99) / 1e6
  const server = serverSampler
    ? {
        pid: serverSampler.pid,
        processes: serverSampler.processes,
        samples: serverSampler.samples,
        cpuPercentMean: serverSampler.samples.reduce((t, s) => t + s.cpuPercent, 0) / Math.max(1, serverSampler.samples.length),
        rssMBMax: Math.max(0, ...serverSampler.samples.map((s) => s.rssMB)),
      }
    : undefined
  return {
    tool: 'odata-registers drive',
    version: 1,
    target: workload.root,
    startedAt: new Date(measuredStart).toISOString(),
    workload: { ...workload, headers: Object.fromEntries(Object.keys(workload.headers).map((k) => [k, '…'])) },
    seconds,
    totals: {
      batches,
      operations: sum((s) => s.operations),
      rows: sum((s) => s.rows),
      batchesPerSecond: batches / seconds,
      operationsPerSecond: sum((s) => s.operations) / seconds,
      rowsPerSecond: sum((s) => s.rows) / seconds,
      failedBatches: sum((s) => s.failedBatches),
      errors: Object.values(allErrors).reduce((t, n) => t + n, 0),
    },
    shapes,
    errors: allErrors,
    // Whole seconds only: the last, cut short when the run ended, would show as a fall in throughput.
    timeline: [...timeline.entries()]
      .filter(([second]) => second < Math.max(1, Math.floor(seconds)))
      .sort((a, b) => a[0] - b[0])
      .map(([second, p]) => ({ second, ...p })),
    server,
    driver: { cpuPercent, eventLoopDelayP99Ms, samples: driverSampler.samples, lateStarts },
    warnings: driverWarnings({
      cpuPercent,
      eventLoopDelayP99Ms,
      rate: workload.rate,
      batchesPerSecond: batches / seconds,
      lateStarts,
      batches,
    }),
  }
}
