// The one way a test starts the service: in this process (the default: the uWS server over a pool of this
// process, so a test can read the database beside it) or as a child process (`node build/src/cli.js serve`,
// as an operator runs it, through service-child.ts: for tests of signals, worker processes, the environment,
// or a crash). Either way over a database of its own (created fresh, dropped on close) or one given, with a
// data set loaded, and one handle: the port, a raw HTTP client and the shortcuts of the reference root.
import type { ChildProcess } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ResultSetHeader } from 'mysql2'
import { startListener } from '../../src/pipelining/start-listener.js'
import { loadConfigurationFile } from '../../src/model/configuration.js'
import { loadModel } from '../../src/model/load-model.js'
import type { ResolvedSettings, ServiceModel } from '../../src/model/model.js'
import { seedDemoData } from '../../src/seed/seed-data.js'
import { createServiceContext } from '../../src/service/service-context.js'
import { migrate } from '../../src/store/migrate.js'
import type { Pool } from '../../src/store/pool.js'
import { loadReadFixture } from '../service/read/support/read-fixture.js'
import { loadVirtualFixture } from '../virtual/support/virtual-fixture.js'
import { freePort } from './free-port.js'
import { startServiceChild } from './service-child.js'
import { createTestDatabase, databaseAtUrl, databaseUrl, type TestDatabase } from './test-database.js'

export interface TestResponse {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
  readonly text: string
  json(): any
}

export const DEMO_BASIC = `Basic ${Buffer.from('demo:demo').toString('base64')}`
export const READER_BASIC = `Basic ${Buffer.from('reader:reader').toString('base64')}`
export const REFERENCE_ROOT = '/odata/standard.odata/v4/'
export const TOKEN_ROOT = '/api/v4/'

/**
 * What a service starts with. `demo`: the demo configuration's seed data at scale 1. `reads`: the hand-made
 * read fixture (test/service/read/support/read-fixture.ts). `virtual-tables`: the hand-made movements on the period
 * boundaries (test/virtual/support/virtual-fixture.ts). `empty`: the tables and nothing in them.
 */
export const DATA_SETS = ['empty', 'demo', 'reads', 'virtual-tables'] as const
export type DataSet = (typeof DATA_SETS)[number]

export interface ServiceOptions {
  /** `in-process` (the default) or `child` (`cli.js serve`, with WORKERS=1, SEED_SCALE=0, LOG_LEVEL=info unless `environment` says otherwise). */
  readonly process?: 'in-process' | 'child'
  readonly data?: DataSet
  /** The configuration file; the demo configuration by default. */
  readonly configFile?: string
  /** In process: the service context's environment; a child: variables over this process's own. */
  readonly environment?: Readonly<Record<string, string>>
  /** A database to serve (kept on close), or a DATABASE_URL (several hosts: a cluster); a fresh one named after the test by default. */
  readonly database?: TestDatabase | string
  /** A free port by default. */
  readonly port?: number
  readonly pipelining?: 'uws' | 'serialize'
}

export interface TestService {
  readonly model: ServiceModel
  readonly database: TestDatabase
  readonly port: number
  /** `http://127.0.0.1:<port>`. */
  readonly origin: string
  /** Sends the path exactly as written (no normalisation of dot segments or percent-encoding, unlike fetch). */
  request(method: string, path: string, options?: { headers?: Record<string, string>; body?: string | Buffer }): Promise<TestResponse>
  /** GET below the reference root as the demo user; spaces and other unsafe characters are percent-encoded, nothing else changes. */
  get(path: string, headers?: Record<string, string>): Promise<TestResponse>
  /** The `value` of a 200 collection answer (fails loudly otherwise). */
  values(path: string, headers?: Record<string, string>): Promise<Record<string, unknown>[]>
  /** A request below the reference root as the demo user, an object body sent as JSON. */
  send(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<TestResponse>
  /** Stops the service (a child: sends `signal`, SIGKILL by default, and waits for its exit); the database stays. */
  stop(signal?: NodeJS.Signals): Promise<void>
  /** Stops the service and drops the database it made. */
  close(): Promise<void>
}

/** A service in a child process: the process, what it wrote, how it ended. */
export interface ChildService extends TestService {
  readonly child: ChildProcess
  /** Everything the process wrote so far (stdout and stderr). */
  output(): string
  /** Resolves with the exit status (or the signal's name). */
  readonly exited: Promise<number | string>
}

export function startTestService(name: string, options: ServiceOptions & { readonly process: 'child' }): Promise<ChildService>
export function startTestService(name: string, options?: ServiceOptions): Promise<TestService>
export async function startTestService(name: string, options: ServiceOptions = {}): Promise<TestService | ChildService> {
  const model = loadModel(options.configFile ?? 'config/demo.json')
  const given = options.database
  const database = given === undefined ? await createTestDatabase(name) : typeof given === 'string' ? databaseAtUrl(given) : given
  const owned = given === undefined
  const data = options.data ?? 'empty'
  // A child migrates on its own; data to load needs the tables first.
  if (options.process !== 'child' || data !== 'empty') await migrate(database.pool, model)
  if (data === 'demo') await seedDemoData(database.pool, model, { scale: 1 })
  if (data === 'reads') await loadReadFixture(database.pool)
  if (data === 'virtual-tables') await loadVirtualFixture(database.pool, model)
  const dropOwned = async () => {
    if (owned) await database.drop()
    else if (typeof given === 'string') await database.pool.end()
  }
  if (options.process === 'child') {
    const url = typeof given === 'string' ? given : databaseUrl(database.address)
    const started = await startChild(url, options)
    return Object.assign(clientOf(model, database, started.port), {
      ...started,
      stop: started.stop,
      async close() {
        await started.stop('SIGKILL')
        await dropOwned()
      },
    })
  }
  const server = await startListener(createServiceContext(model, database.pool, options.environment), {
    host: '127.0.0.1',
    port: options.port ?? 0,
    pipelining: options.pipelining,
  })
  return Object.assign(clientOf(model, database, server.port), {
    async stop() {
      server.close()
    },
    async close() {
      server.close()
      await dropOwned()
    },
  })
}

async function startChild(
  url: string,
  options: ServiceOptions,
): Promise<Pick<ChildService, 'child' | 'output' | 'exited' | 'port' | 'stop'>> {
  const port = options.port ?? (await freePort())
  const started = await startServiceChild('build/src/cli.js', ['serve'], {
    environment: {
      DATABASE_URL: url,
      HOST: '127.0.0.1',
      SEED_SCALE: '0',
      WORKERS: '1',
      LOG_LEVEL: 'info',
      ...(options.configFile === undefined ? {} : { CONFIG: options.configFile }),
      ...(options.pipelining === undefined ? {} : { HTTP_PIPELINING: options.pipelining }),
      ...options.environment,
      PORT: String(port),
    },
    // The URLs are printed once every process listens.
    ready: /token flavour:/,
    stopWith: 'SIGKILL',
  })
  return { child: started.child, port, output: started.output, exited: started.exited, stop: started.stop }
}

function clientOf(
  model: ServiceModel,
  database: TestDatabase,
  port: number,
): Pick<TestService, 'model' | 'database' | 'port' | 'origin' | 'request' | 'get' | 'values' | 'send'> {
  const request: TestService['request'] = (method, path, requestOptions) => rawRequest(port, method, path, requestOptions)
  const get = (path: string, headers: Record<string, string> = {}) =>
    request('GET', `${REFERENCE_ROOT}${encodePath(path)}`, { headers: { Authorization: DEMO_BASIC, ...headers } })
  return {
    model,
    database,
    port,
    origin: `http://127.0.0.1:${port}`,
    request,
    get,
    async values(path, headers = {}) {
      const response = await get(path, headers)
      if (response.status !== 200) throw new Error(`GET ${path}: ${response.status} ${response.text.slice(0, 500)}`)
      return response.json().value as Record<string, unknown>[]
    },
    send(method, path, body, headers = {}) {
      const text = body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body)
      return request(method, `${REFERENCE_ROOT}${path}`, {
        headers: { Authorization: DEMO_BASIC, ...(text === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
        body: text,
      })
    },
  }
}

/** Encodes what node's HTTP client refuses in a path (spaces, quotes stay as they are). */
export function encodePath(path: string): string {
  return path.replace(/[^\x21-\x7e]/g, (c) => encodeURIComponent(c)).replaceAll('#', '%23')
}

export function rawRequest(
  port: number,
  method: string,
  path: string,
  options: { headers?: Record<string, string>; body?: string | Buffer } = {},
): Promise<TestResponse> {
  return new Promise((resolve, reject) => {
    const request = http.request({ host: '127.0.0.1', port, method, path, headers: options.headers, agent: false }, (response) => {
      const chunks: Buffer[] = []
      response.on('data', (chunk: Buffer) => chunks.push(chunk))
      response.on('error', reject)
      response.on('end', () => {
        const body = Buffer.concat(chunks)
        const text = body.toString('utf8')
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body, text, json: () => JSON.parse(text) })
      })
    })
    request.on('error', reject)
    if (options.body !== undefined) request.write(options.body)
    request.end()
  })
}

/** A copy of the demo configuration with its request log at `level`, for `startTestService`'s `configFile`. */
export function demoConfigurationWithLogLevel(level: ResolvedSettings['logLevel']): string {
  const configuration = loadConfigurationFile('config/demo.json')
  configuration.settings = { ...configuration.settings, logLevel: level }
  const file = join(mkdtempSync(join(tmpdir(), 'log-level-')), `${level}.json`)
  writeFileSync(file, JSON.stringify({ ...configuration, $schema: undefined }))
  return file
}

/**
 * Doubles the stock movements (ar_Stock of the demo model) until there are at least `atLeast`, for
 * tests that need an answer larger than any buffer on the way; resolves to the number of movements.
 * Copies take line numbers past the largest one, so keys stay unique.
 */
export async function growStockMovements(pool: Pool, atLeast: number): Promise<number> {
  const [[{ count }]] = (await pool.query('SELECT COUNT(*) AS count FROM ar_Stock')) as unknown as [[{ count: number | string }]]
  let movements = Number(count)
  if (movements === 0) throw new Error('no stock movements to grow from')
  while (movements < atLeast) {
    const [result] = await pool.query<ResultSetHeader>(
      'INSERT INTO ar_Stock (Recorder, Recorder_Type, LineNumber, Period, Active, RecordType, Warehouse_Key, Product_Key, Quantity, Amount) ' +
        'SELECT Recorder, Recorder_Type, LineNumber + (SELECT MAX(LineNumber) FROM ar_Stock), Period, Active, RecordType, Warehouse_Key, Product_Key, Quantity, Amount FROM ar_Stock',
    )
    movements += result.affectedRows
  }
  return movements
}
