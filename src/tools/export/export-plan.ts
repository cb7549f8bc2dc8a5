// What an export writes: which resource (an entity set, or a virtual-table call such as
// `AccumulationRegister_Stock/Balance(Period=…)`) with which `$filter`/`$select`, to which file, in which
// format, with which column names. From the command's flags, or from a mapping file in the loader's own
// style (src/tools/load/load-plan.ts): there `columns` maps an input column to a property; an export
// writes each property under that column, so the same file loads the export back unchanged. An entry may
// also carry `filter` and `select`, which only the export reads.
import { readFileSync } from 'node:fs'
import { parse as parseYaml } from 'yaml'
import { readMappingFile } from '../load/load-plan.js'

export type ExportFormat = 'ndjson' | 'csv' | 'parquet'

export interface ExportTarget {
  /** The resource path below the service root. */
  readonly resource: string
  readonly filter?: string
  readonly select?: string
  /** The output file, or `-` for stdout. */
  readonly path: string
  readonly format: ExportFormat
  /** Property → column (`Goods/Quantity` → `Goods/qty` for table part rows). */
  readonly columns: Readonly<Record<string, string>>
}

export function formatOfOutput(path: string, given: string | undefined): ExportFormat {
  if (given === 'parquet' && path === '-') throw new Error('a Parquet file ends with its index: give --output FILE, not stdout')
  if (given === 'ndjson' || given === 'csv' || given === 'parquet') return given
  if (given !== undefined) throw new Error(`--format must be ndjson, csv or parquet (got ${given})`)
  if (/\.csv$/i.test(path)) return 'csv'
  if (/\.parquet$/i.test(path)) return 'parquet'
  if (/\.(ndjson|jsonl)$/i.test(path) || path === '-') return 'ndjson'
  throw new Error(`cannot tell the format of ${path}: name it .csv, .ndjson or .parquet, or give --format`)
}

/**
 * The resource as given, refused when it carries a query: the export asks for its own pages (keyset paging,
 * `$top`, `$orderby`), and options given there would either be lost or break the paging.
 */
export function resourcePath(resource: string, where: string): string {
  if (/[?#]/.test(resource))
    throw new Error(
      `${where}: ${resource} is a resource path and takes no query; give $filter with --filter (or "filter") and $select with --select (or "select")`,
    )
  return resource
}

/** A load mapping's `columns` (column → property) turned round (property → column). */
export function invertColumns(columns: Readonly<Record<string, string>>): Record<string, string> {
  const inverted: Record<string, string> = {}
  for (const [column, property] of Object.entries(columns)) {
    // `Goods/qty` → `Quantity` names a table part row's property: its export name keeps the part.
    const slash = column.indexOf('/')
    inverted[slash < 0 ? property : `${column.slice(0, slash)}/${property}`] = slash < 0 ? column : column.slice(slash + 1)
  }
  return inverted
}

/** The targets of a mapping file: each entry's set written to its path. */
export function exportTargetsOf(mappingPath: string, formatGiven: string | undefined): ExportTarget[] {
  const text = readFileSync(mappingPath, 'utf8')
  const entries = ((/\.ya?ml$/i.test(mappingPath) ? parseYaml(text) : JSON.parse(text)) as { files: Record<string, unknown>[] }).files
  return readMappingFile(mappingPath).map((file, i) => {
    if (file.lines !== undefined) throw new Error(`${mappingPath}: ${file.path}: an export writes no separate lines file`)
    const option = (name: 'filter' | 'select') => {
      const value = entries[i]![name]
      if (value !== undefined && typeof value !== 'string') throw new Error(`${mappingPath}: files[${i}].${name} must be text`)
      return value === undefined ? {} : { [name]: value }
    }
    return {
      ...option('filter'),
      ...option('select'),
      resource: resourcePath(file.set, `${mappingPath}: files[${i}].set`),
      path: file.path,
      format: formatOfOutput(file.path, file.format ?? formatGiven),
      columns: invertColumns(file.columns),
    }
  })
}
