// `Balance` of an accumulation register of the Balance kind (service.md §4.2, decisions.md §6): per group,
// `<R>Balance` of the active movements with `Period < Period` (all movements without a Period). Read from
// the totals plus the movements of the current month (accumulation-parts.ts), so the cost follows the
// number of groups. Groups whose balances are all zero are left out, as in the reference system; with no
// group columns (`Balance()?$select=QuantityBalance`) there is exactly one row, the total.
import type { SqlRunner } from './sql-runner.js'
import { AccumulationReader, balanceParts, combine } from './accumulation-parts.js'
import type { RegisterTables } from './register-tables.js'
import type { Statement } from '../sql/sql-template.js'
import type { VirtualTable, VirtualTableCall } from './virtual-table.js'

export const balance: VirtualTable = {
  name: 'Balance',
  grouped: true,
  groupableColumns: (tables: RegisterTables) => tables.dimensions,
  periodColumns: () => [],
  conditionColumns: () => [],
  async relation(call: VirtualTableCall, run: SqlRunner): Promise<Statement> {
    const reader = new AccumulationReader(call)
    const resources = reader.tables.resources
    const layout = {
      constants: [],
      group: call.groupColumns,
      values: resources.map((resource, i) => ({ name: `_b${i}`, resource, flow: 'net' as const })),
    }
    const parts = await balanceParts(reader, call.arguments.period, layout, run)
    const finals = resources.map((resource, i) => ({
      name: `${resource}Balance`,
      value: (v: (name: string) => Statement) => v(`_b${i}`),
    }))
    return combine(parts, call.groupColumns, finals, true)
  },
}
