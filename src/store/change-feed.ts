// The change record, read side: the position a delta link may stand at (the low-water mark), the rows
// changed between two positions, the retention of old notes, and the secret delta links are signed with.
// Why the position is safe: docs/change-tracking.md.
import { randomBytes } from 'node:crypto'
import { sql } from '../sql/sql-template.js'
import type { Pool } from './pool.js'
import { databaseOf } from './database.js'
import { runInTransaction } from './transaction.js'

/** `_service_state` entries of the change record. */
export const PURGED_THROUGH = 'changes_purged_through'
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
    sql`SELECT (SELECT COALESCE(MAX(seq), 0) FROM _change_notes) AS mark,
(SELECT \`value\` FROM _service_state WHERE \`name\` = ${PURGED_THROUGH}) AS purged
FROM _change_clock WHERE id = 1 FOR UPDATE`,
  )
  if (!row) throw new Error('internal: the change clock row is missing; run migrate')
  const purged = row.purged ?? '0'
  // Right after migrate replaced an earlier layout the notes are empty and the purge position stands above
  // every old position: the mark is that position, so that new links stand above the old ones.
  const mark = BigInt(row.mark) < BigInt(purged) ? purged : String(row.mark)
  return { mark, purgedThrough: purged }
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
  /** The note the key was last written in, in the range read. */
  readonly seq: string
  /** Where a page after this key starts: `seq.index`, the key's place in its note (notePosition). */
  readonly position: string
  /** The key's text (change-record.ts: changeKeyText). */
  readonly keyText: string
  /** The key's values as the note holds them (each as text, or null), in its set's key order. */
  readonly values: readonly (string | null)[]
}

/**
 * The fewest keys a stretch of a delta holds (a delta page never reads more notes than a stretch):
 * `max(STRETCH_PAGES pages, STRETCH_MIN_KEYS)` keys, plus at most one note's keys (KEYS_PER_NOTE).
 */
export const STRETCH_MIN_KEYS = 10_000
export const STRETCH_PAGES = 4

/** The keys a stretch of a delta with pages of `pageSize` holds at least (the bound it is cut at). */
export function stretchKeys(pageSize: number): number {
  return Math.max(STRETCH_PAGES * pageSize, STRETCH_MIN_KEYS)
}

/**
 * A position in the change record: `seq` (every key of notes up to it is behind) or `seq.index` (the keys
 * of note `seq` up to `index` are behind, the rest of it ahead).
 */
interface NotePosition {
  readonly seq: bigint
  /** The last key of note `seq` that is behind; undefined: the whole note is. */
  readonly index: number | undefined
}

const POSITION = /^(\d{1,20})(?:\.(\d{1,9}))?$/

export function isNotePosition(text: string): boolean {
  return POSITION.test(text)
}

function notePosition(text: string): NotePosition {
  const match = POSITION.exec(text)
  if (!match) throw new Error(`internal: ${text} is not a change record position`)
  return { seq: BigInt(match[1]!), index: match[2] === undefined ? undefined : Number(match[2]) }
}

export interface ChangedPage {
  /** Up to `limit` keys, each at its last occurrence in (after, upTo], in the order of those occurrences. */
  readonly keys: ChangedKey[]
  /** Where the range read stops: `upTo`, or (a stretch cut at `stretch` keys) the last note read, below it. */
  readonly upTo: string
}

interface NoteRow {
  readonly seq: string | number
  readonly key_count: number
  readonly key_texts: string
}

/**
 * The notes of `table` after `after` up to `upTo`, in order. With `stretch`, the reading stops at the first
 * note boundary at which `stretch` keys have been read (batches that grow fourfold, so a delta taken at the
 * pace of its changes reads once), and the range is cut there.
 */
async function readNotes(
  pool: Pool,
  table: string,
  after: NotePosition,
  upTo: string,
  stretch?: number,
): Promise<{ notes: NoteRow[]; upTo: string }> {
  const first = after.index === undefined ? sql`seq > ${String(after.seq)}` : sql`seq >= ${String(after.seq)}`
  if (stretch === undefined) {
    const notes = await databaseOf(pool).rows<NoteRow>(
      sql`SELECT seq, key_count, key_texts FROM _change_notes WHERE table_name = ${table} AND ${first} AND seq <= ${upTo} ORDER BY seq`,
    )
    return { notes, upTo }
  }
  const notes: NoteRow[] = []
  let keys = 0
  let from = first
  for (let batch = 16; ; batch *= 4) {
    const rows = await databaseOf(pool).rows<NoteRow>(
      sql`SELECT seq, key_count, key_texts FROM _change_notes WHERE table_name = ${table} AND ${from} AND seq <= ${upTo} ORDER BY seq LIMIT ${batch}`,
    )
    for (const row of rows) {
      notes.push(row)
      keys += Number(row.key_count)
      if (keys >= stretch) return { notes, upTo: String(row.seq) }
    }
    if (rows.length < batch) return { notes, upTo }
    from = sql`seq > ${String(rows[rows.length - 1]!.seq)}`
  }
}

/**
 * A page of a delta: the rows of `table` changed after `after` up to `upTo`, each once, at its last
 * occurrence in that range, in the order of those occurrences. The notes of the range are read and expanded
 * here; a key written again later in the range is left for its later occurrence, so paging by position
 * shows it once. Each page reads its whole remaining range, which a stretch bounds: the first page of a
 * delta passes `stretch` (stretchKeys) and carries the `upTo` it answers as its pages' end.
 */
export async function changedPage(
  pool: Pool,
  table: string,
  after: string,
  upTo: string,
  limit: number,
  stretch?: number,
): Promise<ChangedPage> {
  const start = notePosition(after)
  const read = await readNotes(pool, table, start, upTo, stretch)
  // A Map keeps insertion order: deleting a key before setting it again moves it to its last occurrence.
  const last = new Map<string, ChangedKey>()
  for (const note of read.notes) {
    const seq = String(note.seq)
    const skip = BigInt(seq) === start.seq ? (start.index ?? Number.MAX_SAFE_INTEGER) : -1
    const keys = JSON.parse(note.key_texts) as (string | null)[][]
    for (let index = skip + 1; index < keys.length; index++) {
      const values = keys[index]!
      const keyText = JSON.stringify(values)
      last.delete(keyText)
      last.set(keyText, { seq, position: `${seq}.${index}`, keyText, values })
    }
  }
  const keys: ChangedKey[] = []
  for (const key of last.values()) {
    if (keys.length === limit) break
    keys.push(key)
  }
  return { keys, upTo: read.upTo }
}

/**
 * Drops at most `chunk` note rows recorded before `before` (oldest first), never the newest note (its number
 * keeps the sequence from restarting below handed-out positions), and moves the purge position past
 * them in the same transaction. Resolves to how many went: the caller repeats while it is `chunk`.
 */
export async function purgeChanges(pool: Pool, before: Date, chunk: number): Promise<number> {
  const oldest = await databaseOf(pool).rows<{ seq: string | number; recorded_at: string }>(
    sql`SELECT seq, recorded_at FROM _change_notes WHERE seq < (SELECT MAX(seq) FROM _change_notes) ORDER BY seq LIMIT ${chunk}`,
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
    await transaction.run(sql`DELETE FROM _change_notes WHERE seq <= ${last}`)
  })
  return count
}
