// The service's metrics in the Prometheus text format (prom-client), served at `GET /metrics`
// (src/http/metrics-endpoint.ts). One registry per process; with several worker processes the primary
// sums them (src/ops/workers.ts). Each stage counts what it alone knows: the HTTP layer requests and their
// latency, the batch stage operations and change sets, the streamer rows, the rate rules refusals, the
// request log its failed writes; the pool gauges are read at scrape time.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { RequestMetrics } from './request-metrics.js'

export const metricsRegistry = new Registry()
collectDefaultMetrics({ register: metricsRegistry })

/** Seconds; from a key read (milliseconds) to a large export or batch (tens of seconds). */
const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60]

/** Requests by flavour, method and status, and their latency (request-metrics.ts: counted on every answer). */
const requestMetrics = new RequestMetrics(metricsRegistry, {
  countName: 'odata_requests_total',
  countHelp:
    'Requests answered, by service root flavour (reference, token; none outside the roots), method and status (0: the client left first)',
  durationName: 'odata_request_duration_seconds',
  durationHelp: 'Time from the request head to the end of the answer, by flavour and method',
  buckets: LATENCY_BUCKETS,
})

export const batchOperationsTotal = new Counter({
  name: 'odata_batch_operations_total',
  help: 'Operations of $batch requests that passed the plan and the rate rules',
  registers: [metricsRegistry],
})

export const batchChangeSetsTotal = new Counter({
  name: 'odata_batch_change_sets_total',
  help: 'Change sets (atomicity groups) of $batch requests that passed the plan and the rate rules',
  registers: [metricsRegistry],
})

export const batchDuration = new Histogram({
  name: 'odata_batch_duration_seconds',
  help: 'Time to run a $batch from its read body to its answer (plan, rate rules, execution, log)',
  buckets: LATENCY_BUCKETS,
  registers: [metricsRegistry],
})

export const rowsStreamedTotal = new Counter({
  name: 'odata_rows_streamed_total',
  help: 'Rows written into streamed answers (collections, virtual tables, expansions excluded)',
  registers: [metricsRegistry],
})

export const rateLimitRefusalsTotal = new Counter({
  name: 'odata_rate_limit_refusals_total',
  help: 'Requests refused 429 by a profile rate rule, by subject',
  labelNames: ['subject'] as const,
  registers: [metricsRegistry],
})

export const requestLogFailuresTotal = new Counter({
  name: 'odata_request_log_failures_total',
  help: 'Request-log failures: entries of single requests lost (each one that failed even written alone), and batch log writes that failed (answered 500 LogWriteFailed)',
  registers: [metricsRegistry],
})

/** The part of a mysql2 pool the gauges read (its callback pool's queues). */
export interface ObservablePool {
  readonly pool: {
    readonly _allConnections: { length: number }
    readonly _freeConnections: { length: number }
    readonly _connectionQueue: { length: number }
  }
}

const pools = new Set<ObservablePool>()

new Gauge({
  name: 'odata_pool_connections_in_use',
  help: 'MySQL connections taken from the pool',
  registers: [metricsRegistry],
  collect() {
    let inUse = 0
    for (const { pool } of pools) inUse += pool._allConnections.length - pool._freeConnections.length
    this.set(inUse)
  },
})

new Gauge({
  name: 'odata_pool_connections_open',
  help: 'MySQL connections the pool holds open, in use or idle',
  registers: [metricsRegistry],
  collect() {
    let open = 0
    for (const { pool } of pools) open += pool._allConnections.length
    this.set(open)
  },
})

new Gauge({
  name: 'odata_pool_waiting',
  help: 'Requests waiting for a MySQL connection from the pool',
  registers: [metricsRegistry],
  collect() {
    let waiting = 0
    for (const { pool } of pools) waiting += pool._connectionQueue.length
    this.set(waiting)
  },
})

/** The pool of a running server, read by the gauges until `unwatchPool`. */
export function watchPool(pool: ObservablePool): void {
  pools.add(pool)
}

export function unwatchPool(pool: ObservablePool): void {
  pools.delete(pool)
}

/** The methods the service answers as themselves; a series per method anyone can invent would grow without end. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'MERGE', 'DELETE', 'OPTIONS'])

/** A label from a closed set: the method, when the service knows it, else `other`. */
export function methodLabel(method: string): string {
  return KNOWN_METHODS.has(method) ? method : 'other'
}

/** One answered request: counted and timed. */
export function observeRequest(flavour: string, method: string, status: number, seconds: number): void {
  requestMetrics.observe(flavour, methodLabel(method), status, seconds)
}

/** The text a scrape gets: this process's registry, or (in a worker process) the sum over every process. */
let source: () => Promise<string> = () => metricsRegistry.metrics()

export function metricsText(): Promise<string> {
  return source()
}

/** Worker processes ask the primary, which sums every process's registry (src/ops/workers.ts). */
export function useMetricsSource(next: () => Promise<string>): void {
  source = next
}

export const METRICS_CONTENT_TYPE = metricsRegistry.contentType
