// Brings the database to the schema the model describes, idempotently:
// - a missing table is created;
// - a missing column is added (a new attribute in the configuration);
// - an ENUM whose allowed values grew (a new recorder) is widened, because old values stay valid;
// - an index this code no longer keeps is dropped (it holds no data, and costs every INSERT);
// - the change record's earlier layout (`_changes`, a note per row) is dropped with its notes, which are
//   transient by design: delta links issued under it answer 410 (retireRowChangeRecord);
// - anything else that differs (a column the model no longer has, a changed type) is reported, never
//   dropped or converted silently: data loss must be somebody's explicit decision.
// Totals are derived data: a totals table whose layout is not the one this code keeps (the versions
// recorded in `_service_state`), or that was just created or given new columns, is recomputed from the
// movements (totals.ts), so a database from an older version serves correct balances at once.
import { PURGED_THROUGH, prepareChangeRecord } from './change-feed.js'
import type { Pool } from './pool.js'
import { createTableSql, schemaTables, type TableDefinition } from './schema.js'
import { id, raw, sql } from '../sql/sql-template.js'
import { databaseOf } from './database.js'
import type { ServiceModel } from '../model/model.js'
import { totalsLayouts } from './totals.js'
import { recomputeTotals } from './totals-rebuild.js'

/** The `_service_state` entry recording the layout version of each totals table (JSON: table → version). */
export const TOTALS_LAYOUT_MARKER = 'totals_layout'

export interface MigrationReport {
  readonly createdTables: string[]
  readonly addedColumns: string[]
  readonly widenedColumns: string[]
  /** Differences left alone on purpose; printed at start-up. */
  readonly warnings: string[]
}

interface ExistingColumn {
  readonly name: string
  readonly columnType: string
}

export async function existingColumns(pool: Pool): Promise<Map<string, ExistingColumn[]>> {
  const rows = await databaseOf(pool).rows<{ tableName: string; columnName: string; columnType: string }>(
    sql`SELECT TABLE_NAME AS tableName, COLUMN_NAME AS columnName, COLUMN_TYPE AS columnType FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE() ORDER BY TABLE_NAME, ORDINAL_POSITION`,
  )
  const byTable = new Map<string, ExistingColumn[]>()
  for (const row of rows) {
    const list = byTable.get(row.tableName) ?? []
    list.push({ name: row.columnName, columnType: row.columnType })
    byTable.set(row.tableName, list)
  }
  return byTable
}

/** `enum('a','b')` → ['a','b'] (MySQL's own quoting: '' inside values). */
function enumValues(columnType: string): string[] | undefined {
  const match = /^enum\((.*)\)$/is.exec(columnType)
  if (!match) return undefined
  return [...match[1]!.matchAll(/'((?:[^']|'')*)'/g)].map((m) => m[1]!.replaceAll("''", "'"))
}

function wantedEnumValues(definition: string): string[] | undefined {
  const match = /^ENUM\((.*?)\) NOT NULL/s.exec(definition)
  return match ? enumValues(`enum(${match[1]})`) : undefined
}

/** The bare type of a column (`decimal(15,3)`, `varchar(11)`, `int`), comparable between the DDL and information_schema. */
function normalizedType(type: string): string {
  return type
    .split(/ (?:CHARACTER|COLLATE|NOT|NULL|DEFAULT|AUTO_INCREMENT)\b/i)[0]!
    .toLowerCase()
    .replace(/^(tinyint|smallint|int|bigint)\(\d+\)/, '$1') // display widths: MariaDB shows them, MySQL 8 does not
}

function sameType(existingColumnType: string, definition: string): boolean {
  return normalizedType(existingColumnType) === normalizedType(definition)
}

export async function migrate(pool: Pool, model: ServiceModel): Promise<MigrationReport> {
  const report: MigrationReport = { createdTables: [], addedColumns: [], widenedColumns: [], warnings: [] }
  const existing = await existingColumns(pool)
  for (const table of schemaTables(model)) {
    const columns = existing.get(table.name)
    if (!columns) {
      await databaseOf(pool).run(createTableSql(table))
      report.createdTables.push(table.name)
      continue
    }
    await reconcileTable(pool, table, columns, report)
  }
  await dropRetiredIndexes(pool)
  if (existing.has(RETIRED_CHANGE_RECORD)) await retireRowChangeRecord(pool)
  await prepareChangeRecord(pool)
  await bringTotalsUpToDate(pool, model, report)
  return report
}

/**
 * Indexes an earlier version made and this one no longer keeps: each costs every INSERT of its table. An
 * index holds no data of its own, so it is dropped rather than reported.
 */
const RETIRED_INDEXES: readonly { readonly table: string; readonly index: string }[] = [
  // Retention finds its bound through the primary key now (src/log/request-log-retention.ts).
  { table: 'request_log', index: 'by_at' },
]

async function dropRetiredIndexes(pool: Pool): Promise<void> {
  for (const { table, index } of RETIRED_INDEXES) {
    const found = await databaseOf(pool).rows<unknown>(
      sql`SELECT 1 FROM information_schema.STATISTICS WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = ${table} AND INDEX_NAME = ${index} LIMIT 1`,
    )
    if (found.length > 0) await databaseOf(pool).run(sql`ALTER TABLE ${id(table)} DROP INDEX ${id(index)}`)
  }
}

/** The change record's earlier layout: a note per written row (now one per transaction and table, `_change_notes`). */
const RETIRED_CHANGE_RECORD = '_changes'

/**
 * Replaces the change record's earlier layout. Its notes are transient by design (retention drops them
 * after a week) and a client whose delta link can no longer be followed reads the set again, so they are
 * dropped, not converted: the purge position is moved above every position the old table handed out, so
 * that each delta link issued under it answers 410 DeltaLinkGone (never wrong rows), and the new sequence
 * starts above that, so the positions of new links stand above it (change-feed.ts: changePositions).
 */
async function retireRowChangeRecord(pool: Pool): Promise<void> {
  const database = databaseOf(pool)
  const [old] = await database.rows<{ newest: string | number }>(
    sql`SELECT COALESCE(MAX(seq), 0) AS newest FROM ${id(RETIRED_CHANGE_RECORD)}`,
  )
  const [state] = await database.rows<{ value: string }>(sql`SELECT \`value\` FROM _service_state WHERE \`name\` = ${PURGED_THROUGH}`)
  const [notes] = await database.rows<{ newest: string | number }>(sql`SELECT COALESCE(MAX(seq), 0) AS newest FROM _change_notes`)
  let highest = 0n
  for (const position of [old!.newest, state?.value ?? 0, notes!.newest]) if (BigInt(position) > highest) highest = BigInt(position)
  const above = highest + 1n
  await database.run(
    sql`INSERT INTO _service_state (\`name\`, \`value\`) VALUES (${PURGED_THROUGH}, ${String(above)}) ON DUPLICATE KEY UPDATE \`value\` = GREATEST(CAST(\`value\` AS UNSIGNED), ${String(above)})`,
  )
  await database.run(raw(`ALTER TABLE _change_notes AUTO_INCREMENT = ${above + 1n}`))
  await database.run(sql`DROP TABLE ${id(RETIRED_CHANGE_RECORD)}`)
}

/**
 * Recomputes the totals tables whose recorded layout is not the code's (none recorded: version 1, the
 * layout from before versions were recorded) or that were just created or given columns.
 */
async function bringTotalsUpToDate(pool: Pool, model: ServiceModel, report: MigrationReport): Promise<void> {
  const wanted = totalsLayouts(model)
  const rows = await databaseOf(pool).rows<{ value: string }>(
    sql`SELECT \`value\` FROM \`_service_state\` WHERE \`name\` = ${TOTALS_LAYOUT_MARKER}`,
  )
  const text = rows[0]?.value
  const recorded = new Map(Object.entries(text === undefined ? {} : (JSON.parse(text) as Record<string, number>)))
  const altered = new Set([...report.createdTables, ...report.addedColumns.map((column) => column.slice(0, column.indexOf('.')))])
  const stale = new Set(
    [...wanted].filter(([table, version]) => (recorded.get(table) ?? 1) !== version || altered.has(table)).map(([table]) => table),
  )
  if (stale.size > 0) await recomputeTotals(pool, model, stale)
  if (stale.size > 0 || text === undefined || [...wanted].some(([table, version]) => recorded.get(table) !== version)) {
    await databaseOf(pool).run(
      sql`REPLACE INTO \`_service_state\` (\`name\`, \`value\`) VALUES (${TOTALS_LAYOUT_MARKER}, ${JSON.stringify(Object.fromEntries(wanted))})`,
    )
  }
}

async function reconcileTable(pool: Pool, table: TableDefinition, columns: ExistingColumn[], report: MigrationReport): Promise<void> {
  const byName = new Map(columns.map((c) => [c.name, c] as const))
  let previous: string | undefined
  for (const column of table.columns) {
    const found = byName.get(column.name)
    if (!found) {
      const position = previous === undefined ? raw('FIRST') : sql`AFTER ${id(previous)}`
      await databaseOf(pool).run(sql`ALTER TABLE ${id(table.name)} ADD COLUMN ${id(column.name)} ${raw(column.definition)} ${position}`)
      report.addedColumns.push(`${table.name}.${column.name}`)
    } else {
      const wanted = wantedEnumValues(column.definition)
      const have = enumValues(found.columnType)
      if (wanted && have) {
        const grows = have.every((value, i) => wanted[i] === value)
        if (grows && wanted.length > have.length) {
          await databaseOf(pool).run(sql`ALTER TABLE ${id(table.name)} MODIFY COLUMN ${id(column.name)} ${raw(column.definition)}`)
          report.widenedColumns.push(`${table.name}.${column.name}`)
        } else if (!grows || wanted.length < have.length) {
          report.warnings.push(
            `${table.name}.${column.name}: allowed values differ from the configuration (${found.columnType}); left unchanged`,
          )
        }
      } else if (!sameType(found.columnType, column.definition)) {
        report.warnings.push(
          `${table.name}.${column.name}: the database has ${found.columnType}, the configuration wants ${normalizedType(column.definition)}; left unchanged`,
        )
      }
    }
    previous = column.name
  }
  const wantedNames = new Set(table.columns.map((c) => c.name))
  for (const column of columns) {
    if (!wantedNames.has(column.name))
      report.warnings.push(
        `${table.name}.${column.name}: not in the configuration any more; kept (drop it by hand if its data is not needed)`,
      )
  }
}
