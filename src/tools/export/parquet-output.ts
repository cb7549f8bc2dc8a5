// `--format parquet`: the rows of an export as one Parquet file, written with hyparquet-writer (pure
// JavaScript, one dependency, maintained; docs/export.md says why this one). Rows are gathered into
// columns and written as a row group every ROW_GROUP_ROWS rows, and each row group's bytes go to the file
// before more rows are taken, so memory holds one row group whatever the size of the export.
//
// The columns and their types come from the set's `$metadata` (or, for a virtual-table call, from the
// first rows): strings and GUIDs as UTF-8 strings, Edm.Decimal as DECIMAL with its precision and scale
// (exact: the number's decimal text is scaled, never multiplied as a float), Edm.DateTimeOffset as a
// timestamp in milliseconds (UTC), integers as INT32/INT64, table parts as JSON text. Every column is
// optional: a removed row of an export of changes holds only its key and `_removed`.
//
// A Parquet file ends with its footer (the row groups' index), so a stopped run cannot be continued:
// an interrupted Parquet export is written again from its start (run-export.ts). The file is written as
// `<output>.partial` and renamed when whole.
import type { FileHandle } from 'node:fs/promises'
import { open, rename } from 'node:fs/promises'
import type { SchemaElement } from 'hyparquet'
import { ByteWriter, ParquetWriter } from 'hyparquet-writer'
import type { EntityShape } from '../load/service-metadata.js'
import type { Row } from './row-format.js'
import { scaledDecimal } from './scaled-decimal.js'

/** Rows per row group: large enough for column statistics and compression to pay, small enough for memory. */
const ROW_GROUP_ROWS = 50_000

/** How a column's JSON values become Parquet values. */
type Conversion = (value: unknown) => unknown

interface ParquetColumn {
  readonly name: string
  readonly element: SchemaElement
  readonly convert: Conversion
}

export interface ColumnSpec {
  /** The column's name in the file (after the mapping's renaming). */
  readonly name: string
  /** The Edm type (`Edm.Decimal`), `json` for a table part, or undefined when unknown (taken from values). */
  readonly type: string | undefined
  readonly decimal?: { readonly precision: number; readonly scale: number }
}

/** The columns of a set's rows from its `$metadata` shape, named as `columns` renames them. */
export function columnSpecsOf(shape: EntityShape, properties: readonly string[], columns: Readonly<Record<string, string>>): ColumnSpec[] {
  return properties.map((property) => {
    const name = columns[property] ?? property
    if (shape.tableParts.has(property)) return { name, type: 'json' }
    const decimal = shape.decimals.get(property)
    return { name, type: shape.properties.get(property), ...(decimal ? { decimal } : {}) }
  })
}

/** The columns of rows nothing describes (a virtual-table call), from their first values. */
export function columnSpecsFromRows(names: readonly string[], rows: readonly Row[]): ColumnSpec[] {
  return names.map((name) => {
    const sample = rows.map((row) => row[name]).find((value) => value !== null && value !== undefined)
    const type =
      typeof sample === 'number'
        ? 'Edm.Double'
        : typeof sample === 'boolean'
          ? 'Edm.Boolean'
          : typeof sample === 'object'
            ? 'json'
            : 'Edm.String'
    return { name, type }
  })
}

const text: Conversion = (value) => (value === null || value === undefined ? null : String(value))
const same: Conversion = (value) => (value === undefined ? null : value)

function parquetColumn(spec: ColumnSpec): ParquetColumn {
  const name = spec.name
  const optional = { name, repetition_type: 'OPTIONAL' } as const
  switch (spec.type) {
    case 'Edm.Boolean':
      return { name, element: { ...optional, type: 'BOOLEAN' }, convert: same }
    case 'Edm.Byte':
    case 'Edm.SByte':
    case 'Edm.Int16':
    case 'Edm.Int32':
      return {
        name,
        element: { ...optional, type: 'INT32' },
        convert: (value) => (value === null || value === undefined ? null : Number(value)),
      }
    case 'Edm.Int64':
      return {
        name,
        element: { ...optional, type: 'INT64' },
        convert: (value) => (value === null || value === undefined ? null : BigInt(value as string)),
      }
    case 'Edm.Double':
    case 'Edm.Single':
      return {
        name,
        element: { ...optional, type: 'DOUBLE' },
        convert: (value) => (value === null || value === undefined ? null : Number(value)),
      }
    case 'Edm.Decimal': {
      if (!spec.decimal)
        return {
          name,
          element: { ...optional, type: 'DOUBLE' },
          convert: (value) => (value === null || value === undefined ? null : Number(value)),
        }
      const { precision, scale } = spec.decimal
      // The smallest physical type that holds the precision (Parquet's rule for DECIMAL).
      const physical =
        precision <= 9
          ? ({ type: 'INT32' } as const)
          : precision <= 18
            ? ({ type: 'INT64' } as const)
            : ({ type: 'FIXED_LEN_BYTE_ARRAY', type_length: Math.ceil((precision * Math.log2(10) + 1) / 8) } as const)
      return {
        name,
        element: {
          ...optional,
          ...physical,
          converted_type: 'DECIMAL',
          precision,
          scale,
          logical_type: { type: 'DECIMAL', precision, scale },
        },
        convert: (value) => scaledDecimal(value, scale),
      }
    }
    case 'Edm.DateTimeOffset':
      return {
        name,
        element: { ...optional, type: 'INT64', converted_type: 'TIMESTAMP_MILLIS' },
        convert: (value) => (value === null || value === undefined ? null : new Date(value as string)),
      }
    case 'Edm.Date':
      return {
        name,
        element: { ...optional, type: 'INT32', converted_type: 'DATE' },
        convert: (value) => (value === null || value === undefined ? null : new Date(`${value as string}T00:00:00Z`)),
      }
    case 'json':
      return {
        name,
        element: { ...optional, type: 'BYTE_ARRAY', converted_type: 'JSON' },
        convert: (value) => (value === null || value === undefined ? null : JSON.stringify(value)),
      }
    default:
      return { name, element: { ...optional, type: 'BYTE_ARRAY', converted_type: 'UTF8' }, convert: text }
  }
}

/** A Parquet file being written: rows in, row groups out as they fill. */
export interface ParquetOutput {
  /** Bytes on the file so far. */
  readonly bytes: number
  write(rows: readonly Row[]): Promise<void>
  /** Writes the rows still held and the footer, closes the file and gives it its name. */
  finish(): Promise<void>
  /** Closes the file without its footer (an export that failed). */
  abandon(): Promise<void>
}

/**
 * hyparquet-writer's byte buffer, emptied onto the file after each row group: the writer calls `flush`
 * and awaits it before it encodes more.
 */
class FileByteWriter extends ByteWriter {
  written = 0
  constructor(private readonly handle: FileHandle) {
    super(1 << 20)
  }
  async flush(): Promise<void> {
    const length = this.index
    if (length === 0) return
    // A copy: the buffer is written into again as soon as this returns.
    const chunk = new Uint8Array(this.buffer.slice(0, length))
    this.index = 0
    await this.handle.write(chunk, 0, length, this.written)
    this.written += length
  }
}

export async function openParquetOutput(path: string, specs: readonly ColumnSpec[]): Promise<ParquetOutput> {
  const columns = specs.map(parquetColumn)
  // Written beside its name and renamed when whole: a reader of `path` finds the last complete file, never
  // one without its footer (a stopped run leaves `<path>.partial`, written again by the next).
  const partial = `${path}.partial`
  const handle = await open(partial, 'w')
  const bytes = new FileByteWriter(handle)
  const writer = new ParquetWriter({
    writer: bytes,
    schema: [{ name: 'root', num_children: columns.length }, ...columns.map((column) => column.element)],
  })
  let held: unknown[][] = columns.map(() => [])
  let heldRows = 0
  const writeGroup = async () => {
    if (heldRows === 0) return
    const columnData = columns.map((column, i) => ({ name: column.name, data: held[i]! }))
    held = columns.map(() => [])
    const rows = heldRows
    heldRows = 0
    await writer.write({ columnData, rowGroupSize: rows })
    await bytes.flush()
  }
  return {
    get bytes() {
      return bytes.written + bytes.index
    },
    async write(rows) {
      for (const row of rows) {
        for (let i = 0; i < columns.length; i++) held[i]!.push(columns[i]!.convert(row[columns[i]!.name]))
        if (++heldRows >= ROW_GROUP_ROWS) await writeGroup()
      }
    },
    async finish() {
      await writeGroup()
      writer.finish()
      await bytes.flush()
      await handle.datasync()
      await handle.close()
      await rename(partial, path)
    },
    abandon: () => handle.close(),
  }
}
