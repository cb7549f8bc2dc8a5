// Rows of one input, streamed: CSV (csv-parse, the header line naming the columns) or NDJSON (one JSON
// object a line), from a file or from stdin (`-`). Each row carries its number (1 for the first data
// row or line) and the input bytes read so far, for the progress and its ETA.
import { createReadStream, statSync } from 'node:fs'
import { createInterface } from 'node:readline'
import { Transform, type Readable } from 'node:stream'
import { parse } from 'csv-parse'

export type InputFormat = 'csv' | 'ndjson'

export interface InputRow {
  readonly row: number
  readonly record: Record<string, unknown>
  /** Set when the line is not a JSON object (the row is rejected, the load goes on). */
  readonly unreadable?: string
}

export interface Input {
  readonly name: string
  /** Bytes in the input, when known (a file); undefined for stdin. */
  readonly size: number | undefined
  bytesRead(): number
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
  let read = 0
  const size = path === '-' ? undefined : statSync(path).size
  const counting = () =>
    new Transform({
      transform(chunk: Buffer, _encoding, done) {
        read += chunk.length
        done(null, chunk)
      },
    })
  const source = (): Readable => (path === '-' ? process.stdin : createReadStream(path, { highWaterMark: 256 * 1024 })).pipe(counting())
  return {
    name: path,
    size,
    bytesRead: () => read,
    rows: () => (format === 'csv' ? csvRows(source(), options.delimiter ?? (path.endsWith('.tsv') ? '\t' : ',')) : ndjsonRows(source())),
  }
}

async function* csvRows(stream: Readable, delimiter: string): AsyncIterable<InputRow> {
  const parser = stream.pipe(parse({ columns: true, delimiter, bom: true, skip_empty_lines: true, trim: true, relax_column_count: true }))
  let row = 0
  for await (const record of parser) yield { row: ++row, record: record as Record<string, unknown> }
}

async function* ndjsonRows(stream: Readable): AsyncIterable<InputRow> {
  const lines = createInterface({ input: stream, crlfDelay: Infinity })
  let row = 0
  for await (const line of lines) {
    if (line.trim() === '') continue
    row++
    try {
      const value = JSON.parse(line)
      if (value === null || typeof value !== 'object' || Array.isArray(value)) yield { row, record: { line }, unreadable: 'The line is not a JSON object' }
      else yield { row, record: value as Record<string, unknown> }
    } catch (error) {
      yield { row, record: { line }, unreadable: `The line is not JSON: ${(error as Error).message}` }
    }
  }
}
