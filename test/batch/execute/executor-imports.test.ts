// The executor (src/batch/execute) sees operations, a runtime and the writer of results: nothing of the
// request log, of how writes are made, or of the store (docs/architecture.md, Batch). Its imports are read
// from the sources and checked, as the pipeline order is checked for the stages.
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'

const FOLDER = 'src/batch/execute'
/** What the executor must not import: where the log, the writes and the store live, and the runtime behind it. */
const FORBIDDEN = [
  'src/store/',
  'src/service/writes/',
  'src/log/request-log',
  'src/batch/batch-log',
  'src/batch/batch-runtime',
  'src/service/handle-request',
  'src/database-failures',
]

/** Every relative import of a source file, as a path from the repository root. */
function importsOf(file: string): string[] {
  const text = readFileSync(file, 'utf8')
  return [...text.matchAll(/(?:from|import)\s*\(?\s*'(\.{1,2}\/[^']+)'/g)].map((match) => join(FOLDER, match[1]!))
}

/** The forbidden imports of a folder's sources. */
function violations(files: readonly { name: string; imports: readonly string[] }[]): string[] {
  return files.flatMap(({ name, imports }) =>
    imports.filter((path) => FORBIDDEN.some((prefix) => path.startsWith(prefix))).map((path) => `${name} → ${path}`),
  )
}

const sources = readdirSync(FOLDER)
  .filter((name) => name.endsWith('.ts'))
  .map((name) => ({ name, imports: importsOf(join(FOLDER, name)) }))

t.ok(sources.length > 3, 'the executor has its sources')
t.same(violations(sources), [], 'no source of the executor imports the log, the writes, the store or the runtime')

t.test('a planted import is found', async (t) => {
  const planted = [{ name: 'planted.ts', imports: [join(FOLDER, '../../store/transaction.js')] }]
  t.same(violations(planted), ['planted.ts → src/store/transaction.js'])
})
