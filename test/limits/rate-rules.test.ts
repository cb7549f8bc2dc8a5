// Rate rules count every request (decisions.md §8): single requests one operation each, a batch each of
// its operations, shared by every process through MySQL. Two service instances on one database stand for
// two processes (each has its own limiter, as a process has). Counts are reserved in blocks, so most
// requests make no database round trip; the sum granted in a window is never more than the rule.
import { readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { startServer } from '../../src/http/server.js'
import { blockSize } from '../../src/limits/rate-limiter.js'
import { loadModel } from '../../src/model/load-model.js'
import { createServiceContext } from '../../src/service/service-context.js'
import { migrate } from '../../src/store/migrate.js'
import { buildJsonBatch } from '../../src/tools/shared/batch-body.js'
import { createTestDatabase } from '../support/test-database.js'
import { rawRequest } from '../support/test-service.js'

// The demo configuration with the readonly profile at 200 operations an hour (a window the test fits in).
const RULE = { operations: 200, per: 3600 }
const configuration = JSON.parse(readFileSync('config/demo.json', 'utf8'))
configuration.profiles.find((profile: { name: string }) => profile.name === 'readonly').rateRules = [RULE]
const configFile = join(tmpdir(), `rate-rules-${process.pid}.json`)
writeFileSync(configFile, JSON.stringify(configuration))
const model = loadModel(configFile)

const database = await createTestDatabase('http_rate_rules')
await migrate(database.pool, model)
const pool = database.pool
const contexts = [createServiceContext(model, pool), createServiceContext(model, pool)]
const servers = await Promise.all(contexts.map((context) => startServer(context, { host: '127.0.0.1', port: 0 })))
t.teardown(async () => {
  for (const server of servers) server.close()
  await database.drop()
})

const reader = { Authorization: 'Bearer reader-token' }
const get = (instance: number) => rawRequest(servers[instance]!.port, 'GET', '/api/v4/Catalog_Products?$top=1', { headers: reader })
const windowStart = () => Math.floor(Date.now() / 1000 / RULE.per) * RULE.per
const counter = async (): Promise<number> => {
  const [rows] = (await pool.query("SELECT operations FROM _rate_counters WHERE subject = 'reader' AND window_start = ?", [
    windowStart(),
  ])) as unknown as [{ operations: number }[]]
  return Number(rows[0]?.operations ?? 0)
}

t.test('single requests and batch operations share one count across two processes', async (t) => {
  const started = windowStart()
  t.equal((await get(0)).status, 200)
  t.equal(await counter(), blockSize(RULE), 'the first request reserved a block, not one operation')
  for (let i = 0; i < 3; i++) t.equal((await get(0)).status, 200)
  t.equal(contexts[0]!.rateLimiter.reservations, 1, 'requests inside the block make no database round trip')

  const batch = buildJsonBatch(Array.from({ length: 10 }, (_, i) => ({ id: String(i), method: 'GET', url: 'Catalog_Products?$top=1' })))
  const batchAnswer = await rawRequest(servers[1]!.port, 'POST', '/api/v4/$batch', {
    headers: { ...reader, 'Content-Type': batch.contentType },
    body: batch.body,
  })
  t.equal(batchAnswer.status, 200, 'a batch of 10 on the other process')

  // Alternate between the processes until well past the rule: exactly what is left is granted.
  const statuses: number[] = []
  let retryAfter = ''
  for (let i = 0; i < RULE.operations; i++) {
    const response = await get(i % 2)
    statuses.push(response.status)
    if (response.status === 429) {
      retryAfter = String(response.headers['retry-after'])
      t.equal(response.json().error.code, 'RateLimited')
    }
  }
  if (windowStart() !== started) return t.comment('the window turned over during the test')
  t.equal(statuses.filter((status) => status === 200).length, RULE.operations - 4 - 10, 'single requests and the batch counted together')
  t.same([...new Set(statuses)].sort(), [200, 429])
  t.ok(Number(retryAfter) >= 1 && Number(retryAfter) <= RULE.per, `Retry-After ${retryAfter}`)
  const reservations = contexts[0]!.rateLimiter.reservations + contexts[1]!.rateLimiter.reservations
  t.ok(reservations <= 2 + RULE.operations / blockSize(RULE) + 2, `${reservations} round trips for ${RULE.operations + 14} requests`)
  t.ok((await counter()) >= RULE.operations, 'the shared counter is full')

  // A batch refused now is logged with its 429 and its operations; so are refused single requests.
  const refused = await rawRequest(servers[0]!.port, 'POST', '/api/v4/$batch', {
    headers: { ...reader, 'Content-Type': batch.contentType },
    body: batch.body,
  })
  t.equal(refused.status, 429)
  t.equal(refused.json().error.code, 'RateLimited')
  for (const context of contexts) await context.requestLog.flush()
  const [logged] = (await pool.query(
    "SELECT method, url, status, error_code, operations FROM request_log WHERE subject = 'reader' AND status = 429 ORDER BY id",
  )) as unknown as [{ method: string; url: string; error_code: string; operations: number | null }[]]
  t.equal(
    logged.filter((row) => row.method === 'GET').length,
    statuses.filter((status) => status === 429).length,
    'every refused single request is logged',
  )
  t.same(
    logged.filter((row) => row.method === 'POST'),
    [{ method: 'POST', url: '/api/v4/$batch', status: 429, error_code: 'RateLimited', operations: 10 }],
  )
})

t.test('a subject without rules is never counted', async (t) => {
  for (let i = 0; i < 5; i++)
    t.equal((await rawRequest(servers[0]!.port, 'GET', '/api/v4/', { headers: { Authorization: 'Bearer bench-token' } })).status, 200)
  const [rows] = (await pool.query("SELECT COUNT(*) AS n FROM _rate_counters WHERE subject = 'bench'")) as unknown as [{ n: number }[]]
  t.equal(Number(rows[0]!.n), 0)
})

t.test('concurrent requests never take more than the rule, in one process or two', async (t) => {
  const { RateLimiter } = await import('../../src/limits/rate-limiter.js')
  const rule = { operations: 100, per: 3600 }
  const subject = (name: string) => ({
    ...model.subjects.find((s) => s.name === 'reader')!,
    name,
    profile: { ...model.subjects.find((s) => s.name === 'reader')!.profile, rateRules: [rule] },
  })
  const started = windowStart()
  const one = new RateLimiter(pool)
  const alone = await Promise.all(Array.from({ length: 150 }, () => one.consume(subject('concurrent-one'), 1)))
  const [a, b] = [new RateLimiter(pool), new RateLimiter(pool)]
  const shared = await Promise.all(Array.from({ length: 150 }, (_, i) => (i % 2 ? a : b).consume(subject('concurrent-two'), 1)))
  if (windowStart() !== started) return t.comment('the window turned over during the test')
  t.equal(alone.filter((decision) => decision.allowed).length, rule.operations, 'one process: exactly the rule')
  const granted = shared.filter((decision) => decision.allowed).length
  t.ok(
    granted <= rule.operations && granted >= rule.operations - 2 * blockSize(rule),
    `two processes: ${granted} of ${rule.operations} (at most a block each left unused)`,
  )
  t.ok(one.reservations < 150 / 2, `${one.reservations} round trips for 150 requests`)
})
