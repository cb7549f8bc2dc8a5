// Latencies of one batch shape, every one kept (a run is bounded in time, so the count is), for exact
// percentiles and the distribution chart.
export interface LatencySummary {
  readonly count: number
  readonly mean: number
  readonly p50: number
  readonly p90: number
  readonly p99: number
  readonly max: number
}

export class LatencyRecord {
  private values = new Float64Array(1024)
  private length = 0

  add(milliseconds: number): void {
    if (this.length === this.values.length) {
      const grown = new Float64Array(this.values.length * 2)
      grown.set(this.values)
      this.values = grown
    }
    this.values[this.length++] = milliseconds
  }

  sorted(): Float64Array {
    return this.values.slice(0, this.length).sort()
  }

  summary(): LatencySummary {
    const sorted = this.sorted()
    const at = (q: number) => (sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)]!)
    let sum = 0
    for (const v of sorted) sum += v
    return {
      count: sorted.length,
      mean: sorted.length ? sum / sorted.length : 0,
      p50: at(0.5),
      p90: at(0.9),
      p99: at(0.99),
      max: sorted.length ? sorted[sorted.length - 1]! : 0,
    }
  }

  /** Counts in `bins` equal bins from 0 to the max, for a histogram. */
  histogram(bins: number): { from: number; to: number; count: number }[] {
    const sorted = this.sorted()
    if (sorted.length === 0) return []
    const max = sorted[sorted.length - 1]!
    const width = max / bins || 1
    const counts = new Array<number>(bins).fill(0)
    for (const v of sorted) counts[Math.min(bins - 1, Math.floor(v / width))]!++
    return counts.map((count, i) => ({ from: i * width, to: (i + 1) * width, count }))
  }
}
