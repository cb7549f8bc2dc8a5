// `RecordsWithExtDimensions` of an accounting register (service.md §4.2, decisions.md §6): the active
// entries with `StartPeriod ≤ Period ≤ EndPeriod` (either bound optional), each a row as the reference
// system lists movements with their extra dimensions — Period, Recorder, LineNumber, both accounts with
// their extra dimensions, the dimensions, resources and attributes. Rows are records, not groups; their
// key and default order is (Period, Recorder, Recorder_Type, LineNumber).
//
// Unlike the balances, the Condition may name accounts and resources (`AccountDr_Key eq …`, `Amount gt
// 100`). `Top` keeps the first rows in that order (0: all); `Order` is parsed and checked — a list of
// `<property> [asc|desc]` naming single properties of the result — but not applied (§4.2 rule 2).
import { ODataError } from '../errors.js'
import { column, id, join, raw, sql, type Statement } from '../sql/sql-template.js'
import type { RegisterTables } from './register-tables.js'
import type { VirtualTableArguments } from './virtual-table-arguments.js'
import type { VirtualTable, VirtualTableCall } from './virtual-table.js'

const KEY = ['Period', 'Recorder', 'Recorder_Type', 'LineNumber']

/** Checks an `Order` value: comma-separated single property names of the result, each optionally asc or desc. */
export function checkOrder(order: string, properties: readonly string[]): void {
  const items = order.split(',').map((item) => item.trim())
  if (order.trim() === '') return
  for (const item of items) {
    const match = /^([\p{L}\p{N}_]+)(?:\s+(asc|desc))?$/iu.exec(item)
    if (!match)
      throw new ODataError(
        'InvalidParameter',
        `Order item ${JSON.stringify(item)} is not a property name, optionally followed by asc or desc`,
        { target: 'Order' },
      )
    if (!properties.includes(match[1]!))
      throw new ODataError(
        'InvalidParameter',
        `Order names ${match[1]}, which is not a property of the result; its properties are ${properties.join(', ')}`,
        { target: 'Order' },
      )
  }
}

export const recordsWithExtDimensions: VirtualTable = {
  name: 'RecordsWithExtDimensions',
  grouped: false,
  groupableColumns: (tables: RegisterTables) => tables.records.properties.filter((p) => p.role === 'dimension').map((p) => p.name),
  periodColumns: () => KEY,
  conditionColumns: (_args: VirtualTableArguments, tables: RegisterTables) => tables.records.properties.map((p) => p.name),
  rowKey: () => KEY,
  checkArguments(args: VirtualTableArguments, tables: RegisterTables) {
    if (args.order !== undefined)
      checkOrder(
        args.order,
        tables.records.properties.filter((p) => p.name !== 'Active').map((p) => p.name),
      )
  },
  async relation(call: VirtualTableCall): Promise<Statement> {
    const records = call.tables.records
    const M = 'm'
    const { startPeriod: start, endPeriod: end, top } = call.arguments
    const where = [
      sql`${column(M, 'Active')} = 1`,
      ...(start === undefined ? [] : [sql`${column(M, 'Period')} >= ${start}`]),
      ...(end === undefined ? [] : [sql`${column(M, 'Period')} <= ${end}`]),
    ]
    const names = call.signature.resultProperties.map((p) => p.name)
    const properties = names.map((name) => records.propertyByName.get(name)!)
    const rows =
      call.condition === undefined
        ? sql`SELECT ${join(properties.map((p) => sql`${column(M, p.column)} AS ${id(p.name)}`))} FROM ${id(records.table)} AS ${raw(M)} WHERE ${join(where, ' AND ')}`
        : call.condition.over(sql`SELECT ${raw(M)}.* FROM ${id(records.table)} AS ${raw(M)} WHERE ${join(where, ' AND ')}`, names)
    if (top === undefined || top === 0) return rows
    // The first Top entries in time order; the read orders them again by the same key.
    return sql`SELECT * FROM (${rows}) AS ${raw('r')} ORDER BY ${join(['Period', 'Recorder', 'LineNumber'].map((name) => column('r', name)))} LIMIT ${raw(String(top))}`
  },
}
