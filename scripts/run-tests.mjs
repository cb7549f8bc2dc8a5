// Runs the tap suite over the compiled tests and ends with one line: `N passed, M failed`.
// Arguments: `--grep WORD[,WORD…]` keeps the test files whose path contains one of the words; other
// arguments are files.
import { spawn } from 'node:child_process'
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

function testFiles(dir) {
  const files = []
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) files.push(...testFiles(path))
    else if (entry.endsWith('.test.js')) files.push(path)
  }
  return files.sort()
}

const args = process.argv.slice(2)
const grepIndex = args.indexOf('--grep')
const grep = grepIndex >= 0 ? args[grepIndex + 1] : undefined
const explicit = grepIndex >= 0 ? args.filter((_, i) => i !== grepIndex && i !== grepIndex + 1) : args
let files = explicit.length > 0 ? explicit : testFiles('build/test')
if (grep) files = files.filter((f) => grep.split(',').some((word) => f.includes(word)))

const child = spawn(process.execPath, ['node_modules/tap/dist/esm/run.mjs', ...files], {
  stdio: ['ignore', 'pipe', 'inherit'],
  env: { ...process.env, NODE_ENV: 'test' },
})
let summary
let tail = ''
child.stdout.on('data', (chunk) => {
  process.stdout.write(chunk)
  tail = (tail + chunk.toString()).slice(-4096)
})
child.on('close', (code) => {
  const match = /# \{ total: (\d+)(?:, pass: (\d+))?(?:, fail: (\d+))?[^}]*\}/.exec(tail)
  const passed = match ? Number(match[2] ?? 0) : 0
  const failed = match ? Number(match[3] ?? 0) : 0
  summary = `${passed} passed, ${failed + (code !== 0 && failed === 0 ? 1 : 0)} failed`
  console.log(summary)
  process.exit(code ?? 1)
})
