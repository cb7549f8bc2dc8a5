// Whether the database holds the schema this code expects, for `GET /ready`: every table and column the
// model describes (schema.ts) and the totals layouts the code keeps (totals.ts), as `migrate` leaves them.
// Reads only; a difference is a reason not to send traffic here, never a change.
import { sql } from '../sql/sql-template.js'
import type { ServiceModel } from '../model/model.js'
import { existingColumns, TOTALS_LAYOUT_MARKER } from './migrate.js'
import type { Pool } from './pool.js'
import { databaseOf } from './database.js'
import { schemaTables } from './schema.js'
import { totalsLayouts } from './totals.js'

/** What is missing or older than the code; empty when the schema is the code's. */
export async function schemaDifferences(pool: Pool, model: ServiceModel): Promise<string[]> {
  const differences: string[] = []
  const existing = await existingColumns(pool)
  for (const table of schemaTables(model)) {
    const columns = existing.get(table.name)
    if (!columns) {
      differences.push(`table ${table.name} is missing`)
      continue
    }
    const names = new Set(columns.map((column) => column.name))
    for (const column of table.columns) if (!names.has(column.name)) differences.push(`column ${table.name}.${column.name} is missing`)
  }
  const rows = await databaseOf(pool)
    .rows<{ value: string }>(sql`SELECT \`value\` FROM \`_service_state\` WHERE \`name\` = ${TOTALS_LAYOUT_MARKER}`)
    .catch(() => [])
  const recorded = rows[0] === undefined ? {} : (JSON.parse(rows[0].value) as Record<string, number>)
  for (const [table, version] of totalsLayouts(model)) {
    if (recorded[table] !== version)
      differences.push(`totals ${table} are at layout ${recorded[table] ?? 'none'}, the code keeps ${version}`)
  }
  return differences
}
