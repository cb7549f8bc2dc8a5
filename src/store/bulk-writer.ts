// Multi-row INSERTs for bulk loads (seed data): rows are buffered per table and sent a few thousand at a
// time, which is what makes loading millions of rows take minutes instead of hours. Up to two INSERTs
// are in flight at once, so generating the next rows overlaps with the database writing the last ones.
import { id, idList, rowValues, sql, type SqlFragment } from '../sql/sql-template.js'
import type { Pool } from './pool.js'
import { query } from './run-statement.js'

const ROWS_PER_STATEMENT = 2000
const IN_FLIGHT = 2

interface Buffered {
  /** `INSERT INTO t (columns) VALUES `, made once per table and column list. */
  readonly head: SqlFragment
  readonly width: number
  rows: unknown[][]
}

export class BulkWriter {
  private readonly buffers = new Map<string, Buffered>()
  private readonly inFlight = new Set<Promise<void>>()
  private failure: unknown

  constructor(private readonly pool: Pool) {}

  async add(table: string, columns: readonly string[], row: unknown[]): Promise<void> {
    const key = `${table}\u0000${columns.join('\u0000')}`
    let buffer = this.buffers.get(key)
    if (!buffer) {
      buffer = { head: sql`INSERT INTO ${id(table)} (${idList(columns)}) VALUES `, width: columns.length, rows: [] }
      this.buffers.set(key, buffer)
    }
    buffer.rows.push(row)
    if (buffer.rows.length >= ROWS_PER_STATEMENT) await this.flush(buffer)
  }

  private async flush(buffer: Buffered): Promise<void> {
    if (buffer.rows.length === 0) return
    const rows = buffer.rows
    buffer.rows = []
    while (this.inFlight.size >= IN_FLIGHT) await Promise.race(this.inFlight)
    if (this.failure) throw this.failure
    const pending: Promise<void> = query(this.pool, sql`${buffer.head}${rowValues(rows, buffer.width)}`).then(
      () => undefined,
      (error: unknown) => {
        this.failure ??= error
      },
    )
    const tracked = pending.finally(() => this.inFlight.delete(tracked))
    this.inFlight.add(tracked)
  }

  async flushAll(): Promise<void> {
    for (const buffer of this.buffers.values()) await this.flush(buffer)
    await Promise.all(this.inFlight)
    if (this.failure) throw this.failure
  }
}
