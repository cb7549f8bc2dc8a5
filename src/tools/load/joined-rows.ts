// Documents from two CSV files: a header file (one row a document) and a lines file (one row a table part
// row), joined by a column both have (the document's number, say). The lines file is indexed by that column
// first (lines-index.ts), so its lines may come in any order; each document comes out with all of its lines,
// or, when one of them cannot be read, as a reject naming that line and why (its lines with it): a document
// is sent whole or not at all. Lines no document takes are handed out at the end (`loose`).
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
  return {
    name: headers.name,
    size: headers.size,
    loose: () => index?.loose() ?? [],
    rows: async function* (): AsyncGenerator<InputRow> {
      index = await LinesIndex.build(linesPath, join, delimiterOf(linesPath), limits)
      try {
        for await (const header of headers.rows()) {
          if (header.unreadable) {
            yield header
            continue
          }
          const value = header.record[join]
          if (value === undefined) throw new InputError(`${headers.name}: the headers file has no column ${join} (the join column)`)
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
