// Sends one $batch and waits out what says "later": `429` (the rate rules refused the whole batch before
// running any of it, service.md §7) after its Retry-After, `503` (a busy or unreachable database: the
// write was rolled back) after its Retry-After or a growing pause, and a connection that failed (the
// service stopped or restarting) after a growing pause, until the service has not answered for
// `retryFor` seconds. A lost connection is reported, since the batch may have run: its rows are then
// looked up before they are sent again.
import { readBatchAnswer, type OperationAnswer } from '../shared/batch-answer.js'
import type { BuiltBatch } from '../shared/batch-body.js'
import { errorOf, type ServiceAnswer, type ServiceClient } from '../shared/service-client.js'

export type BatchOutcome =
  | { readonly kind: 'answered'; readonly operations: OperationAnswer[] }
  | { readonly kind: 'refused'; readonly status: number; readonly code: string; readonly message: string }
  | { readonly kind: 'lost'; readonly message: string }

export interface SenderStatistics {
  batches: number
  throttled: number
  unavailable: number
  connectionFailures: number
}

export class GaveUpError extends Error {}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

export class BatchSender {
  readonly statistics: SenderStatistics = { batches: 0, throttled: 0, unavailable: 0, connectionFailures: 0 }
  /** When the service last answered anything; a pause longer than `retryFor` gives up. */
  private lastAnswer = Date.now()
  private failuresInRow = 0

  constructor(
    private readonly client: ServiceClient,
    private readonly retryForSeconds: number,
  ) {}

  async send(batch: BuiltBatch): Promise<BatchOutcome> {
    for (;;) {
      let answer: ServiceAnswer
      try {
        answer = await this.client.request('POST', '$batch', { headers: { 'content-type': batch.contentType }, body: batch.body })
      } catch (error) {
        this.statistics.connectionFailures++
        await this.pause(undefined, `the service did not answer: ${(error as Error).message}`)
        return { kind: 'lost', message: (error as Error).message }
      }
      this.statistics.batches++
      if (await this.waitedOut(answer)) continue
      if (answer.status !== 200) return { kind: 'refused', status: answer.status, ...errorOf(answer) }
      const contentType = String(answer.headers['content-type'] ?? '')
      return { kind: 'answered', operations: readBatchAnswer(contentType, answer.body) }
    }
  }

  /**
   * A GET the load cannot go on without (the keys a lost batch may have written), waited out like a batch:
   * 429 after its Retry-After, 503 and a failed connection within `retryFor`. Reading twice is harmless,
   * so a failed connection is simply tried again.
   */
  async read(relative: string): Promise<ServiceAnswer> {
    for (;;) {
      let answer: ServiceAnswer
      try {
        answer = await this.client.request('GET', relative)
      } catch (error) {
        this.statistics.connectionFailures++
        await this.pause(undefined, `the service did not answer: ${(error as Error).message}`)
        continue
      }
      if (await this.waitedOut(answer)) continue
      return answer
    }
  }

  /**
   * Waits out a 429 (its Retry-After) or a 503 (within `retryFor`) and says so; any other answer counts as
   * the service answering. A 503 is no answer: a service that keeps saying it is unavailable is given up on
   * like one that does not answer.
   */
  private async waitedOut(answer: ServiceAnswer): Promise<boolean> {
    if (answer.status !== 503) this.lastAnswer = Date.now()
    if (answer.status === 429) {
      this.statistics.throttled++
      await sleep((retryAfter(answer.headers['retry-after'], 1) ?? 1) * 1000)
      return true
    }
    if (answer.status === 503) {
      this.statistics.unavailable++
      await this.pause(retryAfter(answer.headers['retry-after'], undefined), 'the service is unavailable (503)')
      return true
    }
    this.failuresInRow = 0
    return false
  }

  /** An operation answered 503 inside the batch (its change set rolled back): wait as for a whole 503. */
  async unavailable(seconds: number | undefined): Promise<void> {
    this.statistics.unavailable++
    await this.pause(seconds, 'an operation answered 503')
  }

  private async pause(seconds: number | undefined, reason: string): Promise<void> {
    if (Date.now() - this.lastAnswer > this.retryForSeconds * 1000)
      throw new GaveUpError(
        `${reason}; gave up after ${this.retryForSeconds} s without an answer (the checkpoint keeps what was acknowledged: run the same command again)`,
      )
    this.failuresInRow++
    const backoff = Math.min(250 * 2 ** Math.min(this.failuresInRow - 1, 5), 8000)
    await sleep(seconds !== undefined ? seconds * 1000 : backoff * (0.75 + Math.random() * 0.5))
  }
}

function retryAfter(value: string | string[] | undefined, fallback: number | undefined): number | undefined {
  const text = Array.isArray(value) ? value[0] : value
  const seconds = Number(text)
  return text !== undefined && Number.isFinite(seconds) && seconds >= 0 ? seconds : fallback
}
