// The pipeline order (pipeline-order.config.mjs) is checked by scripts/check-pipeline-order.mjs, which
// `make test` runs before the suite. Here: the check passes on this repository, and fails on a tree that
// differs from a passing one by a single planted upward import.
import { execFileSync, spawnSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import t from 'tap'

const checker = join(process.cwd(), 'scripts', 'check-pipeline-order.mjs')
const config = join(process.cwd(), 'pipeline-order.config.mjs')

function check(root: string) {
  return spawnSync(process.execPath, [checker, '--root', root, '--config', config], { encoding: 'utf8' })
}

function tree(files: Record<string, string>): string {
  const root = mkdtempSync(join(tmpdir(), 'pipeline-order-'))
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true })
    writeFileSync(join(root, path), text)
  }
  return root
}

const downward = {
  'src/http/server.ts': "import { planBatch } from '../batch/plan.js'\nimport type { Flavour } from '../model/flavour.js'\n",
  'src/batch/plan.ts': "import { quote } from '../sql/quote.js'\nexport const planBatch = () => quote('x')\n",
  'src/sql/quote.ts': "import { ODataError } from '../errors.js'\nexport const quote = (name: string) => name\n",
  'src/model/flavour.ts': "export type Flavour = 'reference' | 'token'\n",
  'src/errors.ts': 'export class ODataError {}\n',
}

t.test('the repository follows the order', async (t) => {
  const result = check(process.cwd())
  t.equal(result.status, 0, result.stderr)
  t.match(result.stdout, /follow the order/)
})

t.test('a tree whose imports all point down passes', async (t) => {
  const root = tree(downward)
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const result = check(root)
  t.equal(result.status, 0, result.stderr)
})

t.test('one planted upward import fails the check, naming the file and the stages', async (t) => {
  const root = tree({
    ...downward,
    'src/sql/quote.ts':
      "import { ODataError } from '../errors.js'\nimport type { Pool } from '../store/pool.js'\nexport const quote = (name: string) => name\n",
    'src/store/pool.ts': 'export type Pool = object\n',
  })
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const result = check(root)
  t.equal(result.status, 1)
  t.match(result.stderr, /src\/sql\/quote\.ts imports src\/store\/pool\.ts: "store" stands above "sql"/)
})

t.test('an import between neighbours of one row, a dynamic import upward and an unknown stage fail too', async (t) => {
  const root = tree({
    ...downward,
    'src/log/request-log.ts': "import { limit } from '../limits/rate.js'\nexport const log = limit\n",
    'src/limits/rate.ts': 'export const limit = 1\n',
    'src/model/load.ts': "export const load = () => import('../http/server.js')\n",
    'src/gadgets/thing.ts': 'export const thing = 1\n',
  })
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const result = check(root)
  t.equal(result.status, 1)
  t.match(result.stderr, /src\/log\/request-log\.ts imports src\/limits\/rate\.ts: "log" and "limits" are neighbours in one row/)
  t.match(result.stderr, /src\/model\/load\.ts imports src\/http\/server\.ts: "http" stands above "model"/)
  t.match(result.stderr, /src\/gadgets\/thing\.ts: its stage "gadgets" is not in the order table/)
})

t.test('the database driver is imported by src/store alone: anywhere else fails the check', async (t) => {
  const driverInStore = {
    ...downward,
    'src/store/pool.ts': "import mysql from 'mysql2/promise'\nexport const pool = mysql\n",
    'src/store/row-source.ts': "import type { Query } from 'mysql2'\nexport type Rows = Query\n",
  }
  const allowed = tree(driverInStore)
  t.teardown(() => rmSync(allowed, { recursive: true, force: true }))
  const passing = check(allowed)
  t.equal(passing.status, 0, passing.stderr)
  const root = tree({
    ...driverInStore,
    'src/service/read-entity.ts': "import type { Pool } from 'mysql2/promise'\nexport type Reader = Pool\n",
    'src/sql/sql-template.ts': "import mysql from 'mysql2'\nexport const escape = mysql.escape\n",
  })
  t.teardown(() => rmSync(root, { recursive: true, force: true }))
  const result = check(root)
  t.equal(result.status, 1)
  t.match(result.stderr, /src\/service\/read-entity\.ts imports mysql2\/promise: only "store" may import mysql2/)
  t.match(result.stderr, /src\/sql\/sql-template\.ts imports mysql2: only "store" may import mysql2/)
})

t.test('make test runs the check before the suite', async (t) => {
  const makefile = execFileSync('make', ['-n', 'test'], { encoding: 'utf8', env: { ...process.env, MAKEFLAGS: '' } })
  const checkAt = makefile.indexOf('check-pipeline-order.mjs')
  t.ok(checkAt >= 0 && checkAt < makefile.indexOf('run-tests.mjs'), 'the check comes first')
})
