// The environment is checked at start: every wrong variable is named with what it must be and what it
// was, all at once, and the process stops before it touches the database; right values are read as
// numbers; check-config checks the environment too.
import t from 'tap'
import { ConfigurationError } from '../../src/model/configuration.js'
import { defaultWorkers, readEnvironment } from '../../src/ops/environment.js'
import { runCli } from '../support/run-cli.js'

function problems(environment: Record<string, string>): string[] {
  try {
    readEnvironment(environment)
  } catch (error) {
    if (error instanceof ConfigurationError) return error.problems.map((problem) => `${problem.path}: ${problem.message}`)
    throw error
  }
  return []
}

t.test('valid values are read, defaults filled in', async (t) => {
  const environment = readEnvironment({
    PORT: '9090',
    WORKERS: '2',
    STOP_TIMEOUT_SECONDS: '2.5',
    HOST: '0.0.0.0',
    METRICS_TOKEN: 'a-long-scrape-token',
    CORS_ORIGINS: 'https://app.example.com',
    HTTP_PIPELINING: 'serialize',
  })
  t.equal(environment.port, 9090)
  t.equal(environment.pipelining, 'serialize')
  t.equal(environment.workers, 2)
  t.equal(environment.stopTimeoutSeconds, 2.5)
  t.equal(environment.host, '0.0.0.0')
  t.equal(environment.metricsToken, 'a-long-scrape-token')
  t.equal(environment.corsOrigins, 'https://app.example.com')
  const defaults = readEnvironment({})
  t.equal(defaults.port, 8080)
  t.equal(defaults.stopTimeoutSeconds, 25)
  t.ok(defaults.workers >= 1, 'the number of cores')
  t.equal(defaults.configFile, 'config/demo.json')
  t.equal(defaults.pipelining, 'uws', 'uWS alone unless the front is asked for')
})

t.test('every wrong variable is named, with what it must be and what it was', async (t) => {
  t.same(
    problems({
      PORT: '80a',
      WORKERS: '0',
      STOP_TIMEOUT_SECONDS: '-1',
      LOG_LEVEL: 'verbose',
      SEED_SCALE: 'big',
      METRICS_TOKEN: 'short',
      HOST: 'my host',
      DATABASE_URL: 'postgres://x@y/z',
      CONFIG: 'config/none.json',
      MAX_BATCH_OPERATIONS: 'many',
      CORS_ORIGINS: '*',
    }),
    [
      'PORT: must be an integer from 0 to 65535 (got "80a")',
      'HOST: must be an interface address or host name (127.0.0.1, 0.0.0.0, ::) (got "my host")',
      'SEED_SCALE: must be a number from 0 to 100000 (got "big")',
      'LOG_LEVEL: must be one of fatal, error, warn, info, debug, trace, silent (got "verbose")',
      'WORKERS: must be a number of processes from 1 to 256 (got "0")',
      'STOP_TIMEOUT_SECONDS: must be a number of seconds from 0 to 3600 (got "-1")',
      'METRICS_TOKEN: must be at least 16 visible ASCII characters, no spaces (got "short")',
      'DATABASE_URL: must start with mysql:// (got postgres://)',
      'CONFIG: names no file ("config/none.json")',
      'MAX_BATCH_OPERATIONS: must be integer (got "many")',
      'CORS_ORIGINS: "*": a wildcard is refused; list each origin a browser client is served from (https://app.example.com)',
    ],
  )
  t.same(problems({ DATABASE_URL: 'mysql://u:secret@h/x-y' }), [
    'DATABASE_URL: must name a database of letters, digits and underscores, e.g. mysql://root@127.0.0.1:3306/odata_registers (got "mysql://u:***@h/x-y")',
  ])
  t.same(problems({ PORT: '65536' }), ['PORT: must be an integer from 0 to 65535 (got "65536")'])
  t.same(problems({ HTTP_PIPELINING: 'on' }), [
    'HTTP_PIPELINING: must be uws (uWS alone) or serialize (pipelined requests answered in order, through the front) (got "on")',
  ])
  t.same(problems({ WORKERS: '1.5' }), ['WORKERS: must be a number of processes from 1 to 256 (got "1.5")'])
})

t.test('serve stops at once with the problems, before it touches the database', async (t) => {
  const result = await runCli(['serve'], { PORT: 'eighty', WORKERS: 'two', DATABASE_URL: 'mysql://root@127.0.0.1:1/never_created' }).done
  t.equal(result.code, 1)
  t.match(result.output, /^environment: 2 problem\(s\):$/m, 'the environment, not "in the configuration"')
  t.match(result.output, /PORT: must be an integer from 0 to 65535 \(got "eighty"\)/)
  t.match(result.output, /WORKERS: must be a number of processes from 1 to 256 \(got "two"\)/)
  t.notMatch(result.output, /MySQL|ECONNREFUSED/, 'no database was reached for')
})

t.test('check-config checks the environment and the configuration', async (t) => {
  const valid = await runCli(['check-config'], { PORT: '8081' }).done
  t.equal(valid.code, 0)
  t.match(valid.output, /valid \(\d+ entity sets\); environment valid/)
  const invalid = await runCli(['check-config'], { CORS_ORIGINS: 'https://app.example.com/', STOP_TIMEOUT_SECONDS: 'soon' }).done
  t.equal(invalid.code, 1)
  t.match(invalid.output, /STOP_TIMEOUT_SECONDS: must be a number of seconds/)
  t.match(invalid.output, /CORS_ORIGINS: "https:\/\/app\.example\.com\/" is not an origin/)
})

t.test('numbers are written in digits: an exponent, hex, a sign or a fraction of a count is refused', async (t) => {
  for (const [name, text] of [
    ['REQUEST_LOG_KEEP_ROWS', '1e3'],
    ['REQUEST_LOG_KEEP_ROWS', '0x10'],
    ['REQUEST_LOG_KEEP_ROWS', '2.0'],
    ['REQUEST_LOG_KEEP_DAYS', '1e1'],
    ['PORT', '+8080'],
    ['WORKERS', '0b10'],
    ['STOP_TIMEOUT_SECONDS', '1e1'],
    ['SEED_SCALE', '.5'],
  ] as const) {
    const found = problems({ [name]: text })
    t.equal(found.length, 1, `${name}=${text}: ${found.join('; ')}`)
    t.ok(found[0]!.startsWith(`${name}: must be `), found[0])
    t.ok(found[0]!.endsWith(`written in digits (got ${JSON.stringify(text)})`), found[0])
  }
  t.same(problems({ HOST: '1e3' }), [], 'a text variable is no number')
  const read = readEnvironment({ REQUEST_LOG_KEEP_ROWS: '1000', REQUEST_LOG_KEEP_DAYS: '7.5', SEED_SCALE: '0.5' })
  t.same(read.logRetention, { keepDays: 7.5, keepRows: 1000 })
  t.equal(read.seedScale, 0.5)
})

t.test('WORKERS unset: half the cores, at least one (one on the two-core machine where two were slower)', async (t) => {
  t.same([1, 2, 3, 4, 16].map(defaultWorkers), [1, 1, 1, 2, 8])
  t.equal(readEnvironment({ WORKERS: '3' }).workers, 3, 'a set value is taken as it is')
})
