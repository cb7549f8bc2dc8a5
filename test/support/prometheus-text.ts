// Reads the Prometheus text format as /metrics writes it: `name{label="value",…} number` per line.
export type Samples = ReadonlyMap<string, number>

export function parseSamples(text: string): Samples {
  const samples = new Map<string, number>()
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue
    const space = line.lastIndexOf(' ')
    samples.set(line.slice(0, space), Number(line.slice(space + 1)))
  }
  return samples
}

/** A sample by name and labels (written in any order), 0 when absent. */
export function sample(samples: Samples, name: string, labels: Readonly<Record<string, string>> = {}): number {
  const wanted = Object.entries(labels)
  for (const [key, value] of samples) {
    const match = /^([^{]+)(?:\{(.*)\})?$/.exec(key)!
    if (match[1] !== name) continue
    const have = new Map([...(match[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((m) => [m[1]!, m[2]!] as const))
    if (have.size === wanted.length && wanted.every(([k, v]) => have.get(k) === v)) return value
  }
  return 0
}
