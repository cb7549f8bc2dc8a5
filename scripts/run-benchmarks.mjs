// `make bench`: runs every compiled benchmark in perf/ one after the other (they share the machine),
// prints their lines, and writes the collected figures to perf/results/latest.json.
// A benchmark that exits with code 3 skipped itself (it needs data `make bench` does not seed, and says
// so in one line): it is counted apart from failures and does not make the run fail. `make bench-full`
// sets BENCH_FULL=1, with which such a benchmark seeds its data once and runs.
// Usage: node scripts/run-benchmarks.mjs [name]   (runs the benchmarks whose file name contains `name`)
import { spawnSync } from 'node:child_process'
import { mkdirSync, readdirSync, writeFileSync } from 'node:fs'

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
  const run = spawnSync(process.execPath, [`build/perf/${file}`], {
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'inherit'],
    env: { ...process.env, NODE_ENV: 'production', LOG_LEVEL: 'silent' },
  })
  for (const line of (run.stdout ?? '').split('\n')) {
    if (line.startsWith('BENCH_JSON ')) results.push(JSON.parse(line.slice(11)))
    else if (line.trim() !== '') console.log(line)
  }
  if (run.status === SKIPPED) skipped++
  else if (run.status !== 0) {
    failed++
    console.log(`${file} failed (exit ${run.status})`)
  }
}
mkdirSync('perf/results', { recursive: true })
writeFileSync('perf/results/latest.json', JSON.stringify({ at: new Date().toISOString(), results }, null, 2))
console.log(`${files.length - failed - skipped} ran, ${skipped} skipped, ${failed} failed`)
process.exit(failed > 0 ? 1 : 0)
