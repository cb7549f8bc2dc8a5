// The npm package as a user installs it: `npm pack` ships the build, the configuration and the docs, and
// nothing else (no tests, no benchmarks, no TypeScript sources, no stray files); the tarball installs into
// an empty folder with no network (npm ci --offline: every dependency from the local npm cache, pinned to
// the versions of the project's own lockfile, as a deployment pins them), and the installed
// `odata-registers` answers `--help`, `check-config` and `serve` from that folder, finding its default
// configuration in the package, then a GET.
import { execFile, spawn } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import t from 'tap'
import { createTestDatabase, databaseUrl } from '../support/test-database.js'
import { freePort } from '../support/free-port.js'

const exec = promisify(execFile)
const folder = mkdtempSync(path.join(tmpdir(), 'package-install-'))
const project = JSON.parse(readFileSync('package.json', 'utf8')) as {
  name: string
  version: string
  dependencies: Record<string, string>
  bin: Record<string, string>
  engines: Record<string, string>
}

const { stdout: packed } = await exec('npm', ['pack', '--json', '--pack-destination', folder], { maxBuffer: 64 * 1024 * 1024 })
const [pack] = JSON.parse(packed) as Array<{ filename: string; files: Array<{ path: string }> }>
const files = pack!.files.map((file) => file.path)
const tarball = path.join(folder, pack!.filename)

t.test('npm pack ships the build, the configuration and the docs, nothing else', async (t) => {
  for (const needed of [
    'package.json',
    'README.md',
    'build/src/cli.js',
    'build/src/tools/drive/drive-report.js',
    'config/demo.json',
    'config/configuration.schema.json',
    'docs/operations.md',
    'perf/workloads/demo-mix.yaml',
  ])
    t.ok(files.includes(needed), `ships ${needed}`)
  const stray = files.filter(
    (file) =>
      !/^(package\.json|README\.md|build\/src\/.+\.js|config\/[^/]+\.json|docs\/.+|deploy\/.+|perf\/workloads\/demo-mix\.yaml)$/.test(file),
  )
  t.same(stray, [], 'no file outside the build, config/, docs/, deploy/ and the example workload the docs drive with')
  t.same(
    files.filter(
      (file) => (/(^|\/)(test|perf)\//.test(file) && !file.startsWith('perf/workloads/')) || file.endsWith('.ts') || file.endsWith('.map'),
    ),
    [],
    'no tests, benchmarks, sources or source maps',
  )
})

// The app folder: the tarball as its one dependency, and a lockfile pinning the package's dependencies
// to the project's locked versions, so that `npm ci --offline` needs nothing but the cache.
const app = path.join(folder, 'app')
mkdirSync(app)
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8')) as { packages: Record<string, { dev?: boolean }> }
const packageEntry = {
  version: project.version,
  resolved: `file:${tarball}`,
  integrity: `sha512-${createHash('sha512').update(readFileSync(tarball)).digest('base64')}`,
  dependencies: project.dependencies,
  bin: project.bin,
  engines: project.engines,
}
const packages: Record<string, unknown> = {
  '': { name: 'app', dependencies: { [project.name]: `file:${tarball}` } },
  [`node_modules/${project.name}`]: packageEntry,
}
for (const [key, entry] of Object.entries(lock.packages)) if (key.startsWith('node_modules/') && !entry.dev) packages[key] = entry
writeFileSync(
  path.join(app, 'package.json'),
  JSON.stringify({ name: 'app', private: true, dependencies: { [project.name]: `file:${tarball}` } }),
)
writeFileSync(path.join(app, 'package-lock.json'), JSON.stringify({ name: 'app', lockfileVersion: 3, requires: true, packages }))
await exec('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: app })
const bin = path.join(app, 'node_modules', '.bin', 'odata-registers')

t.test('the installed odata-registers: --help lists the commands', async (t) => {
  const { stdout } = await exec(bin, ['--help'], { cwd: app })
  t.match(stdout, /^odata-registers: an OData v4 service/)
  for (const name of ['serve', 'check-config', 'migrate', 'seed', 'recompute-totals', 'load', 'drive']) t.match(stdout, `\n  ${name} `)
})

t.test("the installed odata-registers: check-config finds the package's configuration from the app's folder", async (t) => {
  const { stdout } = await exec(bin, ['check-config'], { cwd: app, env: { ...process.env, CONFIG: '' } })
  // Under the current directory, the path is written relative to it.
  t.equal(stdout, `${path.join('node_modules', project.name, 'config', 'demo.json')}: valid (20 entity sets); environment valid\n`)
})

t.test('the installed odata-registers serves from the app folder: schema made, a GET answered', async (t) => {
  const database = await createTestDatabase('package_install')
  t.teardown(() => database.drop())
  const port = await freePort()
  const child = spawn(bin, ['serve'], {
    cwd: app,
    env: { ...process.env, CONFIG: '', DATABASE_URL: databaseUrl(database.address), PORT: String(port), WORKERS: '1', SEED_SCALE: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => (output += chunk.toString()))
  child.stderr.on('data', (chunk: Buffer) => (output += chunk.toString()))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  t.teardown(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM')
      await exited
    }
  })
  await new Promise<void>((resolve, reject) => {
    const timer = setInterval(() => {
      if (output.includes('try: curl')) {
        clearInterval(timer)
        resolve()
      }
    }, 50)
    void exited.then((code) => {
      clearInterval(timer)
      reject(new Error(`the installed service exited (${code}) before it served:\n${output}`))
    })
  })
  t.match(output, `configuration ${path.join('node_modules', project.name, 'config', 'demo.json')};`)

  const response = await fetch(`http://127.0.0.1:${port}/odata/standard.odata/v4/Catalog_Warehouses?$top=1`, {
    headers: { authorization: `Basic ${Buffer.from('demo:demo').toString('base64')}` },
  })
  t.equal(response.status, 200)
  const body = (await response.json()) as { '@odata.context': string; value: Array<{ Ref_Key: string }> }
  t.equal(body['@odata.context'], `http://127.0.0.1:${port}/odata/standard.odata/v4/$metadata#Catalog_Warehouses`)
  t.equal(body.value.length, 1, 'one warehouse')
  t.match(body.value[0]!.Ref_Key, /^[0-9a-f-]{36}$/)

  const [tables] = await database.pool.query(
    "SELECT COUNT(*) AS n FROM information_schema.TABLES WHERE TABLE_SCHEMA = ? AND TABLE_NAME LIKE 'c\\_%'",
    [database.address.database],
  )
  t.ok((tables as Array<{ n: number }>)[0]!.n >= 4, 'the catalogs’ tables were made by the installed package')
  child.kill('SIGTERM')
  t.equal(await exited, 0, 'a graceful stop')
})
