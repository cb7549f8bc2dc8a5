// The two metrics every answer moves: `odata_requests_total` (by flavour, method and status) and
// `odata_request_duration_seconds` (by flavour and method). They are counted on the hottest path of the
// service, once per request: prom-client's own Counter and Histogram find a series by building and
// validating a labels object and hashing it, and a bucket through an object keyed by the bound's number,
// which cost more per request under load than the rest of the metrics work together (a profile of GET by
// key). Here a series is found through two small maps and a bucket by index; the registry is given the same
// samples, in prom-client's own shape, only when it is scraped.
import type { Metric, Registry } from 'prom-client'

interface Sample {
  readonly labels: Record<string, string | number>
  readonly value: number
  readonly metricName?: string
}

interface Series {
  readonly labels: { readonly flavour: string; readonly method: string }
  readonly byStatus: Map<number, number>
  /** Observations per bucket (not cumulative), the last one past every bound (`+Inf`). */
  readonly buckets: Float64Array
  count: number
  sum: number
}

export interface RequestMetricsOptions {
  readonly countName: string
  readonly countHelp: string
  readonly durationName: string
  readonly durationHelp: string
  /** Upper bounds of the duration buckets, in seconds, ascending. */
  readonly buckets: readonly number[]
}

export class RequestMetrics {
  private series = new Map<string, Map<string, Series>>()

  constructor(
    registry: Registry,
    private readonly options: RequestMetricsOptions,
  ) {
    // The registry reads `name`, `help`, `type`, `aggregator` (how worker processes' samples combine) and
    // calls `get()` at a scrape and `reset()` when it resets every metric.
    const reset = () => {
      this.series = new Map()
    }
    const count = {
      name: options.countName,
      help: options.countHelp,
      type: 'counter',
      aggregator: 'sum',
      get: async () => ({ ...describe(count), values: this.countSamples() }),
      reset,
    }
    const duration = {
      name: options.durationName,
      help: options.durationHelp,
      type: 'histogram',
      aggregator: 'sum',
      get: async () => ({ ...describe(duration), values: this.durationSamples(duration.name) }),
      reset,
    }
    registry.registerMetric(count as unknown as Metric)
    registry.registerMetric(duration as unknown as Metric)
  }

  /** One answered request. */
  observe(flavour: string, method: string, status: number, seconds: number): void {
    let byMethod = this.series.get(flavour)
    if (byMethod === undefined) this.series.set(flavour, (byMethod = new Map()))
    let series = byMethod.get(method)
    if (series === undefined) {
      series = {
        labels: { flavour, method },
        byStatus: new Map(),
        buckets: new Float64Array(this.options.buckets.length + 1),
        count: 0,
        sum: 0,
      }
      byMethod.set(method, series)
    }
    series.byStatus.set(status, (series.byStatus.get(status) ?? 0) + 1)
    series.count++
    series.sum += seconds
    const bounds = this.options.buckets
    let bucket = 0
    while (bucket < bounds.length && seconds > bounds[bucket]!) bucket++
    series.buckets[bucket]!++
  }

  private *allSeries(): Generator<Series> {
    for (const byMethod of this.series.values()) yield* byMethod.values()
  }

  private countSamples(): Sample[] {
    const samples: Sample[] = []
    for (const series of this.allSeries())
      for (const [status, value] of series.byStatus) samples.push({ labels: { ...series.labels, status: String(status) }, value })
    return samples
  }

  /** Cumulative buckets, `+Inf`, sum and count per series, as Prometheus histograms are exposed. */
  private durationSamples(name: string): Sample[] {
    const samples: Sample[] = []
    const bounds = this.options.buckets
    for (const series of this.allSeries()) {
      let cumulative = 0
      for (let i = 0; i < bounds.length; i++) {
        cumulative += series.buckets[i]!
        samples.push({ labels: { le: bounds[i]!, ...series.labels }, value: cumulative, metricName: `${name}_bucket` })
      }
      samples.push(
        { labels: { le: '+Inf', ...series.labels }, value: series.count, metricName: `${name}_bucket` },
        { labels: { ...series.labels }, value: series.sum, metricName: `${name}_sum` },
        { labels: { ...series.labels }, value: series.count, metricName: `${name}_count` },
      )
    }
    return samples
  }
}

function describe(metric: { name: string; help: string; type: string; aggregator: string }) {
  return { name: metric.name, help: metric.help, type: metric.type, aggregator: metric.aggregator }
}
