// Deterministic randomness for the seed generator: the same seed gives the same data on every run
// and every machine (sfc32, a small fast generator with a 128-bit state).
export class Random {
  private a: number
  private b: number
  private c: number
  private d: number

  constructor(seed: number) {
    this.a = 0x9e3779b9
    this.b = 0x243f6a88
    this.c = 0xb7e15162
    this.d = seed >>> 0
    for (let i = 0; i < 15; i++) this.next()
  }

  /** A uniform 32-bit unsigned integer. */
  nextUint32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0
    this.d = (this.d + 1) | 0
    this.a = this.b ^ (this.b >>> 9)
    this.b = (this.c + (this.c << 3)) | 0
    this.c = (this.c << 21) | (this.c >>> 11)
    this.c = (this.c + t) | 0
    return t >>> 0
  }

  /** Uniform in [0, 1). */
  next(): number {
    return this.nextUint32() / 4294967296
  }

  /** Uniform integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1))
  }

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)]!
  }

  /** A version-4-shaped GUID, lowercase. */
  guid(): string {
    const hex = (n: number) => n.toString(16).padStart(8, '0')
    const a = hex(this.nextUint32()),
      b = hex(this.nextUint32()),
      c = hex(this.nextUint32()),
      d = hex(this.nextUint32())
    const variant = ((parseInt(c[0]!, 16) & 0x3) | 0x8).toString(16)
    return `${a}-${b.slice(0, 4)}-4${b.slice(5, 8)}-${variant}${c.slice(1, 4)}-${c.slice(4)}${d}`
  }
}

/**
 * Zipf-like popularity over n items: item k (0-based) is drawn with weight 1/(k+1)^s. Sampling is a
 * binary search over the cumulative weights, O(log n) per draw.
 */
export class ZipfSampler {
  private readonly cumulative: Float64Array

  constructor(n: number, exponent = 1.0) {
    this.cumulative = new Float64Array(n)
    let sum = 0
    for (let k = 0; k < n; k++) {
      sum += 1 / (k + 1) ** exponent
      this.cumulative[k] = sum
    }
  }

  sample(random: Random): number {
    const total = this.cumulative[this.cumulative.length - 1]!
    const target = random.next() * total
    let low = 0
    let high = this.cumulative.length - 1
    while (low < high) {
      const mid = (low + high) >>> 1
      if (this.cumulative[mid]! < target) low = mid + 1
      else high = mid
    }
    return low
  }
}

/** The generator as a function of no arguments, uniform in [0, 1), for code that only draws numbers (the fuzz tests replay a failure from its seed). */
export function seededRandom(seed: number): () => number {
  const random = new Random(seed)
  return () => random.next()
}
