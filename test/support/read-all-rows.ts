// Every row of a row source (src/store/row-source.ts), read as the response writer reads them: what has
// arrived, then a wait for more, until the source ends.
import type { RowSource } from '../../src/store/row-source.js'

export async function readAllRows(source: RowSource): Promise<unknown[][]> {
  const rows: unknown[][] = []
  for (;;) {
    const row = source.read()
    if (row !== null) rows.push(row)
    else if (source.ended) return rows
    else await source.wait()
  }
}
