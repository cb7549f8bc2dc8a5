// Multi-row INSERTs for bulk loads (seed data): rows are buffered per table and sent a few thousand at a
// time, which is what makes loading millions of rows take minutes instead of hours. Up to two INSERTs
// are in flight at once, so generating the next rows overlaps with the database writing the last ones.
// A seed resumed after an interruption (src/seed/seed-data.ts) makes its rows again from the start: rows
// recorded as written are dropped (`skipping`), and rows that may have been written after the last record
// are sent with INSERT IGNORE (`ignoringDuplicates`): the generator makes the same rows every time.
import { id, idList, rowValues, sql, type Statement } from '../sql/sql-template.js'
import type { Pool } from './pool.js'
import { databaseOf } from './database.js'

const ROWS_PER_STATEMENT = 2000
const IN_FLIGHT = 2

interface Buffered {
  /** `INSERT INTO t (columns) VALUES `, made once per table and column list. */
  readonly head: Statement
  /** The same with INSERT IGNORE. */
  readonly ignoringHead: Statement
  readonly width: number
  rows: unknown[][]
}

export class BulkWriter {
  private readonly buffers = new Map<string, Buffered>()
  private readonly inFlight = new Set<Promise<void>>()
  private failure: unknown
  /** Rows added are dropped: they were written by an earlier run. */
  skipping = false
  /** Rows are sent with INSERT IGNORE: an earlier run may have written them. Changed only when nothing is buffered. */
  ignoringDuplicates = false

  constructor(private readonly pool: Pool) {}

  async add(table: string, columns: readonly string[], row: unknown[]): Promise<void> {
    if (this.skipping) return
    const key = `${table}\u0000${columns.join('\u0000')}`
    let buffer = this.buffers.get(key)
    if (!buffer) {
      buffer = {
        head: sql`INSERT INTO ${id(table)} (${idList(columns)}) VALUES `,
        ignoringHead: sql`INSERT IGNORE INTO ${id(table)} (${idList(columns)}) VALUES `,
        width: columns.length,
        rows: [],
      }
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
    const head = this.ignoringDuplicates ? buffer.ignoringHead : buffer.head
    const pending: Promise<void> = databaseOf(this.pool)
      .run(sql`${head}${rowValues(rows, buffer.width)}`)
      .then(
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
