// What the change record's notes cost the database and the driver, shape by shape: change sets of 100
// catalog rows (one multi-row INSERT in a transaction, 4 connections at once, as batch-creates sends them),
// each transaction also writing its notes in one of the shapes below, against the same transaction
// without notes, in rounds one after the other (docs/decisions.md, "What the change record and the request
// log cost"):
//   - `rows`: the first shape, a shared-lock SELECT of the clock, then one multi-row INSERT of a note per
//     row (table, MD5 digest made by the service, JSON key text: three placeholders a note) into the
//     earlier per-row layout (two secondary indexes; a table of the bench's own, `bench_per_row_changes`);
//   - `folded`: the shape the service wrote with that layout: the clock's lock and the notes in one
//     INSERT … SELECT, the notes handed over as one JSON text and hashed by the server;
//   - `per-transaction`: the shape the service writes now (src/store/change-record.ts): one note in
//     `_change_notes` naming every key of the transaction, the lock folded into the same statement.
// Run: node scripts/run-benchmarks.mjs change-record-shapes   (BENCH_SECONDS per measurement, BENCH_ROUNDS)
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { PoolConnection } from '../src/store/pool.js'
import { createPool } from '../src/store/pool.js'
import { benchAddress, prepareBenchDatabase, waitForQuietDatabase } from './support/bench-database.js'
import { compareShapes } from './support/shape-rounds.js'

const CLIENTS = 4
const ROWS = 100
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const MARK = 'bench-notes'
const TABLE = 'bench_notes'

type Shape = 'none' | 'rows' | 'folded' | 'per-transaction'
const PER_ROW = 'bench_per_row_changes'

const { pool } = await prepareBenchDatabase(1)
const cleanUp = async () => {
  await pool.query('DELETE FROM `c_Products` WHERE `Article` = ?', [MARK])
  await pool.query('DELETE FROM _change_notes WHERE table_name = ?', [TABLE])
  await pool.query(`DROP TABLE IF EXISTS ${PER_ROW}`)
}
await cleanUp()
await pool.query(`CREATE TABLE ${PER_ROW} (seq BIGINT NOT NULL AUTO_INCREMENT, table_name VARCHAR(64) NOT NULL,
  key_hash BINARY(16) NOT NULL, key_values TEXT NOT NULL, recorded_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
  PRIMARY KEY (seq), KEY by_table (table_name, seq), KEY by_key (table_name, key_hash, seq))`)
await waitForQuietDatabase(pool)

const INSERT_ROWS = 'INSERT INTO `c_Products` (`Ref_Key`, `DataVersion`, `DeletionMark`, `Code`, `Description`, `Article`, `Unit`) VALUES ?'
const FOLDED = `INSERT INTO ${PER_ROW} (table_name, key_hash, key_values)
SELECT n.table_name, UNHEX(MD5(n.key_values)), n.key_values
FROM _change_clock c
JOIN JSON_TABLE(?, '$[*]' COLUMNS (table_name VARCHAR(64) PATH '$[0]', key_values TEXT PATH '$[1]')) n
WHERE c.id = 1 LOCK IN SHARE MODE`
const PER_TRANSACTION = `INSERT INTO _change_notes (table_name, key_count, key_texts)
SELECT n.table_name, n.key_count, n.key_texts FROM _change_clock c JOIN (SELECT ? AS table_name, ? AS key_count, ? AS key_texts) n
WHERE c.id = 1 LOCK IN SHARE MODE`

let serial = 0
function rows(): unknown[][] {
  const versions = randomBytes(8 * ROWS)
  return Array.from({ length: ROWS }, (_, i) => {
    serial++
    return [randomUUID(), versions.toString('base64', 8 * i, 8 * i + 8), 0, `N${serial}`, `Notes ${serial}`, MARK, 'pcs']
  })
}

async function transaction(connection: PoolConnection, shape: Shape): Promise<void> {
  const batch = rows()
  await connection.query('START TRANSACTION')
  await connection.query(INSERT_ROWS, [batch])
  const keys = batch.map((row) => JSON.stringify([String(row[0])]))
  if (shape === 'rows') {
    await connection.query('SELECT id FROM _change_clock WHERE id = 1 LOCK IN SHARE MODE')
    await connection.query(`INSERT INTO ${PER_ROW} (table_name, key_hash, key_values) VALUES ?`, [
      keys.map((key) => [TABLE, createHash('md5').update(key).digest(), key]),
    ])
  } else if (shape === 'folded') {
    await connection.query(FOLDED, [JSON.stringify(keys.map((key) => [TABLE, key]))])
  } else if (shape === 'per-transaction') {
    await connection.query(PER_TRANSACTION, [TABLE, keys.length, `[${keys.join(',')}]`])
  }
  await connection.query('COMMIT')
}

const direct = createPool(benchAddress(), { connectionLimit: CLIENTS })

try {
  await compareShapes<Shape>({
    benchmark: 'change-record-shapes',
    pool: direct,
    clients: CLIENTS,
    rows: ROWS,
    seconds: SECONDS,
    rounds: ROUNDS,
    baseline: 'none',
    baselineName: 'the same transactions without notes',
    shapes: ['rows', 'folded', 'per-transaction'],
    transaction,
  })
} finally {
  await direct.end()
  await cleanUp()
  await pool.end()
}
