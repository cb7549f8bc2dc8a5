// `ExtDimensions` of an accounting register (service.md §4.2): the kinds of extra dimensions of every
// account of the register's chart, a row per account and position — `Account_Key`, `LineNumber` (1 for
// the first extra dimension), `ExtDimensionType` (the kind's name) and `ExtDimensionType_Type` (the type
// of its values, as `ExtDimension<N>_Type` of the entries carries it). Accounts and their kinds are
// predefined by the configuration, so the rows come from the model; the function takes no parameters,
// and a `$filter` on `Account_Key` or `Account/Code` chooses accounts. Rows are not grouped; their key is
// (Account_Key, LineNumber).
import { join, raw, sql, type Statement } from '../sql/sql-template.js'
import { accountingTables } from './accounting-reader.js'
import type { VirtualTable, VirtualTableCall } from './virtual-table.js'

export const extDimensions: VirtualTable = {
  name: 'ExtDimensions',
  grouped: false,
  groupableColumns: () => ['Account_Key'],
  periodColumns: () => [],
  conditionColumns: () => [],
  rowKey: () => ['Account_Key', 'LineNumber'],
  async relation(call: VirtualTableCall): Promise<Statement> {
    const tables = accountingTables(call.tables)
    const rows = tables.accounts.flatMap((account) =>
      account.extDimensions.map((kind, i) => {
        const valueType = tables.kinds.find((k) => k.name === kind)?.valueType ?? ''
        return sql`SELECT ${account.key} AS Account_Key, ${raw(String(i + 1))} AS LineNumber, ${kind} AS ExtDimensionType, ${valueType} AS ExtDimensionType_Type`
      }),
    )
    if (rows.length === 0)
      return raw(
        "SELECT CAST(NULL AS CHAR(36)) AS Account_Key, 0 AS LineNumber, '' AS ExtDimensionType, '' AS ExtDimensionType_Type FROM DUAL WHERE 1 = 0",
      )
    return join(rows, ' UNION ALL ')
  },
}
