// The change record, write side: every write path notes the key of each row it creates, changes or
// deletes in a tracked table (catalogs, documents, information registers, movements) — the values of the
// key of the entity the row is, in the order of its set's key (a movement: Recorder, Recorder_Type,
// LineNumber of its `_RecordType` set) — and the notes are
// written to `_change_notes` in the same transaction, as its last statements before the COMMIT
// (runInTransaction runs takeRecordedChanges' statements, the last with its COMMIT). A rolled-back or retried transaction leaves no note;
// a committed one always leaves its notes. A transaction writes one note per tracked table it wrote
// (`_change_notes`), holding the keys of all its rows there, not a note per row. Delta links read them back (change-feed.ts,
// docs/change-tracking.md).
//
// Before inserting its notes a transaction takes a shared lock on the one row of `_change_clock` and
// holds it to its COMMIT. Shared locks do not block each other, so writers never wait for writers here;
// a delta reader takes the row exclusively for a moment (change-feed.ts: changeWatermark) and thereby
// waits until every transaction that may hold sequence numbers below the current maximum has ended.
// The notes go last, so the shared lock is held only for their INSERT and the COMMIT; the lock and the
// INSERT are one statement (INSERT_NOTES).
import { Statement } from '../statement.js'
import type { Transaction } from './transaction.js'

/**
 * Whether writes note their keys. Always on in the service; the batch-creates benchmark turns it off in a
 * server of its own to measure what the notes cost (perf/support/bench-server.ts, BENCH_CHANGE_RECORD=off).
 */
let recording = true

/** Turns the notes off (or on again) for this process: a measuring instrument, never a setting of the service. */
export function setChangeRecording(on: boolean): void {
  recording = on
}

/** Per open transaction: table → key texts. A Set keeps one note per row however often it changed. */
const pending = new WeakMap<Transaction, Map<string, Set<string>>>()

/**
 * The text a key is compared by: its values in the table's primary-key order, each as text. The delta
 * read makes the same text from the row it reads back (numbers and stored forms print the same way).
 */
export function changeKeyText(values: readonly unknown[]): string {
  return JSON.stringify(values.map((value) => (value === null || value === undefined ? null : String(value))))
}

/** Notes that the row of `table` whose entity has these key values (in its set's key order) was written. */
export function recordChange(transaction: Transaction, table: string, key: readonly unknown[]): void {
  if (!recording) return
  let byTable = pending.get(transaction)
  if (!byTable) pending.set(transaction, (byTable = new Map()))
  let keys = byTable.get(table)
  if (!keys) byTable.set(table, (keys = new Set()))
  keys.add(changeKeyText(key))
}

/** Notes rows given as arrays in the order of `columns`, their key taken from the `keyColumns` positions. */
export function recordRows(
  transaction: Transaction,
  table: string,
  keyColumns: readonly string[],
  columns: readonly string[],
  rows: readonly (readonly unknown[])[],
): void {
  const positions = keyColumns.map((name) => columns.indexOf(name))
  if (positions.some((position) => position < 0)) throw new Error(`internal: ${table} rows lack a key column`)
  for (const row of rows)
    recordChange(
      transaction,
      table,
      positions.map((position) => row[position]),
    )
}

/** Notes several rows of one table. */
export function recordChanges(transaction: Transaction, table: string, keys: readonly (readonly unknown[])[]): void {
  for (const key of keys) recordChange(transaction, table, key)
}

/**
 * Keys one note row holds at most: a transaction that wrote more rows of one table writes several notes,
 * so that one note stays small (about 60 KB of key texts at most) and a page never parses a huge one.
 */
export const KEYS_PER_NOTE = 1000

/** Note rows per INSERT: with KEYS_PER_NOTE keys each, far below any server's max_allowed_packet. */
const NOTES_PER_INSERT = 16

/**
 * The notes' statement: the clock row read under a shared lock and joined with the notes, one derived row
 * per note (`UNION ALL` of placeholders, which MariaDB 10.11 and MySQL 8 both take; no JSON_TABLE). The
 * lock is taken before the first note gets its number (the clock row is read before any is inserted) and
 * held to the COMMIT, and costs no round trip of its own. A note is one row per table the transaction wrote:
 * `key_texts` is the JSON array of its rows' keys (the `changeKeyText` arrays, joined), no per-key index.
 * Without the clock's row the join yields a NULL table name, which the NOT NULL column refuses (strict mode,
 * src/store/pool.ts): the statement fails, and with it the transaction, rather than note a change without the
 * lock, which a delta reader would then hand out a position behind. It fails rather than inserting nothing
 * because it travels in one packet with the COMMIT (transaction.ts), which nothing can stop once it is sent.
 * (INSERT … SELECT takes InnoDB's table-level auto-increment lock for the statement under
 * `innodb_autoinc_lock_mode` 1, never across the transaction.)
 */
function insertNotes(count: number): string {
  const rows = Array.from({ length: count }, (_, i) =>
    i === 0 ? 'SELECT ? AS table_name, ? AS key_count, ? AS key_texts' : 'SELECT ?, ?, ?',
  ).join(' UNION ALL ')
  return `INSERT INTO _change_notes (table_name, key_count, key_texts)
SELECT IF(c.id IS NULL, NULL, n.table_name), n.key_count, n.key_texts FROM (${rows}) n
LEFT JOIN _change_clock c ON c.id = 1 LOCK IN SHARE MODE`
}

/** The note rows of a transaction: per table, its key texts in slices of at most KEYS_PER_NOTE. */
function noteRows(byTable: Map<string, Set<string>>): [string, number, string][] {
  const notes: [string, number, string][] = []
  for (const [table, keys] of byTable) {
    const texts = [...keys]
    for (let start = 0; start < texts.length; start += KEYS_PER_NOTE) {
      const slice = texts.length <= KEYS_PER_NOTE ? texts : texts.slice(start, start + KEYS_PER_NOTE)
      notes.push([table, slice.length, `[${slice.join(',')}]`])
    }
  }
  return notes
}

/**
 * The statements that write the transaction's notes, under the clock's shared lock, and forgets them; none
 * when it noted nothing. The transaction runs them last, the last one with its COMMIT (transaction.ts).
 */
export function takeRecordedChanges(transaction: Transaction): Statement[] {
  const byTable = pending.get(transaction)
  if (!byTable) return []
  pending.delete(transaction)
  const notes = noteRows(byTable)
  const statements: Statement[] = []
  for (let start = 0; start < notes.length; start += NOTES_PER_INSERT) {
    const chunk = notes.slice(start, start + NOTES_PER_INSERT)
    statements.push(new Statement(insertNotes(chunk.length), chunk.flat()))
  }
  return statements
}

/** MySQL's error for a NULL in a NOT NULL column: what the notes meet without the clock's row. */
const ER_BAD_NULL_ERROR = 1048

/** What a failure of the notes' statement means: without the clock's row, an installation migrate has not finished. */
export function notesFailure(error: unknown): never {
  if ((error as { errno?: number } | null)?.errno === ER_BAD_NULL_ERROR) throw new Error('internal: _change_clock has no row; run migrate')
  throw error
}

/** Forgets the notes of a transaction that is rolled back (its attempt may be run again with a fresh one). */
export function discardRecordedChanges(transaction: Transaction): void {
  pending.delete(transaction)
}
