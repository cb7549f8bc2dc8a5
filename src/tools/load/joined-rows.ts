// Documents from two CSV files: a header file (one row a document) and a lines file (one row a table part
// row), joined by a column both have (the document's number, say). The lines file is indexed by that column
// first (lines-index.ts), so its lines may come in any order; each document comes out with all of its lines,
// or, when one of them cannot be read, as a reject naming that line and why (its lines with it): a document
// is sent whole or not at all. Lines no document takes are handed out at the end (`loose`); when a header row
// that may be theirs is inside a rejected record of the headers file (a stray quote can swallow the rows
// after it), their reason names that record rather than saying no header has their value.
import { joinValuesInText } from './damaged-line-joins.js'
import type { InputLimits } from './input-limits.js'
import type { Input, InputRow } from './input-rows.js'
import { delimiterOf } from './input-rows.js'
import { InputError } from './input-source.js'
import { LinesIndex, type LooseLine } from './lines-index.js'

export interface JoinedInput extends Input {
  /** Lines no document took, once the headers are read. */
  loose(): Iterable<LooseLine>
}

export function joinedInput(
  headers: Input,
  linesPath: string,
  join: string,
  tablePart: string,
  limits: InputLimits,
  /** Rows an earlier run answered: their lines are taken without being read. */
  answered: (row: number) => boolean,
): JoinedInput {
  let index: LinesIndex | undefined
  /** Rejected header records, as the reject file shows them: a header row swallowed by one is still in the file. */
  const rejectedHeaders: InputRow[] = []
  /** The join column's place in the headers file, known from its first readable row. */
  let joinColumn: number | undefined
  return {
    name: headers.name,
    size: headers.size,
    loose: () => explainLoose(index?.loose() ?? [], rejectedHeaders, joinColumn, delimiterOf(headers.name), join),
    rows: async function* (): AsyncGenerator<InputRow> {
      index = await LinesIndex.build(linesPath, join, delimiterOf(linesPath), limits)
      try {
        for await (const header of headers.rows()) {
          if (header.unreadable) {
            rejectedHeaders.push(header)
            yield header
            continue
          }
          const value = header.record[join]
          if (value === undefined) throw new InputError(`${headers.name}: the headers file has no column ${join} (the join column)`)
          joinColumn ??= Object.keys(header.record).indexOf(join)
          if (answered(header.row)) {
            index.take(String(value))
            yield header
            continue
          }
          const lines = index.linesOf(String(value))
          const bad = lines.find((l) => l.problem)
          const record = { ...header.record, [tablePart]: lines.map((l) => l.values ?? l.raw) }
          if (bad)
            yield {
              ...header,
              record,
              unreadable: { code: bad.problem!.code, message: `its line ${bad.line} in the lines file: ${bad.problem!.message}` },
            }
          else yield { ...header, record, tablePartLines: lines.map((l) => l.line) }
        }
      } finally {
        index.close()
      }
    },
  }
}

/**
 * Loose lines whose join value stands in the join column of a line of a rejected header record: their
 * header may be in the file, inside that record, so the reason says so (still `OrphanLine`: no document
 * takes them). Other loose lines pass as they are.
 */
function* explainLoose(
  loose: Iterable<LooseLine>,
  rejectedHeaders: readonly InputRow[],
  joinColumn: number | undefined,
  delimiter: string,
  join: string,
): Iterable<LooseLine> {
  const holder = new Map<string, InputRow>()
  if (joinColumn !== undefined)
    for (const header of rejectedHeaders) {
      const text = (header.record as { text?: unknown }).text
      if (typeof text !== 'string') continue
      for (const value of joinValuesInText(Buffer.from(text), joinColumn, delimiter.charCodeAt(0))) {
        const key = value.toString('utf8')
        if (!holder.has(key)) holder.set(key, header)
      }
    }
  for (const line of loose) {
    const header = line.problem || line.joinValue === undefined ? undefined : holder.get(line.joinValue)
    if (!header) {
      yield line
      continue
    }
    yield {
      ...line,
      problem: {
        code: 'OrphanLine',
        message: `line ${line.line} of the lines file: no readable header row has ${join} = ${line.joinValue}; the rejected record at line ${header.line} of the headers file may hold it, so no document takes this line`,
      },
    }
  }
}
