// The change record, read side: the position a delta link may stand at (the low-water mark), the rows
// changed between two positions, the retention of old notes, and the secret delta links are signed with.
// Why the position is safe: docs/change-tracking.md.
import { randomBytes } from 'node:crypto'
import { sql } from '../sql/sql-template.js'
import type { Pool } from './pool.js'
import { databaseOf } from './database.js'
import { runInTransaction } from './transaction.js'

/** `_service_state` entries of the change record. */
const PURGED_THROUGH = 'changes_purged_through'
const LINK_SECRET = 'delta_link_secret'

/** Makes what the change record needs besides its tables: the clock's row and the link secret (migrate). */
export async function prepareChangeRecord(pool: Pool): Promise<void> {
  await databaseOf(pool).run(sql`INSERT IGNORE INTO _change_clock (id) VALUES (1)`)
  await databaseOf(pool).run(
    sql`INSERT IGNORE INTO _service_state (\`name\`, \`value\`) VALUES (${LINK_SECRET}, ${randomBytes(32).toString('hex')})`,
  )
}

/**
 * The low-water mark: a position such that every note at or below it is committed and no transaction
 * still in flight can add one there. Sequence numbers are handed out before COMMIT, in allocation order,
 * so the largest committed number may stand above a smaller one whose transaction has not committed yet.
 * Every writer holds the clock row shared from before it takes its numbers until it has committed; taking
 * the row exclusively waits for each of them, and any writer that comes after takes numbers above the
 * maximum read here. The wait is a writer's last INSERT and COMMIT.
 *
 * One statement, in autocommit: the exclusive lock is held from its grant to the statement's end, and the
 * maximum is read inside the statement. Whenever in the statement the maximum's snapshot is taken, it is
 * safe: a number at or below it was taken before the snapshot, by a writer that had committed or still
 * held the clock shared then, and the lock is granted only once such a writer has committed. (Four round
 * trips — BEGIN, the lock, the maximum, COMMIT — were most of a small delta's time on a loaded server.)
 */
export async function changeWatermark(pool: Pool): Promise<string> {
  return (await changePositions(pool)).mark
}

/** The low-water mark and the purge position (`purgedThrough`) in one round trip. */
export async function changePositions(pool: Pool): Promise<{ mark: string; purgedThrough: string }> {
  const [row] = await databaseOf(pool).rows<{ mark: string | number; purged: string | null }>(
    sql`SELECT (SELECT COALESCE(MAX(seq), 0) FROM _changes) AS mark,
(SELECT \`value\` FROM _service_state WHERE \`name\` = ${PURGED_THROUGH}) AS purged
FROM _change_clock WHERE id = 1 FOR UPDATE`,
  )
  if (!row) throw new Error('internal: the change clock row is missing; run migrate')
  return { mark: String(row.mark), purgedThrough: row.purged ?? '0' }
}

/** The position below which notes may have been dropped by retention ('0': none were). */
export async function purgedThrough(pool: Pool): Promise<string> {
  const rows = await databaseOf(pool).rows<{ value: string }>(sql`SELECT \`value\` FROM _service_state WHERE \`name\` = ${PURGED_THROUGH}`)
  return rows[0]?.value ?? '0'
}

export async function linkSecret(pool: Pool): Promise<Buffer> {
  const rows = await databaseOf(pool).rows<{ value: string }>(sql`SELECT \`value\` FROM _service_state WHERE \`name\` = ${LINK_SECRET}`)
  if (rows.length === 0) throw new Error('internal: the delta link secret is missing; run migrate')
  return Buffer.from(rows[0]!.value, 'hex')
}

export interface ChangedKey {
  readonly seq: string
  /** The key's text (change-record.ts: changeKeyText). */
  readonly keyText: string
}

/**
 * The rows of `table` changed after `after` up to `upTo`, each once, at its last note in that range, in
 * note order: a page of a delta. A row noted again later in the range is left for its later note, so
 * paging by `seq` shows it once. Reads O(page) notes through the indexes, whatever the table's size.
 *
 * Two forms of the same answer, chosen by how many notes the range can hold at most (`upTo - after`, every
 * table's notes counted):
 * - a range of at most `SCAN_WHOLE_RANGE_PAGES` pages (a delta taken at the pace of its changes, the usual
 *   case) is read whole, and a window keeps each row's last note: one pass over the notes, about half the
 *   time of a lookup per note on MariaDB (perf/change-tracking.bench.ts, docs/change-tracking.md);
 * - a longer range would be read again for each of its pages, so there each note looks for a later note of
 *   its row with an anti-join on `(table_name, key_hash, seq)` (a NOT EXISTS subquery took five times as
 *   long), and only the page's notes are read. The 16-byte hash stands for the key in both.
 */
export async function changedKeys(pool: Pool, table: string, after: string, upTo: string, limit: number): Promise<ChangedKey[]> {
  const wholeRange = BigInt(upTo) - BigInt(after) <= BigInt(limit) * SCAN_WHOLE_RANGE_PAGES
  const rows = await databaseOf(pool).rows<{ seq: string | number; key_values: string }>(
    wholeRange
      ? sql`SELECT seq, key_values FROM (
  SELECT seq, key_values, ROW_NUMBER() OVER (PARTITION BY key_hash ORDER BY seq DESC) AS later_notes
  FROM _changes WHERE table_name = ${table} AND seq > ${after} AND seq <= ${upTo}
) notes WHERE later_notes = 1 ORDER BY seq LIMIT ${limit}`
      : sql`SELECT c.seq, c.key_values FROM _changes c
LEFT JOIN _changes l ON l.table_name = c.table_name AND l.key_hash = c.key_hash AND l.seq > c.seq AND l.seq <= ${upTo}
WHERE c.table_name = ${table} AND c.seq > ${after} AND c.seq <= ${upTo} AND l.seq IS NULL
ORDER BY c.seq LIMIT ${limit}`,
  )
  return rows.map((row) => ({ seq: String(row.seq), keyText: row.key_values }))
}

/** Up to how many pages' worth of notes a range may hold for `changedKeys` to read it whole. */
const SCAN_WHOLE_RANGE_PAGES = 4n

/**
 * Drops at most `chunk` notes recorded before `before` (oldest first), never the newest note (its number
 * keeps the sequence from restarting below handed-out positions), and moves the purge position past
 * them in the same transaction. Resolves to how many went: the caller repeats while it is `chunk`.
 */
export async function purgeChanges(pool: Pool, before: Date, chunk: number): Promise<number> {
  const oldest = await databaseOf(pool).rows<{ seq: string | number; recorded_at: string }>(
    sql`SELECT seq, recorded_at FROM _changes WHERE seq < (SELECT MAX(seq) FROM _changes) ORDER BY seq LIMIT ${chunk}`,
  )
  const cutoff = before.toISOString().slice(0, 19).replace('T', ' ')
  let last: string | undefined
  let count = 0
  for (const row of oldest) {
    if (row.recorded_at >= cutoff) break
    last = String(row.seq)
    count++
  }
  if (last === undefined) return 0
  await runInTransaction(pool, async (transaction) => {
    await transaction.run(
      sql`INSERT INTO _service_state (\`name\`, \`value\`) VALUES (${PURGED_THROUGH}, ${last}) ON DUPLICATE KEY UPDATE \`value\` = GREATEST(CAST(\`value\` AS UNSIGNED), ${last})`,
    )
    await transaction.run(sql`DELETE FROM _changes WHERE seq <= ${last}`)
  })
  return count
}
