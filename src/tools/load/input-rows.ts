// Rows of one input, streamed: CSV (csv-records.ts, the header line naming the columns) or NDJSON (one JSON
// object a line, ndjson-lines.ts), from a file or from stdin (`-`). Each row carries its number (1 for the
// first data row or line), the line it begins on, and the input bytes read so far, for the progress. A row
// that cannot be read whole and true — a CSV record with another field count than the header's, a line that
// is not a JSON object, invalid UTF-8, a NUL character, past a limit — comes with its problem and its text
// (cut when long), to be a reject: the load goes on.
import { csvRecords } from './csv-records.js'
import type { CsvRecord } from './csv-scanner.js'
import { decodeText, type InputLimits, type ReadProblem, rawRecord } from './input-limits.js'
import { fileSize, InputError } from './input-source.js'
import { ndjsonLines } from './ndjson-lines.js'

export type InputFormat = 'csv' | 'ndjson'

export interface InputRow {
  readonly row: number
  /** The line of the input the row begins on. */
  readonly line: number
  readonly record: Record<string, unknown>
  /** Bytes of the input up to the end of this row (the progress's share of the input done). */
  readonly offset: number
  /** The lines file's line of each table part row, for a document joined from two files. */
  readonly tablePartLines?: readonly number[]
  /** Set when the row cannot be read (it is rejected, the load goes on). */
  readonly unreadable?: ReadProblem
}

export interface Input {
  readonly name: string
  /** Bytes in the input, when known (a file); undefined for stdin. */
  readonly size: number | undefined
  rows(): AsyncIterable<InputRow>
}

export function formatOf(path: string, given?: string): InputFormat {
  if (given === 'csv' || given === 'ndjson') return given
  if (given !== undefined) throw new Error(`--input-format must be csv or ndjson (got ${given})`)
  if (/\.(csv|tsv|txt)$/i.test(path)) return 'csv'
  if (/\.(ndjson|jsonl|json)$/i.test(path)) return 'ndjson'
  throw new Error(`cannot tell the format of ${path}: name it .csv or .ndjson, or give --input-format`)
}

export function delimiterOf(path: string): string {
  return path.endsWith('.tsv') ? '\t' : ','
}

export function openInput(path: string, format: InputFormat, limits: InputLimits): Input {
  return {
    name: path,
    size: fileSize(path),
    rows: () => (format === 'csv' ? csvRows(path, limits) : ndjsonRows(path, limits)),
  }
}

/** The header's column names; an unreadable header stops the load before anything is sent. */
export function headerColumns(path: string, header: CsvRecord): string[] {
  if (header.problem) throw new InputError(`${path}: the header line cannot be read: ${header.problem.message}`)
  const columns = header.fields.map((field, i) => {
    const name = decodeText(field, `${path}: the header's column ${i + 1}`)
    if (typeof name !== 'string') throw new InputError(name.message)
    return name
  })
  const seen = new Set<string>()
  for (const name of columns) {
    if (seen.has(name)) throw new InputError(`${path}: the header names the column ${name || '(empty)'} twice`)
    seen.add(name)
  }
  return columns
}

/** A data record as column → text, or the problem that makes it a reject. */
export function recordOf(
  columns: readonly string[],
  record: CsvRecord,
): { readonly values: Record<string, unknown> } | { readonly problem: ReadProblem } {
  if (record.problem) return { problem: record.problem }
  const values: Record<string, unknown> = {}
  for (let i = 0; i < columns.length; i++) {
    const text = decodeText(record.fields[i]!, `line ${record.line}: the field ${columns[i]}`)
    if (typeof text !== 'string') return { problem: text }
    values[columns[i]!] = text
  }
  return { values }
}

async function* csvRows(path: string, limits: InputLimits): AsyncIterable<InputRow> {
  let columns: string[] | undefined
  let row = 0
  for await (const record of csvRecords(path, delimiterOf(path), limits)) {
    if (!columns) {
      columns = headerColumns(path, record)
      continue
    }
    row++
    const read = recordOf(columns, record)
    if ('problem' in read)
      yield {
        row,
        line: record.line,
        record: rawRecord(record.text, record.end - record.start),
        offset: record.end,
        unreadable: read.problem,
      }
    else yield { row, line: record.line, record: read.values, offset: record.end }
  }
}

async function* ndjsonRows(path: string, limits: InputLimits): AsyncIterable<InputRow> {
  let row = 0
  for await (const line of ndjsonLines(path, limits)) {
    if (!line.cut && isBlank(line.bytes)) continue
    row++
    const unreadable = (problem: ReadProblem): InputRow => ({
      row,
      line: line.line,
      record: rawRecord(line.bytes, line.length),
      offset: line.end,
      unreadable: problem,
    })
    if (line.cut) {
      yield unreadable({
        code: 'RecordTooLong',
        message: `line ${line.line}: ${line.length} bytes, more than --max-record-bytes (${limits.maxRecordBytes})`,
      })
      continue
    }
    const text = decodeText(line.bytes, `line ${line.line}`)
    if (typeof text !== 'string') {
      yield unreadable(text)
      continue
    }
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (error) {
      yield unreadable({ code: 'UnreadableRow', message: `line ${line.line} is not JSON: ${(error as Error).message}` })
      continue
    }
    if (value === null || typeof value !== 'object' || Array.isArray(value)) {
      yield unreadable({ code: 'UnreadableRow', message: `line ${line.line} is not a JSON object` })
      continue
    }
    const problem = stringProblem(value, limits, `line ${line.line}`)
    if (problem) yield unreadable(problem)
    else yield { row, line: line.line, record: value as Record<string, unknown>, offset: line.end }
  }
}

function isBlank(bytes: Buffer): boolean {
  for (const c of bytes) if (c !== 0x20 && c !== 0x09 && c !== 0x0d) return false
  return true
}

/** A string (name or value) of a parsed line that holds NUL (`\u0000`) or is longer than the field limit. */
function stringProblem(value: unknown, limits: InputLimits, where: string): ReadProblem | undefined {
  if (typeof value === 'string') {
    if (value.includes('\u0000')) return { code: 'NulCharacter', message: `${where} holds a NUL character` }
    if (value.length > limits.maxFieldBytes / 4 && Buffer.byteLength(value) > limits.maxFieldBytes)
      return { code: 'FieldTooLong', message: `${where}: a value is longer than --max-field-bytes (${limits.maxFieldBytes})` }
    return undefined
  }
  if (value === null || typeof value !== 'object') return undefined
  for (const [name, member] of Array.isArray(value) ? value.entries() : Object.entries(value)) {
    const problem = stringProblem(name, limits, where) ?? stringProblem(member, limits, where)
    if (problem) return problem
  }
  return undefined
}
