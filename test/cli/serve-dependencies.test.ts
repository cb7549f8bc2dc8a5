// `serve` loads none of the packages only the tools need (the charts of the drive report, the CSV reader,
// progress bars, the tools' HTTP client): a service process stays as small as its work, and a fault in a
// tool's dependency cannot stop it from starting. Every module the process resolves is written down by a
// module hook, through a start and an answered request.
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import t from 'tap'
import { startTestService } from '../support/test-service.js'

const TOOLS_ONLY = ['vega', 'vega-lite', 'csv-parse', 'cli-progress', 'undici']

const dir = mkdtempSync(join(tmpdir(), 'serve-dependencies-'))
const log = join(dir, 'resolved.txt')
writeFileSync(
  join(dir, 'hooks.mjs'),
  `import { appendFileSync } from 'node:fs'
export async function resolve(specifier, context, next) {
  const resolved = await next(specifier, context)
  appendFileSync(${JSON.stringify(log)}, resolved.url + '\\n')
  return resolved
}
`,
)
writeFileSync(join(dir, 'register.mjs'), `import { register } from 'node:module'\nregister('./hooks.mjs', import.meta.url)\n`)
writeFileSync(log, '')

const service = await startTestService('cli_serve_dependencies', {
  process: 'child',
  data: 'demo',
  environment: { NODE_OPTIONS: `--import=${pathToFileURL(join(dir, 'register.mjs')).href}` },
})
t.teardown(() => service.close())

t.test('serve starts and answers without a package of the tools', async (t) => {
  t.equal((await service.get('Catalog_Products?$top=1')).status, 200)
  await service.stop('SIGTERM')
  const packages = new Set(
    readFileSync(log, 'utf8')
      .split('\n')
      .map((url) => /\/node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(url)?.[1])
      .filter((name): name is string => name !== undefined),
  )
  t.ok(packages.has('mysql2') && packages.has('uWebSockets.js'), `the hook saw the packages serve needs (${[...packages].join(', ')})`)
  t.same(
    TOOLS_ONLY.filter((name) => packages.has(name)),
    [],
    'none of the tools’ packages',
  )
})
