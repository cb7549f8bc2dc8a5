// Where the third-party test material lies (the OASIS CSDL schemas and ABNF test cases, the standard's
// batch examples, Olingo's batch vectors): the folder CORPUS_DIR names. Only `make test-corpus` runs the
// tests of this folder, and it sets CORPUS_DIR (docs/testing.md). Nothing here is skipped for a missing
// file: a corpus without the file a test reads is a failure, named.
import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'

function corpusRoot(): string {
  const folder = process.env.CORPUS_DIR
  if (folder === undefined || folder === '')
    throw new Error('CORPUS_DIR is not set: the corpus tests run with `make test-corpus CORPUS_DIR=<folder>`')
  const root = path.resolve(folder)
  if (!existsSync(root)) throw new Error(`CORPUS_DIR names no folder (${root})`)
  return root
}

/** The corpus folder, absolute. */
export const CORPUS_ROOT = corpusRoot()

/** The absolute path of a file of the corpus; throws when the corpus lacks it. */
export function corpusPath(relativePath: string): string {
  const file = path.join(CORPUS_ROOT, relativePath)
  if (!existsSync(file)) throw new Error(`the corpus (${CORPUS_ROOT}) has no ${relativePath}`)
  return file
}

/** The bytes of a file of the corpus; throws when the corpus lacks it. */
export function corpusFile(relativePath: string): Buffer {
  return readFileSync(corpusPath(relativePath))
}
