// `make test-corpus` (docs/testing.md): without its folder it stops at once with one line naming it, and a
// corpus test run without CORPUS_DIR fails with a line that says how to run it, never a silent skip.
import { execFile } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'

const run = promisify(execFile)

async function outcome(command: string, args: string[], env: Record<string, string | undefined>) {
  try {
    const { stdout, stderr } = await run(command, args, { env: { ...process.env, ...env } })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

t.test('make test-corpus with a folder that is not there: fails with one line naming it', async (t) => {
  const missing = path.join(mkdtempSync(path.join(tmpdir(), 'corpus-')), 'absent')
  // -o build: the build is the suite's own, already made; only the target's check is under test.
  const result = await outcome('make', ['--no-print-directory', '-o', 'build', 'test-corpus', `CORPUS_DIR=${missing}`], {})
  t.not(result.code, 0)
  t.match(result.stderr, `make test-corpus: the corpus folder ${missing} is missing; set CORPUS_DIR=`)
  t.equal(result.stdout, '', 'no test ran')
})

t.test('a corpus test without CORPUS_DIR fails, saying how to run it', async (t) => {
  const result = await outcome(process.execPath, ['build/test/corpus/batch-content.corpus.js'], { CORPUS_DIR: undefined })
  t.not(result.code, 0)
  t.match(result.stderr, 'CORPUS_DIR is not set: the corpus tests run with `make test-corpus CORPUS_DIR=<folder>`')
})
