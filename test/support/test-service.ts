// A running service for HTTP tests: its own database (migrated, optionally seeded), the demo model,
// the uWS server on a free port, and a raw HTTP client that sends paths exactly as written (no
// normalisation of dot segments or percent-encoding, unlike fetch).
import { mkdtempSync, writeFileSync } from 'node:fs'
import http from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { ResultSetHeader } from 'mysql2'
import { startServer, type RunningServer } from '../../src/http/server.js'
import { loadConfigurationFile } from '../../src/model/configuration.js'
import { loadModel } from '../../src/model/load-model.js'
import type { ResolvedSettings } from '../../src/model/model.js'
import type { ServiceModel } from '../../src/model/model.js'
import { seedDemoData } from '../../src/seed/seed-data.js'
import { createServiceContext } from '../../src/service/service-context.js'
import { migrate } from '../../src/store/migrate.js'
import type { Pool } from '../../src/store/pool.js'
import { createTestDatabase, type TestDatabase } from './test-database.js'

export interface TestResponse {
  readonly status: number
  readonly headers: http.IncomingHttpHeaders
  readonly body: Buffer
  readonly text: string
  json(): any
}

export interface TestService {
  readonly model: ServiceModel
  readonly database: TestDatabase
  readonly server: RunningServer
  readonly port: number
  request(method: string, path: string, options?: { headers?: Record<string, string>; body?: string | Buffer }): Promise<TestResponse>
  close(): Promise<void>
}

export const DEMO_BASIC = `Basic ${Buffer.from('demo:demo').toString('base64')}`
export const READER_BASIC = `Basic ${Buffer.from('reader:reader').toString('base64')}`
export const REFERENCE_ROOT = '/odata/standard.odata/v4/'
export const TOKEN_ROOT = '/api/v4/'

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

export async function startTestService(
  name: string,
  options: { seed?: boolean; configFile?: string; pipelining?: 'uws' | 'serialize' } = {},
): Promise<TestService> {
  const model = loadModel(options.configFile ?? 'config/demo.json')
  const database = await createTestDatabase(name)
  await migrate(database.pool, model)
  if (options.seed) await seedDemoData(database.pool, model, { scale: 1 })
  const server = await startServer(createServiceContext(model, database.pool), {
    host: '127.0.0.1',
    port: 0,
    pipelining: options.pipelining,
  })
  return {
    model,
    database,
    server,
    port: server.port,
    request: (method, path, requestOptions) => rawRequest(server.port, method, path, requestOptions),
    async close() {
      server.close()
      await database.drop()
    },
  }
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
