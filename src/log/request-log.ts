// The request log of decisions.md §8: the MySQL table `request_log`. Levels: `off`, `errors`, `writes`
// (writes and errors; a batch of reads only is not logged), `all`. No credential reaches it, whatever its
// spelling (redact-url.ts): the `token` parameter, the token-path segment, userinfo and every configured
// token are masked.
//
// Single requests are appended to a buffer written by multi-row INSERTs in the background, so logging
// does not add a round trip to every request. A batch writes its entries at once and waits for them: a
// failure there is answered `500 LogWriteFailed` (service.md §7), with the executed operations listed.
import { requestLogFailuresTotal } from '../metrics/service-metrics.js'
import type { ResolvedSettings } from '../model/model.js'
import { isDatabaseUnreachable, isLockWaitTimeout } from '../database-failures.js'
import { idList, sql, type Statement } from '../sql/sql-template.js'
import { rowValuesSharing } from '../store/shared-row-values.js'
import type { Pool } from '../store/pool.js'
import { databaseOf } from '../store/database.js'
import { isDeadlock, type Transaction } from '../store/transaction.js'
import { logger } from './logger.js'
import { logContentId, logErrorCode, logMethod, logName, logUrl } from './log-entry-fields.js'
import { redactUrl } from './redact-url.js'

export interface RequestLogEntry {
  readonly at: Date
  readonly subject: string
  readonly profile: string
  readonly method: string
  readonly url: string
  readonly status: number
  readonly durationMs: number
  readonly operations?: number
  readonly contentId?: string
  readonly errorCode?: string
  /** The batch's id shared by the `$batch` entry and its operations (column `Пакет`). */
  readonly batchId?: string
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE', 'MERGE'])

/** Whether an entry is logged at a level. */
export function shouldLog(level: ResolvedSettings['logLevel'], method: string, status: number): boolean {
  switch (level) {
    case 'off':
      return false
    case 'errors':
      return status >= 400
    case 'writes':
      return status >= 400 || WRITE_METHODS.has(method)
    case 'all':
      return true
  }
}

const COLUMN_NAMES = [
  'at',
  'subject',
  'profile',
  'method',
  'url',
  'status',
  'duration_ms',
  'operations',
  'content_id',
  'error_code',
  'Пакет',
]
const INSERT = sql`INSERT INTO \`request_log\` (${idList(COLUMN_NAMES)}) VALUES `

// Every value is bounded to its column (log-entry-fields.ts): a client's method, URL or Content-ID can fail
// no INSERT, and so can take no other entry with it.
function row(entry: RequestLogEntry, secrets: readonly string[], redact = (url: string) => redactUrl(url, secrets)): unknown[] {
  return [
    entry.at,
    logName(entry.subject),
    logName(entry.profile),
    logMethod(entry.method),
    logUrl(redact(entry.url)),
    entry.status,
    Math.round(entry.durationMs),
    entry.operations ?? null,
    logContentId(entry.contentId),
    logErrorCode(entry.errorCode),
    entry.batchId ?? null,
  ]
}

const FLUSH_INTERVAL_MS = 200
const FLUSH_ROWS = 500

export class RequestLog {
  private pending: unknown[][] = []
  private timer: NodeJS.Timeout | undefined

  constructor(
    private readonly pool: Pool,
    private readonly level: () => ResolvedSettings['logLevel'],
    /** The configured tokens: masked wherever they stand in a logged URL, in any spelling. */
    private readonly secrets: readonly string[] = [],
  ) {}

  /** Single requests: buffered, written in the background. */
  append(entry: RequestLogEntry): void {
    if (!shouldLog(this.level(), entry.method, entry.status)) return
    this.pending.push(row(entry, this.secrets))
    if (this.pending.length >= FLUSH_ROWS) void this.flush()
    else this.timer ??= setTimeout(() => void this.flush(), FLUSH_INTERVAL_MS).unref()
  }

  /**
   * Writes the buffer, and resolves once every write begun before the call is over: a background write
   * already on its way (its rows no longer in the buffer) is waited for too, so that a graceful stop, or a
   * reader of the log, finds every entry made so far.
   */
  async flush(): Promise<void> {
    clearTimeout(this.timer)
    this.timer = undefined
    const rows = this.pending
    this.pending = []
    const earlier = this.writing
    const writing = Promise.all([earlier, rows.length === 0 ? undefined : this.write(rows)]).then(() => undefined)
    this.writing = writing
    await writing
  }

  /** The writes begun so far (never rejects: a failure is counted and logged). */
  private writing: Promise<void> = Promise.resolve()

  private async write(rows: unknown[][]): Promise<void> {
    try {
      // Single requests' entries share most of their columns too (subject, profile, method, status, the empty ones):
      // each shared value is written once, and the driver formats the rest (time, URL, duration) per row.
      await databaseOf(this.pool).run(sql`${INSERT}${rowValuesSharing(rows, COLUMN_NAMES.length)}`)
    } catch (error) {
      // The log is an audit trail: one entry the server refuses must not take the others with it. Entry by
      // entry, so only what still fails is lost; not when the server is gone, where every entry would fail.
      const lost = rows.length === 1 || isDatabaseUnreachable(error) ? rows.length : await this.insertOneByOne(rows)
      if (lost === 0) return
      requestLogFailuresTotal.inc(lost)
      logger.error({ err: error, entries: rows.length, lost }, 'request log write failed')
    }
  }

  /** Each row in an INSERT of its own; resolves to the number that failed (the caller logs them once). */
  private async insertOneByOne(rows: readonly unknown[][]): Promise<number> {
    let lost = 0
    for (const values of rows) {
      try {
        await databaseOf(this.pool).run(sql`${INSERT}${rowValuesSharing([values], COLUMN_NAMES.length)}`)
      } catch {
        lost++
      }
    }
    return lost
  }

  /**
   * A batch's entries (all under its batch id), written now; throws when they cannot be written. One
   * multi-row INSERT in autocommit (a statement is atomic on its own: one round trip, where a transaction
   * of its own took three). A connection lost on the way (a node of a cluster going away) leaves it unknown
   * whether the rows were written; the batch id tells, on another connection, and they are written again
   * only if they were not, so they are never lost and never doubled.
   */
  async writeBatch(entries: readonly RequestLogEntry[], options: { lookFirst?: boolean } = {}): Promise<void> {
    if (entries.length === 0) return
    const batchId = batchIdOf(entries)
    // `lookFirst`: the entries may have been committed already, with a change set whose COMMIT was cut off.
    await insertOnce(this.pool, this.batchInsert(entries), batchId, options.lookFirst === true).catch((error: unknown) => {
      requestLogFailuresTotal.inc()
      throw error
    })
  }

  /**
   * A batch's entries written inside the transaction of its last change set, so that they commit with it:
   * one commit (one flush of the redo log) for the operations and their log instead of two. Resolves true
   * when the INSERT ran; false when it failed on its own (a statement that fails is undone alone and the
   * transaction goes on), and the caller then writes them after the commit as usual. A deadlock or a lost
   * connection ends the whole transaction and is thrown, for the change set to run again.
   */
  async writeBatchIn(transaction: Transaction, entries: readonly RequestLogEntry[]): Promise<boolean> {
    if (entries.length === 0) return true
    batchIdOf(entries)
    try {
      await transaction.run(this.batchInsert(entries))
      return true
    } catch (error) {
      if (isDeadlock(error) || isDatabaseUnreachable(error)) throw error
      requestLogFailuresTotal.inc()
      logger.warn({ err: error, entries: entries.length }, 'request log write in the change set failed; writing it after the commit')
      return false
    }
  }

  /** One multi-row INSERT of a batch's entries, the values they share written once. */
  private batchInsert(entries: readonly RequestLogEntry[]): Statement {
    // A batch's operations mostly share a few URLs: each is redacted once.
    const redacted = new Map<string, string>()
    const secrets = this.secrets
    const redact = (url: string) => {
      let text = redacted.get(url)
      if (text === undefined) redacted.set(url, (text = redactUrl(url, secrets)))
      return text
    }
    const rows = entries.map((entry) => row(entry, secrets, redact))
    return sql`${INSERT}${rowValuesSharing(rows, COLUMN_NAMES.length)}`
  }
}

function batchIdOf(entries: readonly RequestLogEntry[]): string {
  const batchId = entries[0]!.batchId
  if (batchId === undefined || entries.some((entry) => entry.batchId !== batchId))
    throw new Error('a batch is logged with the entries of one batch, all under its batch id')
  return batchId
}

/** MySQL's error for a system variable it does not have (wsrep_sync_wait on a server without Galera support). */
const ER_UNKNOWN_SYSTEM_VARIABLE = 1193

/**
 * Whether the batch's entries are in the log. Asked after a lost connection, which on a Galera cluster means
 * the look-up may reach another node than the one the entries were written on, and a node may not yet have
 * applied what another committed: the read is causal (`wsrep_sync_wait`), so it waits until this node has
 * applied everything committed before it. MariaDB without a cluster accepts the setting and reads as always;
 * MySQL does not know it, and its reads are causal on their own. On a connection of its own, closed after, so
 * the setting never reaches the pool's other users.
 */
async function batchLogged(pool: Pool, batchId: string): Promise<boolean> {
  const connection = await pool.getConnection()
  try {
    await databaseOf(connection)
      .run(sql`SET SESSION wsrep_sync_wait = 1`)
      .catch((error: unknown) => {
        if ((error as { errno?: number }).errno !== ER_UNKNOWN_SYSTEM_VARIABLE) throw error
      })
    const found = await databaseOf(connection).rows<unknown>(sql`SELECT 1 FROM \`request_log\` WHERE \`Пакет\` = ${batchId} LIMIT 1`)
    return found.length > 0
  } finally {
    connection.destroy()
  }
}

/**
 * How many times a batch's entries are sent, or looked up, at most. A node that died is passed over by the
 * failover pool for a second (src/store/failover-pool.ts) and a joining one refuses until it is ready: the
 * attempts, with their pauses, span a few seconds, so a node lost at the moment of the log's write costs no
 * answer (docs/node-failures.md).
 */
const INSERT_ATTEMPTS = 8

/** A short pause before the next attempt, growing with it (about 3.6 s over every attempt). */
function pause(attempt: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, 50 * attempt + Math.floor(Math.random() * 50)))
}

/**
 * Writes the entries once. After a lost connection it cannot be known whether they were written, so they
 * are looked up (batchLogged) before being sent again; a look-up that meets a lost node too is made again,
 * never skipped: sending the entries without knowing could write them twice. A deadlock or lost
 * certification rolled the INSERT back whole (autocommit): it is sent again as it is. A lock wait timeout
 * (1205) is the answer of a causal read (`wsrep_sync_wait`) that waited too long for its node: another try.
 */
async function insertOnce(pool: Pool, statement: Statement, batchId: string, lookFirst: boolean): Promise<void> {
  let mustLook = lookFirst
  for (let attempt = 1; ; attempt++) {
    try {
      if (mustLook) {
        if (await batchLogged(pool, batchId)) return
        mustLook = false
      }
      await databaseOf(pool).run(statement)
      return
    } catch (error) {
      const unknown = isDatabaseUnreachable(error) || isLockWaitTimeout(error)
      if (attempt >= INSERT_ATTEMPTS || !(unknown || isDeadlock(error))) throw error
      if (unknown) mustLook = true
      await pause(attempt)
    }
  }
}
