// The retention of the change record (docs/change-tracking.md): notes older than the
// `changeRetentionHours` setting are dropped, in chunks of a thousand with a pause between them, so the
// job never holds many locks or a long transaction beside the writes. Each process runs it once a
// minute; two at once are harmless (the purge position only grows, and a chunk is one small transaction).
import { logger } from '../log/logger.js'
import { purgeChanges } from '../store/change-feed.js'
import type { Pool } from '../store/pool.js'

const EVERY_MS = 60_000
const CHUNK = 1000
const PAUSE_MS = 20
const HOUR_MS = 3_600_000

/** Drops the notes recorded before `retentionHours` ago; resolves to how many went. */
export async function purgeExpiredChanges(pool: Pool, retentionHours: number, now = new Date()): Promise<number> {
  const before = new Date(now.getTime() - retentionHours * HOUR_MS)
  let total = 0
  for (;;) {
    const dropped = await purgeChanges(pool, before, CHUNK)
    total += dropped
    if (dropped < CHUNK) return total
    await new Promise((resolve) => setTimeout(resolve, PAUSE_MS))
  }
}

export interface ChangeRetention {
  stop(): void
}

export function startChangeRetention(pool: Pool, retentionHours: () => number): ChangeRetention {
  let running = false
  const timer = setInterval(() => {
    if (running) return
    running = true
    purgeExpiredChanges(pool, retentionHours())
      .catch((error: unknown) => logger.warn({ err: error }, 'dropping expired change notes failed; the next run tries again'))
      .finally(() => {
        running = false
      })
  }, EVERY_MS)
  timer.unref()
  return { stop: () => clearInterval(timer) }
}
