// Reading the request log back (`request_log`, decisions.md §8) for the administration page: newest first,
// filtered by status (a code, or a class such as `4xx`), subject and batch id (`Пакет`), a page at a time.
import { raw, sql, join } from '../sql/sql-template.js'
import type { Pool } from '../store/pool.js'
import { databaseOf } from '../store/database.js'

export interface RequestLogFilter {
  /** `404`, or a class: `4xx`. */
  readonly status?: string
  readonly subject?: string
  readonly batchId?: string
  /** 1-based. */
  readonly page: number
  readonly pageSize: number
}

export interface RequestLogRow {
  readonly id: number
  readonly at: string
  readonly subject: string
  readonly profile: string
  readonly method: string
  readonly url: string
  readonly status: number
  readonly durationMs: number
  readonly operations: number | null
  readonly contentId: string | null
  readonly errorCode: string | null
  readonly batchId: string | null
}

export interface RequestLogPage {
  readonly entries: readonly RequestLogRow[]
  readonly page: number
  readonly pageSize: number
  readonly total: number
}

/** Throws an Error with a message for the client when the status filter is neither a code nor a class. */
export async function readRequestLog(pool: Pool, filter: RequestLogFilter): Promise<RequestLogPage> {
  const conditions = [sql`1 = 1`]
  if (filter.status !== undefined && filter.status !== '') {
    const exact = /^[1-5]\d\d$/.exec(filter.status)
    const range = /^([1-5])xx$/i.exec(filter.status)
    if (exact) conditions.push(sql`\`status\` = ${Number(filter.status)}`)
    else if (range) conditions.push(sql`\`status\` BETWEEN ${Number(range[1]) * 100} AND ${Number(range[1]) * 100 + 99}`)
    else throw new RangeError(`status must be a code (404) or a class (4xx), not ${JSON.stringify(filter.status)}`)
  }
  if (filter.subject) conditions.push(sql`\`subject\` = ${filter.subject}`)
  if (filter.batchId) conditions.push(sql`\`Пакет\` = ${filter.batchId}`)
  const where = join(conditions, ' AND ')
  const offset = (filter.page - 1) * filter.pageSize
  const rows = await databaseOf(pool).rows<Record<string, unknown>>(
    sql`SELECT \`id\`, \`at\`, \`subject\`, \`profile\`, \`method\`, \`url\`, \`status\`, \`duration_ms\`, \`operations\`, \`content_id\`, \`error_code\`, \`Пакет\` AS batch_id FROM \`request_log\` WHERE ${where} ORDER BY \`id\` DESC LIMIT ${raw(String(filter.pageSize))} OFFSET ${raw(String(offset))}`,
  )
  const [{ total }] = await databaseOf(pool).rows<{ total: number | string }>(
    sql`SELECT COUNT(*) AS total FROM \`request_log\` WHERE ${where}`,
  )
  return {
    entries: rows.map((row) => ({
      id: Number(row.id),
      at: `${String(row.at).replace(' ', 'T')}Z`,
      subject: String(row.subject),
      profile: String(row.profile),
      method: String(row.method),
      url: String(row.url),
      status: Number(row.status),
      durationMs: Number(row.duration_ms),
      operations: row.operations === null ? null : Number(row.operations),
      contentId: (row.content_id as string | null) ?? null,
      errorCode: (row.error_code as string | null) ?? null,
      batchId: (row.batch_id as string | null) ?? null,
    })),
    page: filter.page,
    pageSize: filter.pageSize,
    total: Number(total),
  }
}
