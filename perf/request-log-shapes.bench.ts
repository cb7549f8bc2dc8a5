// What the request log's rows cost the database and the driver, layout by layout: change sets of 100
// catalog rows (one multi-row INSERT in a transaction, 4 connections at once, as batch-creates sends them),
// each transaction also writing 101 log entries (the batch's and one per operation, as a batch at level
// `all` writes them in its last change set) into a table of the log's columns with one of the index sets
// below, against the same transaction without a log, in rounds one after the other (docs/decisions.md,
// "What the change record and the request log cost"):
//   - `both`: the log as it was, `by_at` and `by_batch`;
//   - `by-batch`: `by_batch` alone (retention finds its bound through the primary key);
//   - `none`: no secondary index.
// The tables are made for the run and dropped after it.
// Run: node scripts/run-benchmarks.mjs request-log-shapes   (BENCH_SECONDS per measurement, BENCH_ROUNDS)
import { randomBytes, randomUUID } from 'node:crypto'
import { rowValuesSharing } from '../src/store/shared-row-values.js'
import type { PoolConnection } from '../src/store/pool.js'
import { createPool } from '../src/store/pool.js'
import { v7 } from 'uuid'
import { benchAddress, prepareBenchDatabase, waitForQuietDatabase } from './support/bench-database.js'
import { compareShapes } from './support/shape-rounds.js'

const CLIENTS = 4
const ROWS = 100
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3)
const ROUNDS = Math.max(1, Number(process.env.BENCH_ROUNDS ?? 3))
const MARK = 'bench-log-shapes'

type Shape = 'without' | 'both' | 'by-batch' | 'none'
const INDEXES: Record<Exclude<Shape, 'without'>, string> = {
  both: ', KEY by_at (at), KEY by_batch (`Пакет`)',
  'by-batch': ', KEY by_batch (`Пакет`)',
  none: '',
}
const table = (shape: Shape) => `bench_log_${shape.replace('-', '_')}`

const { pool } = await prepareBenchDatabase(1)
const dropTables = async () => {
  for (const shape of Object.keys(INDEXES) as Shape[]) await pool.query(`DROP TABLE IF EXISTS ${table(shape)}`)
}
const cleanUp = async () => {
  await pool.query('DELETE FROM `c_Products` WHERE `Article` = ?', [MARK])
  await dropTables()
}
await cleanUp()
for (const [shape, indexes] of Object.entries(INDEXES))
  await pool.query(`CREATE TABLE ${table(shape as Shape)} (
  id BIGINT NOT NULL AUTO_INCREMENT, at DATETIME(3) NOT NULL, subject VARCHAR(100) NOT NULL DEFAULT '',
  profile VARCHAR(100) NOT NULL DEFAULT '', method VARCHAR(10) CHARACTER SET ascii NOT NULL, url TEXT NOT NULL,
  status SMALLINT NOT NULL, duration_ms INT NOT NULL DEFAULT 0, operations INT NULL, content_id VARCHAR(200) NULL,
  error_code VARCHAR(64) CHARACTER SET ascii NULL, \`Пакет\` CHAR(36) CHARACTER SET ascii NULL,
  PRIMARY KEY (id)${indexes}) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4`)
await waitForQuietDatabase(pool)

const INSERT_ROWS = 'INSERT INTO `c_Products` (`Ref_Key`, `DataVersion`, `DeletionMark`, `Code`, `Description`, `Article`, `Unit`) VALUES ?'
const COLUMNS = 'at, subject, profile, method, url, status, duration_ms, operations, content_id, error_code, `Пакет`'

let serial = 0
function rows(): unknown[][] {
  const versions = randomBytes(8 * ROWS)
  return Array.from({ length: ROWS }, (_, i) => {
    serial++
    return [randomUUID(), versions.toString('base64', 8 * i, 8 * i + 8), 0, `L${serial}`, `Log ${serial}`, MARK, 'pcs']
  })
}

async function transaction(connection: PoolConnection, shape: Shape): Promise<void> {
  const batch = rows()
  await connection.query('START TRANSACTION')
  await connection.query(INSERT_ROWS, [batch])
  if (shape !== 'without') {
    const at = new Date()
    const batchId = v7()
    const entries: unknown[][] = [[at, 'bench', 'bench', 'POST', '/api/v4/$batch', 200, 12, ROWS, null, null, batchId]]
    for (let i = 1; i <= ROWS; i++) entries.push([at, 'bench', 'bench', 'POST', 'Catalog_Products', 201, 0, null, String(i), null, batchId])
    const values = rowValuesSharing(entries, 11)
    await connection.query(`INSERT INTO ${table(shape)} (${COLUMNS}) VALUES ${values.text}`, values.parameters as unknown[])
  }
  await connection.query('COMMIT')
}
const direct = createPool(benchAddress(), { connectionLimit: CLIENTS })

try {
  await compareShapes<Shape>({
    benchmark: 'request-log-shapes',
    pool: direct,
    clients: CLIENTS,
    rows: ROWS,
    seconds: SECONDS,
    rounds: ROUNDS,
    baseline: 'without',
    baselineName: 'the same transactions without a log',
    shapes: ['both', 'by-batch', 'none'],
    transaction,
  })
} finally {
  await direct.end()
  await cleanUp()
  await pool.end()
}
