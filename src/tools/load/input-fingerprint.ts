// What the checkpoint knows an input by (docs/loading.md, "Identity"): the entity set, the file's name, and
// what tells this content from another file's of the same name — its size, its modification time and a hash
// of its first megabyte. A rerun of the same file resumes past the rows its checkpoint has; another day's
// file of the same name is another input, whose rows are looked at afresh (and found `present` by their
// keys when they are in the service). Stdin is known by a hash of its first 64 KiB (read ahead): its rows are
// never skipped by number, since what follows may differ, but rows that an earlier run of the same start
// sent are looked up by key first; another stdin's rows go out on the fast path.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { createHash } from 'node:crypto'
import { basename } from 'node:path'
import { stdinHead } from './input-source.js'

const HEAD_BYTES = 1024 * 1024
const STDIN_HEAD_BYTES = 64 * 1024

function fileMark(path: string): string {
  const fd = openSync(path, 'r')
  try {
    const stat = fstatSync(fd)
    const head = Buffer.allocUnsafe(Math.min(HEAD_BYTES, Math.max(stat.size, 0)))
    let read = 0
    while (read < head.length) {
      const n = readSync(fd, head, read, head.length - read, read)
      if (n === 0) break
      read += n
    }
    const hash = createHash('sha1').update(head.subarray(0, read)).digest('hex').slice(0, 16)
    return `${stat.size}/${Math.floor(stat.mtimeMs)}/${hash}`
  } finally {
    closeSync(fd)
  }
}

export interface InputIdentity {
  /** How the reject file names the input (`Document_GoodsReceipt:receipts.ndjson`). */
  readonly name: string
  /** How the checkpoint knows its rows: the name and the content's mark. */
  readonly checkpointSource: string
  /** Rows the checkpoint has as answered may be skipped (a file); stdin's never are, only looked up. */
  readonly resumable: boolean
}

/** How the reject file and the summary name an input. */
export function identityName(plan: { readonly set: string; readonly path: string; readonly lines?: string }): string {
  return `${plan.set}:${plan.path === '-' ? 'stdin' : basename(plan.path)}${plan.lines ? `+${basename(plan.lines)}` : ''}`
}

export async function inputIdentity(set: string, path: string, lines?: string): Promise<InputIdentity> {
  const name = identityName({ set, path, lines })
  if (path === '-') {
    const head = createHash('sha1')
      .update(await stdinHead(STDIN_HEAD_BYTES))
      .digest('hex')
      .slice(0, 16)
    return { name, checkpointSource: `${name}@${head}${lines ? `+${fileMark(lines)}` : ''}`, resumable: false }
  }
  const marks = [fileMark(path), ...(lines ? [fileMark(lines)] : [])]
  return { name, checkpointSource: `${name}@${marks.join('+')}`, resumable: true }
}
