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
import { databaseOf } from '../store/database.js'
import type { Pool, PoolConnection } from '../store/pool.js'
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

/**
 * The id of the newest entry written before `before` (0: none), found through the primary key: ids grow
 * with time, so the entries before a moment are a prefix of the ids, and a binary search over them reads
 * about two rows per doubling of the log (some forty for a billion entries). The log has no index on `at`:
 * every entry would pay for it in its INSERT, to serve this one search a minute (docs/decisions.md, "What
 * the change record and the request log cost"). Entries are numbered when they are written, a moment after
 * their time (a batch's at its commit, single requests' within a buffering interval), so the bound is exact
 * to that moment.
 */
async function newestBefore(connection: PoolConnection, before: Date): Promise<number> {
  const database = databaseOf(connection)
  const [range] = await database.rows<{ low: number | null; high: number | null }>(
    sql`SELECT MIN(id) AS low, MAX(id) AS high FROM request_log`,
  )
  if (range?.low == null || range.high == null) return 0
  // The first entry at or after `id`, by the primary key (ids removed by earlier rounds leave gaps).
  const entryFrom = async (id: number) =>
    (
      await database.rows<{ id: number; old: number }>(
        sql`SELECT id, at < ${before} AS old FROM request_log WHERE id >= ${id} ORDER BY id LIMIT 1`,
      )
    )[0]
  // Invariant: every entry below `low` is before the bound, none at or above `high + 1` is.
  let low = Number(range.low)
  let high = Number(range.high)
  let found = 0
  while (low <= high) {
    const middle = low + Math.floor((high - low) / 2)
    const entry = await entryFrom(middle)
    if (entry === undefined || Number(entry.id) > high) {
      high = middle - 1
      continue
    }
    if (Number(entry.old) === 1) {
      found = Number(entry.id)
      low = Number(entry.id) + 1
    } else high = middle - 1
  }
  return found
}

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
        upTo = Math.max(upTo, await newestBefore(connection, before))
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
