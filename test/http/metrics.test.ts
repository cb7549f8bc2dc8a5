// `GET /metrics` after known traffic: each counter moves by exactly what the requests did (requests by
// flavour, method and status; latency counts; batch operations and change sets; rows streamed; a rate-rule
// refusal; a failed request-log write), the pool gauges are there, and the endpoint is protected (a token
// when METRICS_TOKEN is set, the loopback interface otherwise).
import os from 'node:os'
import t from 'tap'
import { isLoopback } from '../../src/http/metrics-endpoint.js'
import { blockSize } from '../../src/limits/rate-limiter.js'
import { startServer } from '../../src/http/server.js'
import { createServiceContext } from '../../src/service/service-context.js'
import { buildMultipartBatch } from '../../src/tools/shared/batch-body.js'
import { seededRandom } from '../../src/seed/random.js'
import { parseSamples, sample, type Samples } from '../support/prometheus-text.js'
import { DEMO_BASIC, REFERENCE_ROOT, TOKEN_ROOT, rawRequest, startTestService } from '../support/test-service.js'

const service = await startTestService('http_metrics', { data: 'demo' })
t.teardown(() => service.close())

async function scrape(): Promise<Samples> {
  const response = await service.request('GET', '/metrics')
  if (response.status !== 200) throw new Error(`scrape: ${response.status} ${response.text}`)
  return parseSamples(response.text)
}

const delta = (before: Samples, after: Samples, name: string, labels: Record<string, string> = {}) =>
  sample(after, name, labels) - sample(before, name, labels)

function batch(operations: Parameters<typeof buildMultipartBatch>[0], token = 'demo-token') {
  const built = buildMultipartBatch(operations)
  return service.request('POST', `${TOKEN_ROOT}$batch`, {
    headers: { authorization: `Bearer ${token}`, 'content-type': `multipart/mixed; boundary=${built.boundary}` },
    body: built.body,
  })
}

t.test('counts after known traffic', async (t) => {
  const before = await scrape()
  for (let i = 0; i < 3; i++)
    t.equal(
      (await service.request('GET', `${REFERENCE_ROOT}Catalog_Products?$top=2`, { headers: { authorization: DEMO_BASIC } })).status,
      200,
    )
  t.equal((await service.request('GET', `${REFERENCE_ROOT}Catalog_Products`)).status, 401)
  const answer = await batch([
    { method: 'GET', url: 'Catalog_Products?$top=1', headers: { Accept: 'application/json' } },
    {
      method: 'POST',
      url: 'Catalog_Warehouses',
      headers: { 'Content-Type': 'application/json' },
      body: { Description: 'Metrics one' },
      atomicityGroup: 'g1',
    },
    {
      method: 'POST',
      url: 'Catalog_Warehouses',
      headers: { 'Content-Type': 'application/json' },
      body: { Description: 'Metrics two' },
      atomicityGroup: 'g1',
    },
  ])
  t.equal(answer.status, 200)
  const after = await scrape()

  t.equal(delta(before, after, 'odata_requests_total', { flavour: 'reference', method: 'GET', status: '200' }), 3)
  t.equal(delta(before, after, 'odata_requests_total', { flavour: 'reference', method: 'GET', status: '401' }), 1)
  t.equal(delta(before, after, 'odata_requests_total', { flavour: 'token', method: 'POST', status: '200' }), 1)
  t.equal(delta(before, after, 'odata_request_duration_seconds_count', { flavour: 'reference', method: 'GET' }), 4)
  t.equal(delta(before, after, 'odata_request_duration_seconds_bucket', { flavour: 'reference', method: 'GET', le: '+Inf' }), 4)
  t.equal(delta(before, after, 'odata_batch_operations_total'), 3)
  t.equal(delta(before, after, 'odata_batch_change_sets_total'), 1)
  t.equal(delta(before, after, 'odata_batch_duration_seconds_count'), 1)
  t.equal(delta(before, after, 'odata_rows_streamed_total'), 3 * 2 + 1, 'three pages of two rows and the batch read of one')
  t.ok(after.has('odata_pool_connections_in_use'))
  t.ok(after.has('odata_pool_waiting'))
  t.ok(sample(after, 'odata_pool_connections_open') >= 1, 'the pool holds connections')
  t.ok(after.has('process_cpu_user_seconds_total'), 'the process metrics of prom-client')
})

t.test('a rate-rule refusal is counted by subject', async (t) => {
  // The demo profile allows 6,000 operations a minute; another process has spent them all in this window.
  const now = Math.floor(Date.now() / 1000)
  const windowStart = Math.floor(now / 60) * 60
  if (now - windowStart > 55) await new Promise((resolve) => setTimeout(resolve, (61 - (now - windowStart)) * 1000))
  const start = Math.floor(Date.now() / 60000) * 60
  await service.database.pool.query('REPLACE INTO _rate_counters (subject, rule_index, window_start, operations) VALUES (?, 0, ?, 6000)', [
    'demo',
    start,
  ])
  const before = await scrape()
  // This process may still hold a block of the window, reserved before the counter was filled: the refusal
  // comes when that block is spent, within a block's worth of one-operation batches.
  let answer = await batch([{ method: 'GET', url: 'Catalog_Products?$top=1' }])
  for (let sent = 1; answer.status !== 429 && sent <= blockSize({ operations: 6000, per: 60 }); sent++) {
    answer = await batch([{ method: 'GET', url: 'Catalog_Products?$top=1' }])
  }
  t.equal(answer.status, 429)
  const after = await scrape()
  t.equal(delta(before, after, 'odata_rate_limit_refusals_total', { subject: 'demo' }), 1)
  t.equal(delta(before, after, 'odata_requests_total', { flavour: 'token', method: 'POST', status: '429' }), 1)
  await service.database.pool.query('DELETE FROM _rate_counters')
})

t.test('a failed request-log write is counted', async (t) => {
  const pool = service.database.pool
  await pool.query('RENAME TABLE request_log TO request_log_away')
  t.teardown(() => pool.query('RENAME TABLE request_log_away TO request_log'))
  const before = await scrape()
  // The demo's level logs errors: a 404 is an entry, written in the background and failing.
  t.equal((await service.request('GET', `${REFERENCE_ROOT}Catalog_Nothing`, { headers: { authorization: DEMO_BASIC } })).status, 404)
  await new Promise((resolve) => setTimeout(resolve, 600))
  const after = await scrape()
  t.equal(delta(before, after, 'odata_request_log_failures_total'), 1)
})

t.test('METRICS_TOKEN: a scrape needs the Bearer token', async (t) => {
  const server = await startServer(createServiceContext(service.model, service.database.pool), {
    host: '127.0.0.1',
    port: 0,
    metricsToken: 'scrape-secret',
  })
  t.teardown(() => server.close())
  t.equal((await rawRequest(server.port, 'GET', '/metrics')).status, 401)
  t.equal((await rawRequest(server.port, 'GET', '/metrics', { headers: { authorization: 'Bearer wrong' } })).status, 401)
  const allowed = await rawRequest(server.port, 'GET', '/metrics', { headers: { authorization: 'Bearer scrape-secret' } })
  t.equal(allowed.status, 200)
  t.match(allowed.headers['content-type'], /^text\/plain; version=0\.0\.4/)
})

t.test('without METRICS_TOKEN only the loopback interface is answered', async (t) => {
  t.ok(isLoopback('127.0.0.1'))
  t.ok(isLoopback('0000:0000:0000:0000:0000:0000:0000:0001'))
  t.ok(isLoopback('0000:0000:0000:0000:0000:ffff:7f00:0001'))
  t.notOk(isLoopback('10.1.2.3'))
  t.notOk(isLoopback('0000:0000:0000:0000:0000:ffff:0a01:0203'))
  const outside = Object.values(os.networkInterfaces())
    .flat()
    .find((address) => address !== undefined && address.family === 'IPv4' && !address.internal)
  if (!outside) return t.comment('no interface besides loopback: the remote refusal is checked by isLoopback alone')
  const server = await startServer(createServiceContext(service.model, service.database.pool), { host: '0.0.0.0', port: 0 })
  t.teardown(() => server.close())
  t.equal((await rawRequest(server.port, 'GET', '/metrics')).status, 200, 'from 127.0.0.1')
  const remote = await new Promise<number>((resolve, reject) => {
    import('node:http').then(({ default: http }) => {
      const request = http.request(
        { host: outside.address, port: server.port, path: '/metrics', localAddress: outside.address, agent: false },
        (response) => {
          response.resume()
          resolve(response.statusCode ?? 0)
        },
      )
      request.on('error', reject)
      request.end()
    }, reject)
  })
  t.equal(remote, 403, `from ${outside.address}`)
})

t.test('thousands of invented methods, sent without credentials, add one series (method="other")', async (t) => {
  const random = seededRandom(25)
  const letters = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ'
  const seriesCount = (text: string) => text.split('\n').filter((line) => line.startsWith('odata_request')).length
  const before = await service.request('GET', '/metrics')
  for (let sent = 0; sent < 2000; sent += 100) {
    const batchOfRequests: Promise<unknown>[] = []
    for (let i = 0; i < 100; i++) {
      let method = ''
      for (let length = 20 + Math.floor(random() * 180); method.length < length; ) method += letters[Math.floor(random() * letters.length)]
      batchOfRequests.push(service.request(method, `${REFERENCE_ROOT}Catalog_Products`))
    }
    await Promise.all(batchOfRequests)
  }
  const after = await service.request('GET', '/metrics')
  t.notOk(/method="[A-Z]{20,}"/.test(after.text), 'no invented method is a label')
  t.ok(/odata_requests_total\{[^}]*method="other"/.test(after.text), 'they are counted as other')
  // One new series for `other` (per status it got, and its histogram's buckets), never one per method.
  t.ok(seriesCount(after.text) - seriesCount(before.text) < 40, `series grew by ${seriesCount(after.text) - seriesCount(before.text)}`)
})
