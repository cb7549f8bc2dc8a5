// A streamed read that expands holds its stream's connection and asks the pool for another one for each
// batch of expansions. If every connection of the pool were held by such reads, each would wait for a
// second connection forever. At most (pool size − 1) of them run at once, so one connection is always
// left for an expansion query; the others queue before taking any connection. Reads that hold one
// connection and never wait for a second (plain streams, counts, single entities) need no limit.
import pLimit, { type LimitFunction } from 'p-limit'
import type { Pool } from '../../store/pool.js'

const limits = new WeakMap<Pool, LimitFunction>()

export function expandingReadLimit(pool: Pool): LimitFunction {
  let limit = limits.get(pool)
  if (!limit) {
    const size = Number((pool as unknown as { pool?: { config?: { connectionLimit?: number } } }).pool?.config?.connectionLimit ?? 10)
    limit = pLimit(Math.max(1, size - 1))
    limits.set(pool, limit)
  }
  return limit
}
