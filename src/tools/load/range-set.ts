// Row numbers as sorted, merged ranges: a load's acknowledged rows are mostly one run from the start,
// so the checkpoint's memory stays a few ranges however many rows went through.
export class RangeSet {
  /** Sorted, disjoint, non-adjacent [from, to] pairs. */
  private readonly ranges: [number, number][] = []

  get size(): number {
    let total = 0
    for (const [from, to] of this.ranges) total += to - from + 1
    return total
  }

  /** Index of the first range whose end is ≥ n. */
  private find(n: number): number {
    let low = 0
    let high = this.ranges.length
    while (low < high) {
      const mid = (low + high) >> 1
      if (this.ranges[mid]![1] < n) low = mid + 1
      else high = mid
    }
    return low
  }

  has(n: number): boolean {
    const range = this.ranges[this.find(n)]
    return range !== undefined && range[0] <= n
  }

  add(from: number, to = from): void {
    const i = this.find(from - 1)
    let start = from
    let end = to
    let remove = 0
    while (i + remove < this.ranges.length && this.ranges[i + remove]![0] <= to + 1) {
      start = Math.min(start, this.ranges[i + remove]![0])
      end = Math.max(end, this.ranges[i + remove]![1])
      remove++
    }
    this.ranges.splice(i, remove, [start, end])
  }

  entries(): readonly (readonly [number, number])[] {
    return this.ranges
  }

  /** `1-50,52,54-60` */
  toString(): string {
    return this.ranges.map(([from, to]) => (from === to ? String(from) : `${from}-${to}`)).join(',')
  }

  static parse(text: string): RangeSet {
    const set = new RangeSet()
    for (const part of text.split(',')) {
      if (part === '') continue
      const [from, to] = part.split('-').map(Number)
      set.add(from!, to ?? from!)
    }
    return set
  }
}
