// The JSON `$batch` the batch benchmarks send: one change set of single-row catalog creates, each item with a
// code of its own (a counter of this process), marked by `article` so that a benchmark can delete its rows.
import { buildJsonBatch, type BuiltBatch } from '../../src/tools/shared/batch-body.js'

let serial = 0

export function catalogCreateBatch(operations: number, article: string): BuiltBatch {
  return buildJsonBatch(
    Array.from({ length: operations }, (_, i) => {
      serial++
      return {
        id: String(i + 1),
        method: 'POST',
        url: 'Catalog_Products',
        headers: { 'Content-Type': 'application/json' },
        body: { Code: `U${String(serial).padStart(10, '0')}`, Description: `Bench item ${serial}`, Article: article, Unit: 'pcs' },
        atomicityGroup: 'g',
      }
    }),
  )
}
