// WORKERS=N: N service processes on one port. Each worker runs its own uWS server, which listens with
// SO_REUSEPORT (uWS's default on Linux; LIBUS_LISTEN_EXCLUSIVE_PORT would turn it off), so the kernel
// spreads new connections over the workers and the primary stays out of the data path. node:cluster
// only forks, watches and talks to them: its own port sharing (the primary accepting and handing sockets
// round-robin) works for net.Server alone, not for uWS's native sockets. The workers share nothing but
// MySQL: the settings (reread every two seconds), the rate counters and kept responses live there.
//
// The primary migrates and seeds once, then forks; prints the URLs when every worker listens; forks a
// worker again when one dies unexpectedly; on SIGTERM/SIGINT asks each worker to stop gracefully (a
// second signal: at once) and exits when all have. A scrape of /metrics on any worker returns the sum
// over every worker (prom-client's AggregatorRegistry, asked through the primary).
import cluster, { type Worker } from 'node:cluster'
import net from 'node:net'
import { AggregatorRegistry } from 'prom-client'
import { logger } from '../log/logger.js'
import { metricsRegistry, useMetricsSource } from '../metrics/service-metrics.js'
import type { GracefulStopper } from './graceful-stop.js'

type Message =
  | { readonly type: 'odata:ready' }
  | { readonly type: 'odata:stop' }
  | { readonly type: 'odata:stop-now' }
  | { readonly type: 'odata:metrics?'; readonly id: number }
  | { readonly type: 'odata:metrics'; readonly id: number; readonly text?: string; readonly error?: string }

const isMessage = (value: unknown): value is Message =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as { type?: unknown }).type === 'string' &&
  (value as { type: string }).type.startsWith('odata:')

/** Throws when another process listens on the port; with port 0 returns one that is free now. */
export async function claimPort(host: string, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new Error(
          error.code === 'EADDRINUSE'
            ? `Port ${port} on ${host} is taken by another process`
            : `Cannot listen on ${host}:${port}: ${error.message}`,
        ),
      ),
    )
    probe.listen({ host, port, exclusive: true }, () => {
      const chosen = (probe.address() as net.AddressInfo).port
      probe.close(() => resolve(chosen))
    })
  })
}

export interface WorkerPool {
  readonly count: number
}

/** The primary: forks `count` workers of this same command and resolves once every one listens. */
export async function startWorkers(count: number, environment: Readonly<Record<string, string>>): Promise<WorkerPool> {
  const aggregator = new AggregatorRegistry()
  let stopping = false
  const exitCodes: number[] = []

  const answerMetrics = (worker: Worker, id: number) => {
    aggregator.clusterMetrics().then(
      (text) => worker.send({ type: 'odata:metrics', id, text } satisfies Message),
      (error: Error) => worker.send({ type: 'odata:metrics', id, error: error.message } satisfies Message),
    )
  }

  const fork = (): Promise<void> =>
    new Promise((resolve) => {
      const worker = cluster.fork(environment)
      worker.on('message', (message: unknown) => {
        if (!isMessage(message)) return
        if (message.type === 'odata:ready') resolve()
        else if (message.type === 'odata:metrics?') answerMetrics(worker, message.id)
      })
      worker.once('exit', (code, signal) => {
        exitCodes.push(code ?? 1)
        if (stopping) return
        logger.error({ pid: worker.process.pid, code, signal }, 'a worker process ended unexpectedly; starting another')
        setTimeout(() => void fork(), 1000).unref()
      })
    })

  const workers = () => Object.values(cluster.workers ?? {}).filter((worker): worker is Worker => worker !== undefined)
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: the worker processes stop at once')
      for (const worker of workers()) worker.process.kill('SIGKILL')
      process.exit(130)
    }
    stopping = true
    logger.info({ signal, workers: workers().length }, 'stopping the worker processes gracefully')
    for (const worker of workers()) if (worker.isConnected()) worker.send({ type: 'odata:stop' } satisfies Message)
    const waitForAll = () => {
      if (workers().length > 0) return void setTimeout(waitForAll, 50)
      logger.info('stopped')
      process.exit(exitCodes.every((code) => code === 0) ? 0 : 1)
    }
    waitForAll()
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)

  await Promise.all(Array.from({ length: count }, fork))
  return { count }
}

/**
 * A worker: registers its metrics for the primary's sums, answers scrapes with those sums, tells the
 * primary it listens, and stops when asked (or when the primary is gone). SIGINT is the terminal's
 * Ctrl-C sent to the whole group: the primary handles it, the worker waits for the primary's word.
 */
export function serveAsWorker(stopper: GracefulStopper): void {
  AggregatorRegistry.setRegistries([metricsRegistry])
  // Constructing one is what makes prom-client answer the primary's requests in this process.
  new AggregatorRegistry()
  let nextId = 0
  const waiting = new Map<number, { resolve: (text: string) => void; reject: (error: Error) => void }>()
  useMetricsSource(
    () =>
      new Promise((resolve, reject) => {
        const id = nextId++
        waiting.set(id, { resolve, reject })
        process.send!({ type: 'odata:metrics?', id } satisfies Message)
      }),
  )
  process.on('message', (message: unknown) => {
    if (!isMessage(message)) return
    if (message.type === 'odata:stop') stopper.request()
    else if (message.type === 'odata:stop-now') stopper.immediate()
    else if (message.type === 'odata:metrics') {
      const request = waiting.get(message.id)
      waiting.delete(message.id)
      if (message.text !== undefined) request?.resolve(message.text)
      else request?.reject(new Error(message.error ?? 'no metrics'))
    }
  })
  process.on('SIGTERM', stopper.signal)
  process.on('SIGINT', () => undefined)
  process.on('disconnect', () => stopper.request())
  process.send!({ type: 'odata:ready' } satisfies Message)
}

export const isWorkerProcess = (): boolean => cluster.isWorker
