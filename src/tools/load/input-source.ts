// The bytes of an input: a file (from a byte offset, so a reader can read on from a place it knows) or
// stdin (`-`, once). An input is checked before anything is sent: one that is missing, a directory or
// unreadable is an `InputError` (exit 2, a message and no stack trace).
import { accessSync, constants, createReadStream, statSync } from 'node:fs'
import { dirname } from 'node:path'

/** An input the loader cannot read at all: reported before anything is sent. */
export class InputError extends Error {}

/** An input that cannot be read on past some place: the load stops there, with its summary. */
export class InputStop extends Error {}

export function checkReadable(path: string, what: string): void {
  if (path === '-') return
  let stat: ReturnType<typeof statSync>
  try {
    stat = statSync(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    throw new InputError(code === 'ENOENT' ? `${what} ${path} does not exist` : `${what} ${path} cannot be read (${code ?? String(error)})`)
  }
  if (stat.isDirectory()) throw new InputError(`${what} ${path} is a directory: name a file`)
  if (!stat.isFile() && !stat.isFIFO()) throw new InputError(`${what} ${path} is not a file (a device has no end; give stdin as -)`)
  try {
    accessSync(path, constants.R_OK)
  } catch {
    throw new InputError(`${what} ${path} is not readable (permission denied)`)
  }
}

/**
 * A file the loader writes (the checkpoint, the reject file): a regular file it may write, or absent in a
 * folder where it may be created. A device (`/dev/zero`, `/dev/full`), a pipe or a directory is refused.
 */
export function checkWritable(path: string, what: string): void {
  let stat: ReturnType<typeof statSync> | undefined
  try {
    stat = statSync(path)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code
    if (code !== 'ENOENT') throw new InputError(`${what} ${path} cannot be used (${code ?? String(error)})`)
  }
  if (stat?.isDirectory()) throw new InputError(`${what} ${path} is a directory: name a file`)
  if (stat && !stat.isFile()) throw new InputError(`${what} ${path} is not a regular file: name a file (it is written and read back)`)
  const folder = dirname(path)
  try {
    accessSync(stat ? path : folder, constants.W_OK)
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code ?? String(error)
    throw new InputError(
      stat
        ? `${what} ${path} is not writable (${code})`
        : `${what} ${path} cannot be created: the folder ${folder} is missing or not writable (${code})`,
    )
  }
}

export function fileSize(path: string): number | undefined {
  if (path === '-') return undefined
  const stat = statSync(path)
  return stat.isFile() ? stat.size : undefined
}

/** Stdin's first bytes, read ahead by `stdinHead` and handed out first by `readBytes`. */
let stdinStart: { chunks: Buffer[]; rest: AsyncIterator<Buffer> } | undefined

/** Reads stdin's first `bytes` (or all of it, when shorter) ahead, for its mark (input-fingerprint.ts). */
export async function stdinHead(bytes: number): Promise<Buffer> {
  if (!stdinStart) {
    const rest = (process.stdin as AsyncIterable<Buffer>)[Symbol.asyncIterator]()
    const chunks: Buffer[] = []
    let size = 0
    while (size < bytes) {
      const next = await rest.next()
      if (next.done) break
      chunks.push(next.value)
      size += next.value.length
    }
    stdinStart = { chunks, rest }
  }
  return Buffer.concat(stdinStart.chunks).subarray(0, bytes)
}

async function* stdinBytes(): AsyncIterable<Buffer> {
  if (!stdinStart) {
    yield* process.stdin as AsyncIterable<Buffer>
    return
  }
  const { chunks, rest } = stdinStart
  yield* chunks
  for (;;) {
    const next = await rest.next()
    if (next.done) return
    yield next.value
  }
}

/** The input's bytes from `offset` on; stdin only from its start. */
export function readBytes(path: string, offset = 0): AsyncIterable<Buffer> {
  if (path === '-') {
    if (offset !== 0) throw new InputStop('stdin cannot be read again from an earlier place')
    return stdinBytes()
  }
  return createReadStream(path, { start: offset, highWaterMark: 256 * 1024 })
}
