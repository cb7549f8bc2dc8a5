// `make bench`: runs every compiled benchmark in perf/ one after the other (they share the machine),
// prints their lines, and writes the collected figures to perf/results/latest.json.
// A benchmark that exits with code 3 skipped itself (it needs data `make bench` does not seed, and says
// so in one line): it is counted apart from failures and does not make the run fail. `make bench-full`
// sets BENCH_FULL=1, with which such a benchmark seeds its data once and runs.
// Lines are passed on as a benchmark prints them, so a long one (the ten-million-movement virtual tables)
// shows where it is.
// Usage: node scripts/run-benchmarks.mjs [name]   (runs the benchmarks whose file name contains `name`)
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'
import { createInterface } from 'node:readline'

const SKIPPED = 3
const only = process.argv[2]
const files = readdirSync('build/perf')
  .filter((f) => f.endsWith('.bench.js') && (!only || f.includes(only)))
  .sort()
const results = []
let failed = 0
let skipped = 0
for (const file of files) {
  console.log(`== ${file}`)
  const child = spawn(process.execPath, [`build/perf/${file}`], {
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'silent' },
  })
  const exited = once(child, 'close')
  for await (const line of createInterface({ input: child.stdout })) {
    if (line.startsWith('BENCH_JSON ')) results.push(JSON.parse(line.slice(11)))
    else if (line.trim() !== '') console.log(line)
  }
  const [status] = await exited
  if (status === SKIPPED) skipped++
  else if (status !== 0) {
    failed++
    console.log(`${file} failed (exit ${status})`)
  }
}
mkdirSync('perf/results', { recursive: true })
writeFileSync('perf/results/latest.json', JSON.stringify({ at: new Date().toISOString(), results }, null, 2))
console.log(`${files.length - failed - skipped} ran, ${skipped} skipped, ${failed} failed`)
process.exit(failed > 0 ? 1 : 0)
