// What the change record's notes cost the database and the driver, shape by shape: change sets of 100
// catalog rows (one multi-row INSERT in a transaction, 4 connections at once, as batch-creates sends them),
// each transaction also writing its notes in one of the shapes below, against the same transaction
// without notes, in rounds one after the other (docs/decisions.md, "What the change record and the request
// log cost"):
//   - `rows`: the first shape, a shared-lock SELECT of the clock, then one multi-row INSERT of a note per
//     row (table, MD5 digest made by the service, JSON key text: three placeholders a note);
//   - `folded`: the shape the service writes (src/store/change-record.ts): the clock's lock and the notes in
//     one INSERT … SELECT, the notes handed over as one JSON text and hashed by the server;
//   - `one-row`: a single note naming every key of the transaction (the lock folded in the same way),
//     the least a per-row-free layout could cost; the delta read would have to change with it.
// Run: node scripts/run-benchmarks.mjs change-record-shapes   (BENCH_SECONDS per measurement, BENCH_ROUNDS)
import { createHash, randomBytes, randomUUID } from 'node:crypto'
import type { PoolConnection } from '../src/store/pool.js'
import { createPool } from '../src/store/pool.js'
import { benchAddress, prepareBenchDatabase, waitForQuietDatabase } from './support/bench-database.js'
import { printResult } from './support/report.js'

const CLIENTS = 4
const ROWS = 100
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const MARK = 'bench-notes'
const TABLE = 'bench_notes'

type Shape = 'none' | 'rows' | 'folded' | 'one-row'

const { pool } = await prepareBenchDatabase(1)
const cleanUp = async () => {
  await pool.query('DELETE FROM `c_Products` WHERE `Article` = ?', [MARK])
  await pool.query('DELETE FROM _changes WHERE table_name = ?', [TABLE])
}
await cleanUp()
await waitForQuietDatabase(pool)

const INSERT_ROWS = 'INSERT INTO `c_Products` (`Ref_Key`, `DataVersion`, `DeletionMark`, `Code`, `Description`, `Article`, `Unit`) VALUES ?'
const FOLDED = `INSERT INTO _changes (table_name, key_hash, key_values)
SELECT n.table_name, UNHEX(MD5(n.key_values)), n.key_values
FROM _change_clock c
JOIN JSON_TABLE(?, '$[*]' COLUMNS (table_name VARCHAR(64) PATH '$[0]', key_values TEXT PATH '$[1]')) n
WHERE c.id = 1 LOCK IN SHARE MODE`
const ONE_ROW = `INSERT INTO _changes (table_name, key_hash, key_values)
SELECT ?, UNHEX(MD5(?)), ? FROM _change_clock c WHERE c.id = 1 LOCK IN SHARE MODE`

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
    await connection.query('INSERT INTO _changes (table_name, key_hash, key_values) VALUES ?', [
      keys.map((key) => [TABLE, createHash('md5').update(key).digest(), key]),
    ])
  } else if (shape === 'folded') {
    await connection.query(FOLDED, [JSON.stringify(keys.map((key) => [TABLE, key]))])
  } else if (shape === 'one-row') {
    const all = JSON.stringify(batch.map((row) => [String(row[0])]))
    await connection.query(ONE_ROW, [TABLE, all, all])
  }
  await connection.query('COMMIT')
}

const direct = createPool(benchAddress(), { connectionLimit: CLIENTS })

/** Rows per second of the shape, 4 connections for `seconds`. */
async function measure(shape: Shape, seconds: number): Promise<number> {
  let done = 0
  const started = process.hrtime.bigint()
  const deadline = started + BigInt(Math.round(seconds * 1e9))
  await Promise.all(
    Array.from({ length: CLIENTS }, async () => {
      const connection = await direct.getConnection()
      try {
        while (process.hrtime.bigint() < deadline) {
          await transaction(connection, shape)
          done += ROWS
        }
      } finally {
        connection.release()
      }
    }),
  )
  return done / (Number(process.hrtime.bigint() - started) / 1e9)
}

const median = (values: readonly number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!
const SHAPES: Shape[] = ['rows', 'folded', 'one-row']
try {
  for (const shape of ['none', ...SHAPES] as Shape[]) await measure(shape, 1) // warm-up
  const ratios = new Map<Shape, number[]>(SHAPES.map((shape) => [shape, []]))
  const rates = new Map<Shape, number[]>(SHAPES.map((shape) => [shape, []]))
  const bare: number[] = []
  for (let round = 0; round < ROUNDS; round++) {
    const before = await measure('none', SECONDS)
    const measured = new Map<Shape, number>()
    for (const shape of SHAPES) measured.set(shape, await measure(shape, SECONDS))
    const after = await measure('none', SECONDS)
    const baseline = (before + after) / 2
    bare.push(baseline)
    for (const shape of SHAPES) {
      ratios.get(shape)!.push(measured.get(shape)! / baseline)
      rates.get(shape)!.push(measured.get(shape)!)
    }
  }
  for (const shape of SHAPES) {
    printResult({
      benchmark: `change-record-shapes ${shape}`,
      figure: median(rates.get(shape)!),
      unit: 'rows/s',
      baseline: median(bare),
      baselineName: 'the same transactions without notes',
      extra: { rounds: ROUNDS, ratioRuns: ratios.get(shape), ratioMedian: median(ratios.get(shape)!) },
    })
    console.log(
      `  ${shape}: median of the rounds' ratios ${median(ratios.get(shape)!).toFixed(2)} (rounds: ${ratios
        .get(shape)!
        .map((r) => r.toFixed(2))
        .join(', ')})`,
    )
  }
} finally {
  await direct.end()
  await cleanUp()
  await pool.end()
}
