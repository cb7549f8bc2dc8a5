// Writing a shaped row as a JSON object, and loading what its expansions need first.
import { joinObject } from '../../respond/object-writer.js'
import type { Row } from './projection.js'
import type { QueryRunner } from './query-runner.js'
import type { RowShape } from './row-shape.js'

/** One row as a JSON object; `annotations` (`"@odata.context":…,`) come first. Expansions must be loaded. */
export function writeObject(shape: RowShape, row: Row, annotations = ''): string {
  const members = shape.members(row)
  const head = annotations === '' ? members : members === '' ? annotations.slice(0, -1) : annotations + members
  if (shape.expansions.length === 0) return `{${head}}`
  return joinObject(
    head,
    shape.expansions.map((e) => e.write(row)),
  )
}

/** Loads the expansions of a batch of rows, nested ones included. */
export async function loadExpansions(shape: RowShape, rows: readonly Row[], run: QueryRunner): Promise<void> {
  for (const expansion of shape.expansions) await expansion.load(rows, run)
}
