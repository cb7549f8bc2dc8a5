// Rows of one input, streamed: CSV (csv-parse, the header line naming the columns) or NDJSON (one JSON
// object a line), from a file or from stdin (`-`). Each row carries its number (1 for the first data
// row or line) and the input bytes read so far, for the progress and its ETA.
import { createReadStream, statSync } from 'node:fs'
import { createInterface } from 'node:readline'
import type { Readable } from 'node:stream'
import { parse } from 'csv-parse'

export type InputFormat = 'csv' | 'ndjson'

export interface InputRow {
  readonly row: number
  readonly record: Record<string, unknown>
  /** Bytes of the input up to the end of this row (the progress's share of the input done). */
  readonly offset: number
  /** Set when the line is not a JSON object (the row is rejected, the load goes on). */
  readonly unreadable?: string
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

export function openInput(path: string, format: InputFormat, options: { delimiter?: string } = {}): Input {
  const size = path === '-' ? undefined : statSync(path).size
  const source = (): Readable => (path === '-' ? process.stdin : createReadStream(path, { highWaterMark: 256 * 1024 }))
  return {
    name: path,
    size,
    rows: () => (format === 'csv' ? csvRows(source(), options.delimiter ?? (path.endsWith('.tsv') ? '\t' : ',')) : ndjsonRows(source())),
  }
}

async function* csvRows(stream: Readable, delimiter: string): AsyncIterable<InputRow> {
  const parser = stream.pipe(
    parse({ columns: true, delimiter, bom: true, skip_empty_lines: true, trim: true, relax_column_count: true, info: true }),
  )
  let row = 0
  for await (const { record, info } of parser)
    yield { row: ++row, record: record as Record<string, unknown>, offset: (info as { bytes: number }).bytes }
}

async function* ndjsonRows(stream: Readable): AsyncIterable<InputRow> {
  const lines = createInterface({ input: stream, crlfDelay: Infinity })
  let row = 0
  let offset = 0
  for await (const line of lines) {
    offset += Buffer.byteLength(line) + 1
    if (line.trim() === '') continue
    row++
    try {
      const value = JSON.parse(line)
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        yield { row, record: { line }, offset, unreadable: 'The line is not a JSON object' }
      else yield { row, record: value as Record<string, unknown>, offset }
    } catch (error) {
      yield { row, record: { line }, offset, unreadable: `The line is not JSON: ${(error as Error).message}` }
    }
  }
}
