// How long the request log keeps its entries (docs/request-log.md): REQUEST_LOG_KEEP_DAYS (entries older
// than that many days go) and REQUEST_LOG_KEEP_ROWS (all but the newest that many go); either, both, or
// neither (the log keeps everything, as before). At level `all` the log grows by a row per request and a
// row per batch operation, so a service left running needs one of them or `cli prune-log` run by a timer.
//
// Old entries go in small chunks (DELETE … ORDER BY id LIMIT n, each its own statement in autocommit): each
// holds its row locks for a moment only, so the log's writers and readers never wait long behind the
// pruning, and the undo a statement keeps stays small. Between chunks the pruner yields, so other statements
// get the connection's turn. One process at a time prunes: the others skip a round (a named lock, taken
// without waiting), rather than delete the same rows side by side and wait for each other's locks.
import { sql } from '../sql/sql-template.js'
import type { Pool } from '../store/pool.js'
import { databaseOf } from '../store/database.js'
import { logger } from './logger.js'

export interface RetentionPolicy {
  /** Entries older than this many days are removed; undefined keeps them however old. */
  readonly keepDays?: number
  /** All but the newest this many entries are removed; undefined keeps them however many. */
  readonly keepRows?: number
}

export interface PruneResult {
  readonly removed: number
  /** The DELETE statements it took (each at most `chunkRows` rows). */
  readonly chunks: number
}

const DEFAULT_CHUNK_ROWS = 2000
/** How often a running service prunes. */
const PRUNE_EVERY_MS = 60_000
const LOCK_NAME = 'odata_request_log_retention'

export function retentionEnabled(policy: RetentionPolicy): boolean {
  return policy.keepDays !== undefined || policy.keepRows !== undefined
}

/** Removes what the policy does not keep, chunk by chunk; undefined when another process holds the pruning. */
export async function pruneRequestLog(
  pool: Pool,
  policy: RetentionPolicy,
  chunkRows = DEFAULT_CHUNK_ROWS,
): Promise<PruneResult | undefined> {
  const connection = await pool.getConnection()
  try {
    const [locked] = await databaseOf(connection).rows<{ got: number | null }>(sql`SELECT GET_LOCK(${LOCK_NAME}, 0) AS got`)
    if (locked?.got !== 1) return undefined
    try {
      // The newest id to remove, by each rule: ids grow with time, so a rule is a bound on the id.
      let upTo = 0
      if (policy.keepDays !== undefined) {
        const before = new Date(Date.now() - policy.keepDays * 86_400_000)
        // The index on `at` read backwards from the bound: one row, whatever the log's size.
        const [row] = await databaseOf(connection).rows<{ id: number }>(
          sql`SELECT id FROM request_log WHERE at < ${before} ORDER BY at DESC LIMIT 1`,
        )
        upTo = Math.max(upTo, Number(row?.id ?? 0))
      }
      if (policy.keepRows !== undefined) {
        const [row] = await databaseOf(connection).rows<{ id: number }>(
          sql`SELECT id FROM request_log ORDER BY id DESC LIMIT 1 OFFSET ${policy.keepRows}`,
        )
        upTo = Math.max(upTo, Number(row?.id ?? 0))
      }
      let removed = 0
      let chunks = 0
      while (upTo > 0) {
        const result = await databaseOf(connection).run(sql`DELETE FROM request_log WHERE id <= ${upTo} ORDER BY id LIMIT ${chunkRows}`)
        chunks++
        removed += result.affectedRows
        if (result.affectedRows < chunkRows) break
        await new Promise((resolve) => setImmediate(resolve))
      }
      return { removed, chunks }
    } finally {
      await databaseOf(connection).run(sql`SELECT RELEASE_LOCK(${LOCK_NAME})`)
    }
  } finally {
    connection.release()
  }
}

/** Prunes now and then every minute while the service runs; the returned function stops it. */
export function startRetention(pool: Pool, policy: RetentionPolicy): () => void {
  if (!retentionEnabled(policy)) return () => undefined
  let running = false
  const round = () => {
    if (running) return
    running = true
    pruneRequestLog(pool, policy)
      .then((result) => {
        if (result && result.removed > 0) logger.info({ removed: result.removed, chunks: result.chunks }, 'request log pruned')
      })
      .catch((error: unknown) => logger.warn({ err: error }, 'request log pruning failed; trying again in a minute'))
      .finally(() => {
        running = false
      })
  }
  round()
  const timer = setInterval(round, PRUNE_EVERY_MS).unref()
  return () => clearInterval(timer)
}
