// Checks that no import under src/ points back up the pipeline: each file's stage (its folder under
// src/) may import its own stage and the stages in rows below it in pipeline-order.config.mjs.
//
//   node scripts/check-pipeline-order.mjs [--root <repository>] [--config <file>]
//
// Exits 1 listing every import against the order, 0 otherwise. Imports are read by TypeScript's own
// pre-processor (static, `import type`, re-exports and dynamic `import()`); packages are not stages, but a
// package the config's `packages` names may be imported only by the stages it lists.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { dirname, join, normalize, relative, resolve, sep } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import ts from 'typescript'

const args = process.argv.slice(2)
const option = (name, fallback) => {
  const at = args.indexOf(name)
  return at >= 0 && args[at + 1] ? resolve(args[at + 1]) : fallback
}
const root = option('--root', resolve(dirname(fileURLToPath(import.meta.url)), '..'))
const configFile = option('--config', join(root, 'pipeline-order.config.mjs'))
const { stages, exceptions = [], packages = {} } = await import(pathToFileURL(configFile).href)

const rowOf = new Map()
for (const [index, row] of stages.entries()) {
  for (const stage of row) rowOf.set(stage, index)
}

const posix = (path) => path.split(sep).join('/')
/** `src/batch/plan/plan-batch.ts` → `batch`; `src/errors.ts` → `errors`. */
function stageOf(path) {
  const parts = path.split('/')
  return parts.length > 2 ? parts[1] : parts[1].replace(/\.(d\.)?[cm]?[jt]s$/, '')
}

function sourceFiles(dir) {
  const files = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) files.push(...sourceFiles(path))
    else if (/\.[cm]?ts$/.test(name)) files.push(path)
  }
  return files
}

const problems = []
const used = new Set()
let imports = 0
const files = sourceFiles(join(root, 'src'))
  .map((file) => posix(relative(root, file)))
  .sort()
for (const file of files) {
  const from = stageOf(file)
  if (!rowOf.has(from)) {
    problems.push(`${file}: its stage "${from}" is not in the order table`)
    continue
  }
  const { importedFiles } = ts.preProcessFile(readFileSync(join(root, file), 'utf8'), true, true)
  for (const { fileName } of importedFiles) {
    if (!fileName.startsWith('.')) {
      const name = fileName.startsWith('@') ? fileName.split('/').slice(0, 2).join('/') : fileName.split('/')[0]
      const allowed = packages[name]
      if (allowed !== undefined && !allowed.includes(from))
        problems.push(`${file} imports ${fileName}: only ${allowed.map((s) => `"${s}"`).join(', ')} may import ${name}`)
      continue
    }
    imports++
    const target = posix(normalize(join(dirname(file), fileName))).replace(/\.js$/, '.ts')
    if (!target.startsWith('src/')) {
      problems.push(`${file} imports ${fileName}, outside src/`)
      continue
    }
    const to = stageOf(target)
    if (to === from) continue
    const allowed = rowOf.has(to) && rowOf.get(to) > rowOf.get(from)
    if (allowed) continue
    const exception = exceptions.find((e) => file.startsWith(e.from) && target.startsWith(e.to))
    if (exception) {
      used.add(exception)
      continue
    }
    const why = !rowOf.has(to)
      ? `"${to}" is not in the order table`
      : rowOf.get(to) === rowOf.get(from)
        ? `"${from}" and "${to}" are neighbours in one row`
        : `"${to}" stands above "${from}"`
    problems.push(`${file} imports ${target}: ${why}`)
  }
}

for (const exception of exceptions) {
  if (!used.has(exception))
    console.log(`pipeline order: the exception ${exception.from} → ${exception.to} matches no import any more; remove it`)
}
if (problems.length > 0) {
  console.error(`pipeline order: ${problems.length} import(s) against the order of ${posix(relative(root, configFile))}:`)
  for (const problem of problems) console.error(`  ${problem}`)
  process.exit(1)
}
console.log(`pipeline order: ${imports} imports in ${files.length} files follow the order (${used.size} known exception(s))`)
