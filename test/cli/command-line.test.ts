// The command line never acts on help: `--help`, `-h` and `help` list the commands; every command's
// `--help` and `-h` print its usage and exit 0 without touching the database (the database DATABASE_URL
// names is still absent afterwards) or writing a file; every command refuses an option it does not know
// before it does anything. The commands are those of the table (src/cli/commands.ts), so a new command is
// held to the same rules. And the start banner's first request survives a shell.
import { spawn } from 'node:child_process'
import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import path from 'node:path'
import mysql from 'mysql2/promise'
import t from 'tap'
import { COMMANDS } from '../../src/cli/commands.js'
import { parseDatabaseUrl } from '../../src/store/database-url.js'
import { startTestService } from '../support/test-service.js'

const CLI = path.resolve('build/src/cli.js')
const base = parseDatabaseUrl(process.env.DATABASE_URL || 'mysql://root@127.0.0.1:3306/odata_registers')
const suffix = (process.env.TEST_DATABASE_SUFFIX ?? '').replace(/[^A-Za-z0-9_]/g, '_')
/** A database no command may create: help and refused options touch nothing. */
const UNTOUCHED = `odata_test_cli_untouched${suffix}`.slice(0, 64)
const untouchedUrl = `mysql://${base.user}${base.password ? `:${base.password}` : ''}@${base.host}:${base.port}/${UNTOUCHED}`

interface Ran {
  readonly status: number | null
  readonly stdout: string
  readonly stderr: string
  /** The files the command left in the empty directory it ran in. */
  readonly files: string[]
}

/** Runs the command line in an empty directory of its own; a process still running after 30 s is killed (and fails). */
function run(args: readonly string[], environment: Record<string, string> = {}): Promise<Ran> {
  const directory = mkdtempSync(path.join(tmpdir(), 'cli-'))
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], {
      cwd: directory,
      env: { ...process.env, DATABASE_URL: untouchedUrl, SEED_SCALE: '0', WORKERS: '1', PORT: '0', ...environment },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()))
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000)
    child.once('close', (status) => {
      clearTimeout(timer)
      resolve({ status, stdout, stderr, files: readdirSync(directory) })
    })
  })
}

async function untouchedExists(): Promise<boolean> {
  const admin = await mysql.createConnection({ host: base.host, port: base.port, user: base.user, password: base.password })
  try {
    const [rows] = await admin.query('SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME = ?', [UNTOUCHED])
    return (rows as unknown[]).length > 0
  } finally {
    await admin.end()
  }
}

async function dropUntouched(): Promise<void> {
  const admin = await mysql.createConnection({ host: base.host, port: base.port, user: base.user, password: base.password })
  await admin.query(`DROP DATABASE IF EXISTS \`${UNTOUCHED}\``)
  await admin.end()
}

await dropUntouched()
t.teardown(dropUntouched)

const names = Object.keys(COMMANDS)
/** Commands whose status 1 means something else: `verify` exits 1 when the totals differ, 2 when it cannot check. */
const REFUSAL_STATUS: Readonly<Record<string, number>> = { verify: 2 }

t.test('--help, -h and help list every command and exit 0', async (t) => {
  for (const words of [['--help'], ['-h'], ['help']]) {
    const ran = await run(words)
    t.equal(ran.status, 0, `${words.join(' ')}: exit 0`)
    t.match(ran.stdout, /^odata-registers: an OData v4 service over 1C:Enterprise-style catalogs, documents and registers/)
    for (const name of names) t.match(ran.stdout, new RegExp(`\\n  ${name} +\\S`), `${words.join(' ')}: lists ${name}`)
  }
  t.equal(await untouchedExists(), false, 'no database created')
})

t.test('no command: the list on stderr, exit 1; an unknown command: named, exit 1', async (t) => {
  const none = await run([])
  t.equal(none.status, 1)
  t.match(none.stderr, /^a command is needed\n/)
  t.match(none.stderr, '\n  serve ')
  const unknown = await run(['servee'])
  t.equal(unknown.status, 1)
  t.equal(unknown.stderr, `unknown command servee; commands: ${names.join(', ')} (odata-registers --help)\n`)
  const helpUnknown = await run(['help', 'servee'])
  t.equal(helpUnknown.status, 1)
  t.match(helpUnknown.stderr, 'unknown command servee')
})

for (const name of names) {
  t.test(`${name}: --help, -h and help ${name} print its usage, exit 0, touch nothing`, async (t) => {
    for (const args of [
      [name, '--help'],
      [name, '-h'],
      ['help', name],
      [name, '--scale', '3', '--help'],
    ]) {
      const ran = await run(args)
      const how = args.join(' ')
      t.equal(ran.status, 0, `${how}: exit 0`)
      t.equal(ran.stdout, `${COMMANDS[name]!.usage}\n`, `${how}: the usage`)
      t.match(ran.stdout, new RegExp(`^odata-registers ${name}\\b`), `${how}: the usage opens with the synopsis`)
      t.equal(ran.stderr, '', `${how}: nothing on stderr`)
      t.same(ran.files, [], `${how}: no file written`)
    }
    t.equal(await untouchedExists(), false, 'the database is still absent: nothing was migrated, seeded or served')
  })

  t.test(`${name}: an option it does not know is refused before anything is done`, async (t) => {
    const ran = await run([name, '--no-such-option'])
    t.equal(ran.status, REFUSAL_STATUS[name] ?? 1, 'exit status of a refused command line')
    t.match(ran.stderr, /^unknown option --no-such-option; options: /, 'the option named')
    t.equal(ran.stdout, '', 'nothing done')
    t.same(ran.files, [], 'no file written')
    t.equal(await untouchedExists(), false, 'the database is still absent')
  })
}

t.test('the service commands take no stray argument', async (t) => {
  for (const name of ['serve', 'check-config', 'migrate', 'seed', 'recompute-totals', 'verify']) {
    const ran = await run([name, 'extra'])
    t.equal(ran.status, REFUSAL_STATUS[name] ?? 1, `${name} extra: refused`)
    t.equal(ran.stderr, `${name} takes no argument "extra" (odata-registers ${name} --help)\n`)
  }
  t.equal(await untouchedExists(), false, 'the database is still absent')
})

t.test("serve's usage states the WORKERS default the environment applies (half the cores)", async (t) => {
  // readEnvironment's default is defaultWorkers (src/ops/environment.ts), held to [1, 1, 1, 2, 8] for 1, 2, 3, 4, 16 cores.
  t.match(COMMANDS.serve.usage.replace(/\s+/g, ' '), 'WORKERS processes (half the cores, at least one)')
  t.notMatch(COMMANDS.serve.usage, 'one per')
})

t.test('check-config accepts the multi-host DATABASE_URL of a Galera cluster', async (t) => {
  const ran = await run(['check-config'], { DATABASE_URL: 'mysql://root@10.0.0.1:3306,10.0.0.2:3306,[fd00::3]:3307/odata_registers' })
  t.equal(ran.status, 0, ran.stderr)
  t.match(ran.stdout, /config\/demo\.json: valid \(\d+ entity sets\); environment valid/)
  const wrong = await run(['check-config'], { DATABASE_URL: 'mysql://root@10.0.0.1:3306,10.0.0.1:3306/odata_registers' })
  t.equal(wrong.status, 1)
  t.match(wrong.stderr, 'DATABASE_URL: lists a host twice')
})

t.test("the banner's first request is quoted, so that a shell keeps $metadata", async (t) => {
  const service = await startTestService('cli_banner', { process: 'child' })
  t.teardown(() => service.close())
  const line = service
    .output()
    .split('\n')
    .find((text) => text.trimStart().startsWith('try: '))
  t.match(line, new RegExp(`try: curl -u demo:demo 'http://127\\.0\\.0\\.1:${service.port}/[^' ]*/v4/\\$metadata'$`))
})
