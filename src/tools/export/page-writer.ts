// Where the pages of an export go, one writer per format:
// - NDJSON: each row as the service wrote it (page-rows.ts), unless a column is renamed or the row has
//   annotations, which makes it an object first (row-format.ts);
// - CSV: a header line before the first row of a file, then each row (row-format.ts);
// - Parquet: the rows as columns of one file (parquet-output.ts), its footer written at the end.
// The text outputs are a file (cut back to the checkpoint's length when a stopped run is resumed, synced
// before each checkpoint) or stdout (with backpressure).
import { open, type FileHandle } from 'node:fs/promises'
import { readServiceMetadata } from '../load/service-metadata.js'
import type { ServiceAnswer, ServiceClient } from '../shared/service-client.js'
import type { ExportTarget } from './export-plan.js'
import { pageAsNdjson, peekMembers, splitPageRows } from './page-rows.js'
import { columnSpecsFromRows, columnSpecsOf, openParquetOutput, type ColumnSpec, type ParquetOutput } from './parquet-output.js'
import { createRowFormat, exportedRow, REMOVED_COLUMN, type Row } from './row-format.js'

export interface ReadPage {
  /**
   * The answer's members besides `value` (`@odata.nextLink`, `@odata.deltaLink`). Before `write` they may be
   * read from the page's end without its rows (page-rows.ts: peekMembers), a guess; after it they are sure.
   */
  readonly members: Record<string, unknown>
  /** Rows of the page, known once it is written. */
  readonly rows: number
  /** Writes the page's rows; resolves to how many of them were removed rows. */
  write(): Promise<number>
}

export interface PageWriter {
  /** Bytes of the output so far (the checkpoint's length). */
  readonly bytes: number
  /** Whether a stopped run can go on from a checkpoint (not so for Parquet, whose index is at its end, nor stdout). */
  readonly resumable: boolean
  /** The page's links at once, so that the next page can be asked for while this one is written. */
  read(answer: ServiceAnswer): ReadPage
  /** Everything written so far on the disk (before a checkpoint names it). */
  sync(): Promise<void>
  /** The export reached its end: everything on the disk, a Parquet file with its footer. */
  finish(): Promise<void>
  close(): Promise<void>
}

interface Output {
  readonly bytes: number
  write(data: string | readonly Buffer[]): Promise<void>
  sync(): Promise<void>
  close(): Promise<void>
}

async function openOutput(path: string, keepBytes: number | undefined): Promise<Output> {
  if (path === '-') {
    let bytes = keepBytes ?? 0
    return {
      get bytes() {
        return bytes
      },
      async write(data) {
        const chunk = typeof data === 'string' ? data : Buffer.concat(data)
        bytes += Buffer.byteLength(chunk)
        if (!process.stdout.write(chunk)) await new Promise((resolve) => process.stdout.once('drain', resolve))
      },
      async sync() {},
      async close() {},
    }
  }
  // Opened with the first page to write, not before: an export the service refuses (a wrong token, a set
  // that does not exist, a bad $filter) leaves the file of the last run as it was, and makes no empty one.
  let opening: Promise<FileHandle> | undefined
  const handle = () => {
    opening ??= openFile(path, keepBytes)
    return opening
  }
  let bytes = keepBytes ?? 0
  return {
    get bytes() {
      return bytes
    },
    async write(data) {
      const file = await handle()
      if (typeof data === 'string') {
        const buffer = Buffer.from(data, 'utf8')
        await file.write(buffer, 0, buffer.length, bytes)
        bytes += buffer.length
        return
      }
      const length = data.reduce((sum, piece) => sum + piece.length, 0)
      await file.writev(data, bytes)
      bytes += length
    },
    sync: async () => (await handle()).datasync(),
    // A file that could not be opened has nothing to close (its error was the write's).
    close: async () =>
      opening?.then(
        (file) => file.close(),
        () => undefined,
      ),
  }
}

async function openFile(path: string, keepBytes: number | undefined): Promise<FileHandle> {
  if (keepBytes === undefined) return open(path, 'w')
  const handle = await open(path, 'a+').then(async (created) => {
    await created.close()
    return open(path, 'r+')
  })
  // Whatever a stopped run wrote past its last checkpoint goes: that page is read again.
  await handle.truncate(keepBytes)
  return handle
}

export interface PageWriterOptions {
  readonly client: ServiceClient
  readonly target: ExportTarget
  /** An export of changes: removed rows are written with `_removed`. */
  readonly changes: boolean
  /** Bytes of the output to keep (a resumed run, or `--follow` appending); undefined: the file afresh. */
  readonly keepBytes: number | undefined
}

/** The row of an entity of a page: without annotations, renamed, a removed one marked with its reason. */
function rowOf(entity: Row, columns: Readonly<Record<string, string>>): { row: Row; removed: boolean } {
  const removal = entity['@removed'] as { reason?: string } | undefined
  const row = exportedRow(entity, columns)
  if (removal) row[REMOVED_COLUMN] = removal.reason ?? 'deleted'
  return { row, removed: removal !== undefined }
}

/** The properties of the rows: the `$select`ed ones, else the set's properties and table parts from `$metadata`, else the first row's. */
async function propertiesOf(options: PageWriterOptions, firstRow: Row | undefined) {
  const { target, client } = options
  const shape = /^[^/(]+$/.test(target.resource) ? (await readServiceMetadata(client)).sets.get(target.resource) : undefined
  const properties =
    target.select !== undefined
      ? target.select.split(',').map((name) => name.trim())
      : shape
        ? [...shape.properties.keys(), ...shape.tableParts.keys()]
        : Object.keys(firstRow ?? {}).filter((name) => !name.includes('@'))
  return { shape, properties }
}

export async function createPageWriter(options: PageWriterOptions): Promise<PageWriter> {
  const { target } = options
  if (target.format === 'parquet') return parquetPageWriter(options)
  const output = await openOutput(target.path, options.keepBytes)
  const format = createRowFormat(target.format)
  // A CSV row is written by its columns, known once the first page is in: the header states them when the
  // file starts, and a file that goes on (a resumed run, `--follow` after a restart) already has it.
  let columnsDue = target.format === 'csv'
  const headerDue = output.bytes === 0
  // Rows pass through as the service wrote them only when no column is renamed.
  const passThrough = target.format === 'ndjson' && Object.keys(target.columns).length === 0
  return {
    get bytes() {
      return output.bytes
    },
    // stdout cannot be cut back: checkpointed only at the end (the delta link of `--changes`).
    resumable: target.path !== '-',
    read(answer) {
      if (passThrough) {
        // The links are read from the page's end at once, so that the next page is asked for while this
        // one is scanned (the service would wait for the scan otherwise); the scan in `write` confirms them.
        const peeked = peekMembers(answer.body)
        let page = peeked === undefined ? splitPageRows(answer.body) : undefined
        return {
          get members() {
            return page === undefined ? peeked!.members : page.members
          },
          get rows() {
            return page === undefined ? 0 : page.starts.length
          },
          async write() {
            page ??= splitPageRows(answer.body)
            let removed = 0
            const pieces = pageAsNdjson(page, (text) => {
              const entity = rowOf(JSON.parse(text) as Row, target.columns)
              if (entity.removed) removed++
              return JSON.stringify(entity.row)
            })
            if (pieces.length > 0) await output.write(pieces)
            return removed
          },
        }
      }
      const { value, ...members } = answer.json() as { value: Row[] } & Record<string, unknown>
      return {
        members,
        rows: value.length,
        async write() {
          if (columnsDue) {
            const { properties } = await propertiesOf(options, value[0])
            const columns = properties.map((name) => target.columns[name] ?? name)
            const header = format.header(options.changes ? [...columns, REMOVED_COLUMN] : columns)
            if (headerDue) await output.write(header)
            columnsDue = false
          }
          let text = ''
          let removed = 0
          for (const entity of value) {
            const { row, removed: gone } = rowOf(entity, target.columns)
            if (gone) removed++
            text += format.row(row)
          }
          if (text !== '') await output.write(text)
          return removed
        },
      }
    },
    sync: () => output.sync(),
    finish: () => output.sync(),
    close: () => output.close(),
  }
}

function parquetPageWriter(options: PageWriterOptions): PageWriter {
  const { target } = options
  let output: ParquetOutput | undefined
  let finished = false
  const opened = async (firstRows: readonly Row[]) => {
    if (output) return output
    const { shape, properties } = await propertiesOf(options, firstRows[0])
    const names = properties.map((name) => target.columns[name] ?? name)
    const specs: ColumnSpec[] = shape ? columnSpecsOf(shape, properties, target.columns) : columnSpecsFromRows(names, firstRows)
    if (options.changes) specs.push({ name: REMOVED_COLUMN, type: 'Edm.String' })
    output = await openParquetOutput(target.path, specs)
    return output
  }
  return {
    get bytes() {
      return output?.bytes ?? 0
    },
    resumable: false,
    read(answer) {
      const { value, ...members } = answer.json() as { value: Row[] } & Record<string, unknown>
      return {
        members,
        rows: value.length,
        async write() {
          let removed = 0
          const rows = value.map((entity) => {
            const converted = rowOf(entity, target.columns)
            if (converted.removed) removed++
            return converted.row
          })
          await (await opened(rows)).write(rows)
          return removed
        },
      }
    },
    async sync() {},
    async finish() {
      await (await opened([])).finish()
      finished = true
    },
    async close() {
      if (!finished) await output?.abandon()
    },
  }
}
