// How an exported row is written: NDJSON (one JSON object a line, as the service wrote it) or CSV (a header
// line, RFC 4180 quoting; table parts as JSON text in their cell, which the loader reads back). A row loses
// its annotations (`@odata.etag`, `@id`), its properties are renamed by the plan's columns, and with
// `--changes` a removed row is its key with the reason in the column `_removed`.
import type { ExportFormat } from './export-plan.js'

export type Row = Record<string, unknown>

/** The column that marks a removed row in an export of changes. */
export const REMOVED_COLUMN = '_removed'

export interface RowFormat {
  /** The text before the first row (the CSV header), given the columns of the rows; it fixes the columns of every row after it, whether or not the text is written (a file that goes on has it already). */
  header(columns: readonly string[]): string
  row(row: Row): string
}

/** The row without annotations, renamed by `columns` (property → column; `Part/Property` inside table part rows). */
export function exportedRow(entity: Row, columns: Readonly<Record<string, string>>, prefix = ''): Row {
  const row: Row = {}
  for (const [name, value] of Object.entries(entity)) {
    if (name.includes('@')) continue
    const nested = Array.isArray(value) ? value.map((item) => exportedRow(item as Row, columns, `${name}/`)) : value
    row[columns[`${prefix}${name}`] ?? name] = nested
  }
  return row
}

function csvCell(value: unknown): string {
  if (value === null || value === undefined) return ''
  const text = typeof value === 'object' ? JSON.stringify(value) : String(value)
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

export function createRowFormat(format: Exclude<ExportFormat, 'parquet'>): RowFormat {
  if (format === 'ndjson') return { header: () => '', row: (row) => `${JSON.stringify(row)}\n` }
  let columns: readonly string[] = []
  return {
    header(given) {
      columns = given
      return `${given.map(csvCell).join(',')}\r\n`
    },
    row(row) {
      let line = ''
      for (let i = 0; i < columns.length; i++) line += (i === 0 ? '' : ',') + csvCell(row[columns[i]!])
      return `${line}\r\n`
    },
  }
}
