// The MySQL schema, derived from the model: one table per catalog, document, table part, chart of
// accounts, information register and register movements, plus the totals that keep balances cheap and
// the service's own tables. `migrate.ts` creates what is missing and adds new columns; this file only
// describes the desired state, so a test can compare it with the database.
import { extDimensionColumns } from '../model/build-model.js'
import type { EntitySetModel, PropertyModel, ServiceModel, StorageType } from '../model/model.js'
import { EMPTY_GUID } from '../model/model.js'
import { MOVEMENT_PRIMARY_KEY, tablePrimaryKey } from '../model/table-primary-key.js'
import { id, idList, join, raw, sql, type Statement } from '../sql/sql-template.js'
import { expenseColumn, receiptColumn } from './totals.js'

export interface ColumnDefinition {
  readonly name: string
  /** The column type and constraints as in CREATE TABLE (`DECIMAL(15,3) NOT NULL DEFAULT 0`). */
  readonly definition: string
}

export interface TableDefinition {
  readonly name: string
  readonly columns: readonly ColumnDefinition[]
  readonly primaryKey: readonly string[]
  readonly indexes: readonly { readonly name: string; readonly columns: readonly string[] }[]
}

/** `utf8mb4_bin` everywhere: exact, case-sensitive comparisons as OData expects, and the same on MySQL 8 and MariaDB. */
export const TABLE_OPTIONS = 'ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_bin'

const sqlString = (value: string) => `'${value.replaceAll("'", "''").replaceAll('\\', '\\\\')}'`

export function columnType(storage: StorageType): string {
  switch (storage.kind) {
    case 'guid':
      return `CHAR(36) CHARACTER SET ascii COLLATE ascii_bin NOT NULL DEFAULT '${EMPTY_GUID}'`
    case 'string':
      // Unlimited strings have no default: MySQL 8 refuses literal defaults on TEXT; writes always give a value.
      return storage.length === undefined ? 'MEDIUMTEXT NOT NULL' : `VARCHAR(${storage.length}) NOT NULL DEFAULT ''`
    case 'decimal':
      return `DECIMAL(${storage.precision},${storage.scale}) NOT NULL DEFAULT 0`
    case 'boolean':
      return 'TINYINT(1) NOT NULL DEFAULT 0'
    case 'datetime':
      return "DATETIME NOT NULL DEFAULT '0001-01-01 00:00:00'"
    case 'int':
      return 'INT NOT NULL DEFAULT 0'
    case 'bigint':
      return 'BIGINT NOT NULL DEFAULT 0'
    case 'enum':
      return `ENUM(${storage.values.map(sqlString).join(',')}) NOT NULL DEFAULT ${sqlString(storage.values[0] ?? '')}`
  }
}

const column = (p: PropertyModel): ColumnDefinition => ({ name: p.column, definition: columnType(p.storage) })
const columnsOf = (set: EntitySetModel) => set.properties.map(column)
const names = (props: readonly PropertyModel[]) => props.map((p) => p.column)

function objectTable(model: ServiceModel, set: EntitySetModel, indexes: { name: string; columns: string[] }[] = []): TableDefinition {
  return { name: set.table, columns: columnsOf(set), primaryKey: tablePrimaryKey(model, set)!, indexes }
}

/** Movement tables: keyed by recorder and line number; indexed for period scans and per-dimension reads. */
function movementTable(recordType: EntitySetModel, dimensionColumns: string[]): TableDefinition {
  const indexes = [{ name: 'by_period', columns: ['Period'] }]
  if (dimensionColumns.length > 0) indexes.push({ name: 'by_dimensions_period', columns: [...dimensionColumns, 'Period'] })
  return { name: recordType.table, columns: columnsOf(recordType), primaryKey: MOVEMENT_PRIMARY_KEY, indexes }
}

/**
 * Totals of a balance-kind accumulation register: per month (`Period` = the first day) and dimension
 * combination, the net change of each resource in that month and its receipts and expenses
 * (`<R>Receipt`, `<R>Expense`); and per dimension combination one all-time row (`Period` =
 * ALL_TIME_PERIOD, net columns 0) whose receipts minus expenses are the current balance (totals.ts).
 * Kept in the transaction that writes the movements, so a balance reads O(groups) totals rows instead of
 * every movement, and the turnovers of whole months O(groups × months).
 */
function accumulationTotalsTable(
  tableName: string,
  dimensions: readonly PropertyModel[],
  resources: readonly PropertyModel[],
): TableDefinition {
  const flows = resources.flatMap((r) => [
    { name: receiptColumn(r.column), definition: columnType(r.storage) },
    { name: expenseColumn(r.column), definition: columnType(r.storage) },
  ])
  return {
    name: tableName,
    columns: [
      { name: 'Period', definition: "DATE NOT NULL DEFAULT '0001-01-01'" },
      ...dimensions.map(column),
      ...resources.map(column),
      ...flows,
    ],
    primaryKey: ['Period', ...names(dimensions)],
    indexes: dimensions.length > 0 ? [{ name: 'by_dimensions', columns: names(dimensions) }] : [],
  }
}

/** Totals of an accounting register: per month, account, extra dimensions and dimensions, each resource's Dr and Cr turnover. */
function accountingTotalsTable(
  tableName: string,
  recordType: EntitySetModel,
  maxExt: number,
  dimensions: readonly PropertyModel[],
  resources: readonly string[],
): TableDefinition {
  const guid = columnType({ kind: 'guid' })
  const extTypeDefinition = recordType.propertyByName.get('ExtDimensionDr1_Type')?.storage
  const extColumns = extDimensionColumns('', maxExt).flatMap((c) => [
    { name: c.value, definition: guid },
    { name: c.type, definition: extTypeDefinition ? columnType(extTypeDefinition) : "VARCHAR(80) NOT NULL DEFAULT ''" },
  ])
  const resourceColumns = resources.flatMap((r) => {
    const storage = (recordType.propertyByName.get(r) ?? recordType.propertyByName.get(`${r}Dr`))!.storage
    return [
      { name: `${r}Dr`, definition: columnType(storage) },
      { name: `${r}Cr`, definition: columnType(storage) },
    ]
  })
  const keyColumns = ['Period', 'Account_Key', ...extColumns.map((c) => c.name), ...names(dimensions)]
  return {
    name: tableName,
    columns: [
      { name: 'Period', definition: "DATE NOT NULL DEFAULT '0001-01-01'" },
      { name: 'Account_Key', definition: guid },
      ...extColumns,
      ...dimensions.map(column),
      ...resourceColumns,
    ],
    primaryKey: keyColumns,
    indexes: [{ name: 'by_account', columns: ['Account_Key'] }],
  }
}

/** The service's own tables: schema bookkeeping, run-time settings, request log, idempotent retries, rate counters. */
export const SERVICE_TABLES: readonly TableDefinition[] = [
  {
    name: '_service_state',
    columns: [
      { name: 'name', definition: 'VARCHAR(100) CHARACTER SET ascii NOT NULL' },
      { name: 'value', definition: 'MEDIUMTEXT NOT NULL' },
    ],
    primaryKey: ['name'],
    indexes: [],
  },
  {
    name: '_settings',
    columns: [
      { name: 'name', definition: 'VARCHAR(100) CHARACTER SET ascii NOT NULL' },
      { name: 'value', definition: 'VARCHAR(1000) NOT NULL' },
    ],
    primaryKey: ['name'],
    indexes: [],
  },
  {
    name: 'request_log',
    columns: [
      { name: 'id', definition: 'BIGINT NOT NULL AUTO_INCREMENT' },
      { name: 'at', definition: 'DATETIME(3) NOT NULL' },
      { name: 'subject', definition: "VARCHAR(100) NOT NULL DEFAULT ''" },
      { name: 'profile', definition: "VARCHAR(100) NOT NULL DEFAULT ''" },
      { name: 'method', definition: 'VARCHAR(10) CHARACTER SET ascii NOT NULL' },
      { name: 'url', definition: 'TEXT NOT NULL' },
      { name: 'status', definition: 'SMALLINT NOT NULL' },
      { name: 'duration_ms', definition: 'INT NOT NULL DEFAULT 0' },
      { name: 'operations', definition: 'INT NULL' },
      { name: 'content_id', definition: 'VARCHAR(200) NULL' },
      { name: 'error_code', definition: 'VARCHAR(64) CHARACTER SET ascii NULL' },
      { name: 'Пакет', definition: 'CHAR(36) CHARACTER SET ascii NULL' },
    ],
    primaryKey: ['id'],
    // No index on `at`: retention finds its bound through the primary key (request-log-retention.ts).
    indexes: [{ name: 'by_batch', columns: ['Пакет'] }],
  },
  {
    name: '_repeatability',
    columns: [
      { name: 'subject', definition: 'VARCHAR(100) NOT NULL' },
      { name: 'request_id', definition: 'VARCHAR(200) NOT NULL' },
      { name: 'created_at', definition: 'DATETIME NOT NULL' },
      { name: 'status', definition: 'SMALLINT NOT NULL' },
      { name: 'headers', definition: 'TEXT NOT NULL' },
      { name: 'body', definition: 'LONGBLOB NOT NULL' },
    ],
    primaryKey: ['subject', 'request_id'],
    indexes: [{ name: 'by_created', columns: ['created_at'] }],
  },
  {
    name: '_rate_counters',
    columns: [
      { name: 'subject', definition: 'VARCHAR(100) NOT NULL' },
      { name: 'rule_index', definition: 'INT NOT NULL' },
      { name: 'window_start', definition: 'BIGINT NOT NULL' },
      { name: 'operations', definition: 'BIGINT NOT NULL DEFAULT 0' },
    ],
    primaryKey: ['subject', 'rule_index', 'window_start'],
    indexes: [],
  },
  // The change record (src/store/change-record.ts, docs/change-tracking.md): a note per tracked table a
  // transaction wrote, holding the keys of the rows it wrote there (`key_texts`, a JSON array of key value
  // arrays, at most KEYS_PER_NOTE), in the writing transaction; `seq` is the position a delta link names.
  // (An earlier layout, `_changes`, held a note per row; migrate replaces it.)
  {
    name: '_change_notes',
    columns: [
      { name: 'seq', definition: 'BIGINT NOT NULL AUTO_INCREMENT' },
      { name: 'table_name', definition: 'VARCHAR(64) NOT NULL' },
      { name: 'key_count', definition: 'INT NOT NULL' },
      { name: 'key_texts', definition: 'MEDIUMTEXT NOT NULL' },
      { name: 'recorded_at', definition: 'DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP' },
    ],
    primaryKey: ['seq'],
    indexes: [{ name: 'by_table', columns: ['table_name', 'seq'] }],
  },
  // One row: writers hold it shared while they write their notes, a delta reader takes it exclusively
  // to learn the position below which no transaction is still in flight (change-feed.ts).
  {
    name: '_change_clock',
    columns: [{ name: 'id', definition: 'TINYINT NOT NULL' }],
    primaryKey: ['id'],
    indexes: [],
  },
]

/** Every table the model needs, in creation order. */
export function schemaTables(model: ServiceModel): TableDefinition[] {
  const tables: TableDefinition[] = []
  for (const set of model.entitySets) {
    const source = set.source
    switch (source.type) {
      case 'catalog':
      case 'chartOfAccounts':
        tables.push(
          objectTable(model, set, [
            { name: 'by_code', columns: ['Code'] },
            { name: 'by_description', columns: ['Description'] },
          ]),
        )
        break
      case 'document':
        tables.push(
          objectTable(model, set, [
            { name: 'by_date', columns: ['Date', 'Ref_Key'] },
            { name: 'by_number', columns: ['Number'] },
          ]),
        )
        break
      case 'tablePart':
      case 'chartOfAccountsExtDimensionTypes':
        tables.push(objectTable(model, set))
        break
      case 'informationRegister': {
        tables.push({
          name: set.table,
          columns: columnsOf(set),
          primaryKey: tablePrimaryKey(model, set)!,
          indexes: source.periodicity === 'None' ? [] : [{ name: 'by_period', columns: ['Period'] }],
        })
        break
      }
      case 'accumulationRegisterRecords': {
        const register = model.entitySetByName.get(source.recordSetSet)!.source
        if (register.type !== 'accumulationRegister') break
        const dimensions = register.dimensions.map((d) => set.propertyByName.get(d)!)
        tables.push(movementTable(set, names(dimensions)))
        if (register.totalsTable !== undefined) {
          tables.push(
            accumulationTotalsTable(
              register.totalsTable,
              dimensions,
              register.resources.map((r) => set.propertyByName.get(r)!),
            ),
          )
        }
        break
      }
      case 'accountingRegisterRecords': {
        const register = model.entitySetByName.get(source.recordSetSet)!.source
        if (register.type !== 'accountingRegister') break
        const dimensions = register.dimensions.map((d) => set.propertyByName.get(d)!)
        const table = movementTable(set, [])
        tables.push({
          ...table,
          indexes: [
            ...table.indexes,
            { name: 'by_account_dr', columns: ['AccountDr_Key', 'Period'] },
            { name: 'by_account_cr', columns: ['AccountCr_Key', 'Period'] },
          ],
        })
        tables.push(accountingTotalsTable(register.totalsTable, set, register.maxExtDimensions, dimensions, register.resources))
        break
      }
      default:
        // Record-set sets read the movement table of their register; nothing of their own to create.
        break
    }
  }
  return [...tables, ...SERVICE_TABLES]
}

/** DDL has no placeholders: names are quoted identifiers, definitions are text made here from the model. */
export function createTableSql(table: TableDefinition): Statement {
  const lines = [
    ...table.columns.map((c) => sql`  ${id(c.name)} ${raw(c.definition)}`),
    sql`  PRIMARY KEY (${idList(table.primaryKey)})`,
    ...table.indexes.map((i) => sql`  KEY ${id(i.name)} (${idList(i.columns)})`),
  ]
  return sql`CREATE TABLE IF NOT EXISTS ${id(table.name)} (\n${join(lines, ',\n')}\n) ${raw(TABLE_OPTIONS)}`
}
