// The change record, write side: every write path notes the key of each row it creates, changes or
// deletes in a tracked table (catalogs, documents, information registers, movements) — the values of the
// key of the entity the row is, in the order of its set's key (a movement: Recorder, Recorder_Type,
// LineNumber of its `_RecordType` set) — and the notes are
// written to `_changes` in the same transaction, as its last statements before the COMMIT
// (runInTransaction calls writeRecordedChanges). A rolled-back or retried transaction leaves no note;
// a committed one always leaves its notes. Delta links read them back (change-feed.ts,
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

/** Notes per INSERT: their JSON text stays far below any server's max_allowed_packet. */
const NOTES_PER_INSERT = 2000

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
 * The notes' one statement: the clock row read under a shared lock and joined with the notes, handed over as
 * one JSON text of `[table, key text]` pairs. The lock is taken before the first note gets its number (the
 * row is read before any is inserted) and held to the COMMIT. The server makes each key's 16-byte digest,
 * which the index `_changes` finds a key's later notes by (`MD5` of the key text's UTF-8 bytes): the service
 * formats one value for all the notes instead of three per note and hashes none, and the lock costs no round
 * trip of its own. (INSERT … SELECT takes InnoDB's table-level auto-increment lock for the statement under
 * `innodb_autoinc_lock_mode` 1, never across the transaction.)
 */
const INSERT_NOTES = `INSERT INTO _changes (table_name, key_hash, key_values)
SELECT n.table_name, UNHEX(MD5(n.key_values)), n.key_values
FROM _change_clock c
JOIN JSON_TABLE(?, '$[*]' COLUMNS (table_name VARCHAR(64) PATH '$[0]', key_values TEXT PATH '$[1]')) n
WHERE c.id = 1 LOCK IN SHARE MODE`

/** Writes the transaction's notes, under the clock's shared lock; nothing when it noted nothing. */
export async function writeRecordedChanges(transaction: Transaction): Promise<void> {
  const byTable = pending.get(transaction)
  if (!byTable) return
  pending.delete(transaction)
  const notes: [string, string][] = []
  for (const [table, keys] of byTable) for (const text of keys) notes.push([table, text])
  for (let start = 0; start < notes.length; start += NOTES_PER_INSERT) {
    const chunk = notes.length <= NOTES_PER_INSERT ? notes : notes.slice(start, start + NOTES_PER_INSERT)
    const written = await transaction.run(new Statement(INSERT_NOTES, [JSON.stringify(chunk)]))
    // Without the clock's row the join yields nothing: no lock, and a delta reader could hand out a position
    // a writer still stands behind.
    if (written.affectedRows !== chunk.length) throw new Error('internal: _change_clock has no row; run migrate')
  }
}

/** Forgets the notes of a transaction that is rolled back (its attempt may be run again with a fresh one). */
export function discardRecordedChanges(transaction: Transaction): void {
  pending.delete(transaction)
}
