// The request metrics kept outside prom-client's Counter and Histogram expose exactly what those would:
// the same observations, fed to both, give the same samples in the text format, also after a reset, and
// the same when worker processes' registries are summed (AggregatorRegistry).
import t from 'tap'
import { AggregatorRegistry, Counter, Histogram, Registry } from 'prom-client'
import { RequestMetrics } from '../../src/metrics/request-metrics.js'
import { parseSamples } from '../support/prometheus-text.js'

const BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]
const NAMES = { countName: 'requests_total', countHelp: 'Requests', durationName: 'request_seconds', durationHelp: 'Latency' }

function pair() {
  const ours = new Registry()
  const metrics = new RequestMetrics(ours, { ...NAMES, buckets: BUCKETS })
  const theirs = new Registry()
  const counter = new Counter({
    name: NAMES.countName,
    help: NAMES.countHelp,
    labelNames: ['flavour', 'method', 'status'],
    registers: [theirs],
  })
  const histogram = new Histogram({
    name: NAMES.durationName,
    help: NAMES.durationHelp,
    labelNames: ['flavour', 'method'],
    buckets: BUCKETS,
    registers: [theirs],
  })
  const observe = (flavour: string, method: string, status: number, seconds: number) => {
    metrics.observe(flavour, method, status, seconds)
    counter.inc({ flavour, method, status: String(status) })
    histogram.observe({ flavour, method }, seconds)
  }
  return { ours, theirs, observe }
}

/** Seeded observations over every bucket edge, both flavours, several methods and statuses. */
function feed(observe: ReturnType<typeof pair>['observe'], count: number, seed: number): void {
  let state = seed
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648
  const flavours = ['reference', 'token', 'none']
  const methods = ['GET', 'POST', 'PATCH', 'DELETE', 'HEAD']
  const statuses = [200, 201, 204, 400, 401, 404, 429, 500, 0]
  for (let i = 0; i < count; i++) {
    const edge = next() < 0.2
    const seconds = edge ? BUCKETS[Math.floor(next() * BUCKETS.length)]! : next() ** 4 * 90
    observe(flavours[Math.floor(next() * 3)]!, methods[Math.floor(next() * 5)]!, statuses[Math.floor(next() * 9)]!, seconds)
  }
}

const sorted = (text: string) => [...parseSamples(text)].sort(([a], [b]) => (a < b ? -1 : 1))
/** Label order differs (prom-client writes `le` first or last by version); compared as sets of labels. */
const normalised = (text: string) =>
  sorted(text)
    .map(([key, value]) => {
      const match = /^([^{]+)(?:\{(.*)\})?$/.exec(key)!
      const labels = [...(match[2] ?? '').matchAll(/([a-zA-Z_]+)="((?:[^"\\]|\\.)*)"/g)].map((m) => `${m[1]}=${m[2]}`).sort()
      return `${match[1]}{${labels.join(',')}} ${value}`
    })
    .sort()

t.test('the same samples as prom-client for the same observations', async (t) => {
  const { ours, theirs, observe } = pair()
  t.same(normalised(await ours.metrics()), normalised(await theirs.metrics()), 'nothing observed')
  feed(observe, 5000, 7)
  const text = await ours.metrics()
  t.match(text, /# TYPE requests_total counter/)
  t.match(text, /# TYPE request_seconds histogram/)
  t.ok(normalised(text).length > 100, 'many series')
  t.same(normalised(text), normalised(await theirs.metrics()))
})

t.test('reset empties both metrics', async (t) => {
  const { ours, theirs, observe } = pair()
  feed(observe, 500, 11)
  ours.resetMetrics()
  theirs.resetMetrics()
  feed(observe, 200, 13)
  t.same(normalised(await ours.metrics()), normalised(await theirs.metrics()))
})

t.test('summed over processes as prom-client sums its own', async (t) => {
  const first = pair()
  const second = pair()
  feed(first.observe, 800, 17)
  feed(second.observe, 800, 19)
  const ours = AggregatorRegistry.aggregate([await first.ours.getMetricsAsJSON(), await second.ours.getMetricsAsJSON()])
  const theirs = AggregatorRegistry.aggregate([await first.theirs.getMetricsAsJSON(), await second.theirs.getMetricsAsJSON()])
  t.same(normalised(await ours.metrics()), normalised(await theirs.metrics()))
})
