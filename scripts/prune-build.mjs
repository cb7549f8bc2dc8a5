// tsc's incremental build neither deletes the output of a source file that was removed or renamed nor
// re-emits an output deleted by hand. A stale compiled test would still run (and fail against files that
// changed since), so `make build` removes every output under build/ whose TypeScript source is gone.
import { existsSync, readdirSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'

function prune(dir) {
  for (const entry of readdirSync(dir)) {
    const path = join(dir, entry)
    if (statSync(path).isDirectory()) {
      prune(path)
      continue
    }
    const match = /^(.*)\.js(\.map)?$/.exec(entry)
    if (!match) continue
    const source = join(dir.replace(/^build(\/|$)/, ''), `${match[1]}.ts`)
    if (!existsSync(source)) rmSync(path)
  }
}

for (const top of ['src', 'test', 'perf', 'scripts']) if (existsSync(join('build', top))) prune(join('build', top))
