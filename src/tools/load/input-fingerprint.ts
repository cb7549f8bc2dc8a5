// What the checkpoint knows an input by (docs/loading.md, "Identity"): the entity set, the file's name, and
// what tells this content from any other — its length and a hash of all of its bytes, read once before the
// load. Only a checkpoint that provably describes the same bytes lets rows be skipped: a rerun of the same
// file resumes past the rows its checkpoint has; a file changed in any byte (even with the same size and
// modification time), or another day's file of the same name, is another input, none of whose rows is
// skipped (those in the service are found `present` by their keys). Stdin is known by a hash of its first
// 64 KiB (read ahead): its rows are never skipped by number, since what follows may differ, but rows that an
// earlier run of the same start sent are looked up by key first; another stdin's rows go out on the fast path.
import { closeSync, fstatSync, openSync, readSync } from 'node:fs'
import { createHash, randomUUID } from 'node:crypto'
import { basename } from 'node:path'
import { stdinHead } from './input-source.js'

const READ_BYTES = 1024 * 1024
const STDIN_HEAD_BYTES = 64 * 1024

/**
 * The file's length and a hash of all of its bytes, read a megabyte at a time; a pipe or a device, which
 * cannot be read twice (or has no end), gets a mark of its own each run, so none of its rows is skipped.
 */
function fileMark(path: string): string {
  const fd = openSync(path, 'r')
  try {
    if (!fstatSync(fd).isFile()) return `stream-${randomUUID()}`
    const hash = createHash('sha256')
    const chunk = Buffer.allocUnsafe(READ_BYTES)
    let size = 0
    for (;;) {
      const n = readSync(fd, chunk, 0, READ_BYTES, size)
      if (n === 0) break
      hash.update(chunk.subarray(0, n))
      size += n
    }
    return `${size}/${hash.digest('hex').slice(0, 32)}`
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
