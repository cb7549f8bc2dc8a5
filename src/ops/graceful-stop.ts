// SIGTERM / SIGINT: a graceful stop. The first signal stops accepting connections, lets the requests and
// batches in flight finish (at most STOP_TIMEOUT_SECONDS), writes the request log's buffer, closes the
// pool and exits 0 (1 when requests had to be cut off). A second signal exits at once (status 130), for
// an operator who will not wait. A worker process (src/ops/workers.ts) is also asked by its primary,
// which does not count as a signal: a signal sent to the whole process group and the primary's request
// together are one stop, not two.
import { logger } from '../log/logger.js'

export interface Stoppable {
  /** Resolves with the number of requests cut off when the time ran out. */
  stop(timeoutMs: number): Promise<number>
}

export interface GracefulStopOptions {
  readonly timeoutMs: number
  /** After the server: what else to close (the request log's buffer, the pool). */
  readonly release: () => Promise<void>
  /** The process's exit (replaced in tests of the sequence). */
  readonly exit?: (code: number) => void
}

export interface GracefulStopper {
  /** A signal: the first begins the stop, the second ends the process at once. */
  signal(signal: NodeJS.Signals): void
  /** Begins the stop if it has not begun (the primary's request). */
  request(): void
  /** Ends the process now. */
  immediate(): void
}

export function gracefulStopper(server: Stoppable, options: GracefulStopOptions): GracefulStopper {
  const exit = options.exit ?? ((code: number) => process.exit(code))
  let stopping = false
  const begin = (reason: string) => {
    stopping = true
    logger.info({ reason, timeoutSeconds: options.timeoutMs / 1000 }, 'stopping: no new connections; requests in flight finish')
    stopGracefully(server, options).then(exit, (error: unknown) => {
      logger.error({ err: error }, 'the stop failed')
      exit(1)
    })
  }
  const immediate = () => {
    logger.warn('stopping at once')
    exit(130)
  }
  return {
    signal(signal) {
      if (stopping) immediate()
      else begin(signal)
    },
    request() {
      if (!stopping) begin('asked by the primary process')
    },
    immediate,
  }
}

/** The stop itself: resolves with the exit status. */
export async function stopGracefully(server: Stoppable, options: GracefulStopOptions): Promise<number> {
  const cutOff = await server.stop(options.timeoutMs)
  if (cutOff > 0) logger.warn({ cutOff }, 'stop timeout reached: requests still running were cut off')
  await options.release()
  logger.info('stopped')
  return cutOff > 0 ? 1 : 0
}
