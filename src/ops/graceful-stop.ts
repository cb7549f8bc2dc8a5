// SIGTERM / SIGINT: a graceful stop. The first signal stops accepting connections, lets the requests and
// batches in flight finish (at most STOP_TIMEOUT_SECONDS), writes the request log's buffer, closes the
// pool and exits 0 (1 when requests had to be cut off). A second signal exits at once (status 130), for
// an operator who will not wait.
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

export function stopGracefullyOnSignals(server: Stoppable, options: GracefulStopOptions): void {
  const exit = options.exit ?? ((code: number) => process.exit(code))
  let stopping = false
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) {
      logger.warn({ signal }, 'second signal: stopping at once')
      return exit(130)
    }
    stopping = true
    logger.info({ signal, timeoutSeconds: options.timeoutMs / 1000 }, 'stopping: no new connections; requests in flight finish')
    stopGracefully(server, options).then(exit, (error: unknown) => {
      logger.error({ err: error }, 'the stop failed')
      exit(1)
    })
  }
  process.on('SIGTERM', onSignal)
  process.on('SIGINT', onSignal)
}

/** The stop itself: resolves with the exit status. */
export async function stopGracefully(server: Stoppable, options: GracefulStopOptions): Promise<number> {
  const cutOff = await server.stop(options.timeoutMs)
  if (cutOff > 0) logger.warn({ cutOff }, 'stop timeout reached: requests still running were cut off')
  await options.release()
  logger.info('stopped')
  return cutOff > 0 ? 1 : 0
}
