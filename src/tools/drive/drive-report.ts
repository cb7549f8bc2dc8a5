// What a drive run measured, as written to its JSON report: the figures benchmark users compare
// (operations/s, rows/s, latency percentiles per batch shape, errors by status and code), the
// timeline they are drawn from, the server's CPU and memory when its pid was given, the driver's own
// cost, and warnings when the driver rather than the service set the pace.
import type { LatencySummary } from './latency-record.js'
import type { ProcessSample } from './process-sampler.js'

export interface ShapeFigures {
  readonly kind: string
  readonly batches: number
  readonly failedBatches: number
  readonly operations: number
  readonly rows: number
  readonly operationsPerSecond: number
  readonly rowsPerSecond: number
  readonly latencyMs: LatencySummary
  /** `status code` → operations (or whole batches) that failed so. */
  readonly errors: Readonly<Record<string, number>>
  /** Latency histogram, for the chart. */
  readonly latencyHistogram: readonly { from: number; to: number; count: number }[]
}

export interface TimelinePoint {
  readonly second: number
  readonly batches: number
  readonly operations: number
  readonly rows: number
  readonly errors: number
}

export interface DriveReport {
  readonly tool: 'odata-registers drive'
  readonly version: 1
  readonly target: string
  readonly startedAt: string
  readonly workload: unknown
  readonly seconds: number
  readonly totals: {
    readonly batches: number
    readonly operations: number
    readonly rows: number
    readonly batchesPerSecond: number
    readonly operationsPerSecond: number
    readonly rowsPerSecond: number
    readonly failedBatches: number
    readonly errors: number
  }
  readonly shapes: Readonly<Record<string, ShapeFigures>>
  readonly errors: Readonly<Record<string, number>>
  readonly timeline: readonly TimelinePoint[]
  readonly server?: {
    readonly pid: number
    /** The most processes sampled at once: the pid given and its workers, summed in every figure. */
    readonly processes: number
    readonly samples: readonly ProcessSample[]
    readonly cpuPercentMean: number
    readonly rssMBMax: number
  }
  readonly driver: {
    readonly cpuPercent: number
    readonly eventLoopDelayP99Ms: number
    readonly samples: readonly ProcessSample[]
    /** Batches that started later than their slot under `rate` (10 ms or more). */
    readonly lateStarts: number
  }
  readonly warnings: readonly string[]
}

/** Why the figures might say more about the driver than about the service. */
export function driverWarnings(figures: {
  cpuPercent: number
  eventLoopDelayP99Ms: number
  rate?: number
  batchesPerSecond: number
  lateStarts: number
  batches: number
  serverCpuPercent?: number
}): string[] {
  const warnings: string[] = []
  if (figures.cpuPercent >= 85)
    warnings.push(
      `the driver was the bottleneck: it used ${Math.round(figures.cpuPercent)}% of a core (one JavaScript thread); run fewer shapes that build bodies per batch, or several drivers`,
    )
  if (figures.eventLoopDelayP99Ms >= 50) {
    // A late event loop with a busy driver is the driver's doing; with an idle one, the machine's (the
    // service, MySQL and the driver sharing too few cores).
    const why =
      figures.cpuPercent >= 85
        ? 'the driver was busy'
        : `the driver used ${Math.round(figures.cpuPercent)}% of a core, so the machine was short of CPU`
    warnings.push(
      `the driver's event loop was late by ${Math.round(figures.eventLoopDelayP99Ms)} ms (p99; ${why}): latencies include that delay`,
    )
  }
  if (figures.rate !== undefined && figures.batchesPerSecond < figures.rate * 0.95) {
    const who = figures.cpuPercent >= 85 ? 'the driver' : 'the service (or the concurrency)'
    warnings.push(
      `asked for ${figures.rate} batches/s, sent ${figures.batchesPerSecond.toFixed(1)}: ${who} did not keep up (${figures.lateStarts} of ${figures.batches} batches started late)`,
    )
  }
  return warnings
}
