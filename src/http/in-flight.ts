// The requests a process is answering, for a graceful stop: once the listening socket is closed, the
// process waits for this count to reach zero (bounded by STOP_TIMEOUT_SECONDS) before it closes its
// connections and the pool. A request counts from its headers (a `$batch` whose body is still arriving is
// in flight) until its answer is out or its client gone (Responder.onDone).
import type { Responder } from './responder.js'

export class InFlight {
  private count = 0
  private idleWaiters: (() => void)[] = []
  /** Set when the stop begins: requests arriving afterwards on open connections are turned away. */
  draining = false

  get size(): number {
    return this.count
  }

  track(responder: Responder): void {
    this.count++
    responder.onDone(() => {
      this.count--
      if (this.count === 0) for (const waiter of this.idleWaiters.splice(0)) waiter()
    })
  }

  /** Resolves true when no request is in flight, or false after `timeoutMs` with some still running. */
  idle(timeoutMs: number): Promise<boolean> {
    if (this.count === 0) return Promise.resolve(true)
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), timeoutMs)
      this.idleWaiters.push(() => {
        clearTimeout(timer)
        resolve(true)
      })
    })
  }
}
