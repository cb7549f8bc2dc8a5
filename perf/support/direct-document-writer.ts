// The baseline of the ingest benchmarks: receipts with their Goods written straight through mysql2, as a
// hand-written loader would: per batch one transaction, one multi-row INSERT for the documents, one for their
// rows, one per register for the movements the posting rules give, and each register's totals upserted once.
import { randomUUID } from 'node:crypto'
import type { ServiceModel } from '../../src/model/model.js'
import { registerSetOf } from '../../src/posting/movement-store.js'
import { recorderOf } from '../../src/posting/post-document.js'
import { computeMovements, postingPlan } from '../../src/posting/posting-plan.js'
import { registerTotals } from '../../src/store/totals.js'
import { quoteIdentifier as q } from '../../src/sql/quote-identifier.js'
import type { PoolConnection } from '../../src/store/pool.js'

export type DocumentWriter = (connection: PoolConnection, bodies: readonly Record<string, unknown>[]) => Promise<void>

/** A writer of `Document_GoodsReceipt` bodies (each with its `Goods` array), posted, in one transaction per call. */
export function directDocumentWriter(model: ServiceModel): DocumentWriter {
  const documentSet = model.entitySetByName.get('Document_GoodsReceipt')!
  const rowSet = model.entitySetByName.get('Document_GoodsReceipt_Goods')!
  const plan = postingPlan(model, documentSet)
  const insertDocuments = `INSERT INTO ${q(documentSet.table)} (${documentSet.properties.map((p) => q(p.column)).join(', ')}) VALUES ?`
  const insertRows = `INSERT INTO ${q(rowSet.table)} (${rowSet.properties.map((p) => q(p.column)).join(', ')}) VALUES ?`
  return async (connection, bodies) => {
    const documents: unknown[][] = []
    const rows: unknown[][] = []
    const movements = new Map<string, { columns: string[]; rows: unknown[][] }>()
    for (const body of bodies) {
      const values: Record<string, unknown> = {
        ...body,
        Ref_Key: randomUUID(),
        DataVersion: '1',
        DeletionMark: 0,
        Posted: 1,
        Date: '2025-06-01 10:00:00',
      }
      documents.push(documentSet.properties.map((p) => values[p.name] ?? null))
      const goods = (body.Goods as Record<string, unknown>[]).map((row, i) => ({ ...row, Ref_Key: values.Ref_Key, LineNumber: i + 1 }))
      for (const row of goods) rows.push(rowSet.properties.map((p) => (row as Record<string, unknown>)[p.name]))
      for (const register of computeMovements(plan, { document: values, tableParts: { Goods: goods } })) {
        const entry = movements.get(register.recordTypeSet.table) ?? { columns: register.columns.map((c) => c.column), rows: [] }
        entry.rows.push(...register.rows)
        movements.set(register.recordTypeSet.table, entry)
      }
    }
    await connection.beginTransaction()
    await connection.query(insertDocuments, [documents])
    await connection.query(insertRows, [rows])
    for (const [table, entry] of movements)
      await connection.query(`INSERT INTO ${q(table)} (${entry.columns.map(q).join(', ')}) VALUES ?`, [entry.rows])
    // Totals: every register's monthly totals that the service keeps (the stock register's and the accounting
    // register's), with the same upserts, last before the COMMIT as the service writes them.
    const keys = documents.map((d) => d[0])
    for (const recordTypeSet of plan.recordTypeSets) {
      const totals = registerTotals(model, registerSetOf(model, recordTypeSet))
      if (!totals) continue
      const statement = totals.addMany(keys as string[], recorderOf(model, documentSet, '').type)
      await connection.query(statement.text, statement.parameters as unknown[])
    }
    await connection.commit()
  }
}
