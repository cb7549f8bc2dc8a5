// The checkpoint of an export: where an interrupted run goes on, and, for `--changes`, the delta link the
// next run starts from. Written after each page has reached the disk (the output first, then this file,
// replaced whole by a rename), so a run stopped at any moment resumes at the last page it completed: the
// output is cut back to the length that page left, and the page after it is read again.
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'

export interface ExportState {
  /** What the checkpoint belongs to (resource, options, format, output); another export refuses it. */
  readonly target: string
  /** The link of the next page of an unfinished run. */
  readonly next?: string
  /** Bytes of the output and rows written when that page was due. */
  readonly bytes: number
  readonly rows: number
  /** `--changes`: where the next run starts. */
  readonly deltaLink?: string
}

export function readExportState(path: string, target: string): ExportState | undefined {
  if (!existsSync(path)) return undefined
  const state = JSON.parse(readFileSync(path, 'utf8')) as ExportState
  if (state.target !== target)
    throw new Error(`${path} is the checkpoint of another export (${state.target}); remove it or give another --checkpoint`)
  return state
}

export function writeExportState(path: string, state: ExportState): void {
  const temporary = `${path}.tmp`
  writeFileSync(temporary, JSON.stringify(state))
  renameSync(temporary, path)
}
