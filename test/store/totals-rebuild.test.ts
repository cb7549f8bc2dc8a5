// The totals rebuild in bounded pieces (src/store/totals-rebuild.ts): interrupted midway and run again, it
// goes on where it stopped and the totals equal a recomputation (the `verify` check); no piece reads more
// movements (or month rows) than its bound unless one month (or one group) holds more; run while change sets are posted, it leaves no
// difference either.
import t from 'tap'
import { startServer } from '../../src/http/server.js'
import { loadModel } from '../../src/model/load-model.js'
import { seedDemoData } from '../../src/seed/seed-data.js'
import { createServiceContext } from '../../src/service/service-context.js'
import { migrate } from '../../src/store/migrate.js'
import { checkTotals } from '../../src/store/totals-check.js'
import { rebuildTotals, TOTALS_REBUILD_MARKER } from '../../src/store/totals-rebuild.js'
import { catalogKeysFrom } from '../cluster/cluster-support.js'
import { expectedMovement, planBatches, runClients } from '../cluster/posting-clients.js'
import { createTestDatabase } from '../support/test-database.js'

const model = loadModel('config/demo.json')
const db = await createTestDatabase('totals_rebuild')
t.teardown(() => db.drop())
await migrate(db.pool, model)
await seedDemoData(db.pool, model, { scale: 0.3 })

const count = async (statement: string) => {
  const [rows] = await db.pool.query(statement)
  return Number(Object.values((rows as Record<string, unknown>[])[0]!)[0])
}
const marker = async () => {
  const [rows] = await db.pool.query('SELECT value FROM _service_state WHERE name = ?', [TOTALS_REBUILD_MARKER])
  const row = (rows as { value: string }[])[0]
  return row === undefined ? undefined : (JSON.parse(row.value) as { tables: { table: string; monthsDone: number; months: unknown[] }[] })
}
const differing = async () => Object.values((await checkTotals(db.pool, model)).differingGroups).reduce((sum, n) => sum + n, 0)

/** Every totals row made wrong in another way: values off, rows missing, rows of no movements. */
async function spoilTotals(): Promise<void> {
  await db.pool.query('UPDATE ar_Stock__totals SET Quantity = Quantity + 7, QuantityReceipt = QuantityReceipt + 7')
  await db.pool.query("DELETE FROM acr_Main__totals WHERE Period = '9999-12-31' ORDER BY Account_Key LIMIT 3")
  await db.pool.query("DELETE FROM acr_Main__totals WHERE Period < '9999-12-31' ORDER BY Period DESC LIMIT 5")
  const [one] = await db.pool.query('SELECT Warehouse_Key, Product_Key FROM ar_Stock__totals LIMIT 1')
  const { Warehouse_Key, Product_Key } = (one as { Warehouse_Key: string; Product_Key: string }[])[0]!
  await db.pool.query("INSERT INTO ar_Stock__totals (Period, Warehouse_Key, Product_Key, Quantity) VALUES ('2001-01-01', ?, ?, 3)", [
    Warehouse_Key,
    Product_Key,
  ])
  await db.pool.query(
    "INSERT INTO ar_Stock__totals (Period, Warehouse_Key, Product_Key, QuantityReceipt) VALUES ('9999-12-31', '00000000-0000-0000-0000-0000000000aa', '00000000-0000-0000-0000-0000000000bb', 4)",
  )
}

t.test('interrupted midway and run again, the rebuild goes on and the totals equal a recomputation', async (t) => {
  await spoilTotals()
  t.ok((await differing()) > 10, 'the totals are wrong everywhere')
  const largestMonth = await count(
    "SELECT MAX(n) FROM (SELECT COUNT(*) AS n FROM ar_Stock WHERE Active = 1 GROUP BY DATE_FORMAT(Period, '%Y-%m')) AS months",
  )
  const pieceRows = Math.max(1, Math.floor(largestMonth / 2))
  let pieces = 0
  const interruption = new Error('interrupted after five pieces')
  const first = await rebuildTotals(db.pool, model, {
    pieceRows,
    pieceGroups: 7,
    afterPiece: () => {
      if (++pieces === 5) throw interruption
    },
  }).then(
    () => undefined,
    (error: unknown) => error,
  )
  t.equal(first, interruption, 'the first run stopped after its fifth piece')
  const left = await marker()
  t.ok(left, 'the plan and its progress are kept')
  t.equal(left!.tables[0]!.monthsDone, 5, 'five pieces are recorded done')
  t.ok(left!.tables[0]!.months.length > 5, `more are left (${left!.tables[0]!.months.length} month ranges in the first table)`)
  t.ok((await differing()) > 0, 'the totals are not all right yet')

  const pieceSizes: number[] = []
  const second = await rebuildTotals(db.pool, model, {
    pieceRows,
    pieceGroups: 7,
    afterPiece: (piece) => {
      if (piece.kind === 'months') pieceSizes.push(piece.rows)
    },
  })
  t.equal(second.resumed, true, 'the second run resumed the first')
  t.ok(second.pieces > 10, `and did the pieces left (${second.pieces})`)
  t.equal(await marker(), undefined, 'the finished plan is removed')
  t.same((await checkTotals(db.pool, model)).differences, [], 'the totals equal a recomputation from the movements')
  t.ok(
    pieceSizes.every((rows) => rows <= Math.max(pieceRows, largestMonth)),
    `no piece read more movements than its bound or its one month (${Math.max(...pieceSizes)} ≤ ${Math.max(pieceRows, largestMonth)})`,
  )

  const fresh = await rebuildTotals(db.pool, model, { pieceRows })
  t.equal(fresh.resumed, false, 'a later run starts afresh')
  t.same((await checkTotals(db.pool, model)).differences, [], 'and leaves them equal')

  // A piece of all-time rows reads the month rows of its groups: at most the piece's rows, or one group's
  // month rows (no more than the months there are) when that group alone holds more.
  const months = await count(
    "SELECT COUNT(DISTINCT m) FROM (SELECT DATE_FORMAT(Period, '%Y-%m') AS m FROM ar_Stock UNION ALL SELECT DATE_FORMAT(Period, '%Y-%m') FROM acr_Main) AS months",
  )
  const groupPieces: number[] = []
  await rebuildTotals(db.pool, model, {
    pieceRows: 50,
    afterPiece: (piece) => {
      if (piece.kind === 'groups') groupPieces.push(piece.rows)
    },
  })
  t.ok(groupPieces.length > 4, `the all-time rows are rebuilt in ${groupPieces.length} pieces, not in one per table`)
  t.ok(
    groupPieces.every((rows) => rows <= Math.max(50, months)),
    `no piece of all-time rows read more month rows than its bound or one group's (${Math.max(...groupPieces)} ≤ ${Math.max(50, months)})`,
  )
  t.same((await checkTotals(db.pool, model)).differences, [], 'the totals equal a recomputation')
})

t.test('rebuilt while change sets are posted, the totals equal a recomputation', async (t) => {
  const server = await startServer(createServiceContext(model, db.pool), { host: '127.0.0.1', port: 0 })
  t.teardown(() => server.close())
  const keys = await catalogKeysFrom(db.pool)
  const documentsBefore = (await count('SELECT COUNT(*) FROM d_GoodsReceipt')) + (await count('SELECT COUNT(*) FROM d_GoodsSale'))
  const clients = planBatches({ clients: 2, batchesPerClient: 20, documentsPerBatch: 3, rowsPerDocument: 2 })
  let posting = true
  const posted = runClients(keys, clients, () => server.port).finally(() => (posting = false))
  let rebuilds = 0
  // Small pieces, again and again while the clients post: writes land before, between and during pieces.
  while (posting || rebuilds === 0) {
    await rebuildTotals(db.pool, model, { pieceRows: 300, pieceGroups: 40 })
    rebuilds++
  }
  await posted
  const documents = (await count('SELECT COUNT(*) FROM d_GoodsReceipt')) + (await count('SELECT COUNT(*) FROM d_GoodsSale'))
  t.equal(
    documents - documentsBefore,
    expectedMovement(clients.flat()).documents,
    `every change set was applied (${rebuilds} rebuilds meanwhile)`,
  )
  t.same((await checkTotals(db.pool, model)).differences, [], 'the totals equal a recomputation from the movements')
})
