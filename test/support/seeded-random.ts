// The seeded generator of the fuzz tests: small and deterministic, so a failure can be replayed from the
// seed (mulberry32). The seed generator of the demo data is another one (src/seed/random.ts), kept apart
// so that changing either never changes what the other produces.
export function mulberry32(seed: number): () => number {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let value = state
    value = Math.imul(value ^ (value >>> 15), value | 1)
    value ^= value + Math.imul(value ^ (value >>> 7), value | 61)
    return ((value ^ (value >>> 14)) >>> 0) / 4294967296
  }
}
