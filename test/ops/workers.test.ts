// WORKERS=2: two service processes on one port (uWS with SO_REUSEPORT), sharing only MySQL. Connections
// pinned to each process (keep-alive, one socket per agent, told apart by /health's pid) show that a
// settings change made through one process holds in the other, that the rate rule counts the operations
// of both processes against one budget, that /metrics sums both, and that SIGTERM stops both gracefully.
import http from 'node:http'
import t from 'tap'
import { buildMultipartBatch } from '../../src/tools/shared/batch-body.js'
import { parseSamples, sample } from '../support/prometheus-text.js'
import { DEMO_BASIC, REFERENCE_ROOT, TOKEN_ROOT, startTestService } from '../support/test-service.js'

const service = await startTestService('ops_workers', { process: 'child', environment: { WORKERS: '2' } })
t.teardown(() => service.close())

interface Pinned {
  readonly pid: number
  request(
    method: string,
    path: string,
    options?: { headers?: Record<string, string>; body?: string | Buffer },
  ): Promise<{ status: number; text: string }>
  close(): void
}

/** A client whose requests all travel on one kept-alive connection, so all reach one process. */
async function pinnedClient(): Promise<Pinned> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 })
  const request: Pinned['request'] = (method, path, options = {}) =>
    new Promise((resolve, reject) => {
      const outgoing = http.request(
        { host: '127.0.0.1', port: service.port, method, path, headers: options.headers, agent },
        (response) => {
          let text = ''
          response.on('data', (chunk: Buffer) => (text += chunk.toString()))
          response.on('end', () => resolve({ status: response.statusCode ?? 0, text }))
        },
      )
      outgoing.on('error', reject)
      outgoing.end(options.body)
    })
  const pid = JSON.parse((await request('GET', '/health')).text).pid as number
  return { pid, request, close: () => agent.destroy() }
}

/** One client pinned to each of two processes (new connections until the kernel gave both). */
async function clientsOnTwoProcesses(): Promise<[Pinned, Pinned]> {
  const byPid = new Map<number, Pinned>()
  for (let attempt = 0; attempt < 200 && byPid.size < 2; attempt++) {
    const client = await pinnedClient()
    if (byPid.has(client.pid)) client.close()
    else byPid.set(client.pid, client)
  }
  if (byPid.size < 2) throw new Error(`200 connections all reached one process (${[...byPid.keys()]})`)
  return [...byPid.values()] as [Pinned, Pinned]
}

const [one, two] = await clientsOnTwoProcesses()
t.teardown(() => {
  one.close()
  two.close()
})

t.test('two processes serve the port', async (t) => {
  t.not(one.pid, two.pid)
  t.not(one.pid, service.child.pid, 'workers, not the primary')
  t.match(service.output(), /2 processes/)
})

t.test('a settings change made through one process holds in the other', async (t) => {
  const admin = { authorization: DEMO_BASIC, 'content-type': 'application/json' }
  const changed = await one.request('PATCH', `${REFERENCE_ROOT}$settings`, {
    headers: admin,
    body: JSON.stringify({ maxBatchOperations: 3 }),
  })
  t.equal(changed.status, 200)
  // The other process rereads the settings every two seconds.
  let seen: unknown
  for (let waited = 0; waited < 5000; waited += 250) {
    seen = JSON.parse((await two.request('GET', `${REFERENCE_ROOT}$settings`, { headers: admin })).text).settings.maxBatchOperations
    if (seen === 3) break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  t.equal(seen, 3, 'the other process reads the new value')
  const built = buildMultipartBatch(Array.from({ length: 4 }, () => ({ method: 'GET', url: 'Catalog_Products?$top=1' })))
  const refused = await two.request('POST', `${TOKEN_ROOT}$batch`, {
    headers: { authorization: 'Bearer demo-token', 'content-type': `multipart/mixed; boundary=${built.boundary}` },
    body: built.body,
  })
  t.equal(refused.status, 400, 'and applies it: four operations are over the limit of three')
  t.match(refused.text, /TooManyOperations/)
  t.equal(
    (await one.request('PATCH', `${REFERENCE_ROOT}$settings`, { headers: admin, body: JSON.stringify({ maxBatchOperations: null }) }))
      .status,
    200,
  )
})

t.test('the rate rule counts both processes against one budget', async (t) => {
  // The reader's profile: 600 operations a minute, at most 20 in a batch. 15 batches of 20 through each
  // process spend exactly 600; the 31st batch, through either, is refused.
  // The settings of the previous test are back to their default in both processes first.
  for (let waited = 0; waited < 5000; waited += 250) {
    const limits = await Promise.all(
      [one, two].map(
        async (client) =>
          JSON.parse((await client.request('GET', `${REFERENCE_ROOT}$settings`, { headers: { authorization: DEMO_BASIC } })).text).settings
            .maxBatchOperations,
      ),
    )
    if (limits.every((limit) => limit >= 20)) break
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  const windowSecond = Math.floor(Date.now() / 1000) % 60
  if (windowSecond > 40) await new Promise((resolve) => setTimeout(resolve, (61 - windowSecond) * 1000))
  const built = buildMultipartBatch(Array.from({ length: 20 }, () => ({ method: 'GET', url: 'Catalog_Products?$top=1' })))
  const send = (client: Pinned) =>
    client.request('POST', `${TOKEN_ROOT}$batch`, {
      headers: { authorization: 'Bearer reader-token', 'content-type': `multipart/mixed; boundary=${built.boundary}` },
      body: built.body,
    })
  const statuses: number[] = []
  for (let i = 0; i < 15; i++) {
    statuses.push((await send(one)).status)
    statuses.push((await send(two)).status)
  }
  t.same(new Set(statuses), new Set([200]), '600 operations pass, half through each process')
  t.equal((await send(one)).status, 429, 'the next batch is refused through the first process')
  t.equal((await send(two)).status, 429, 'and through the second')
})

t.test('a scrape of either process sums both', async (t) => {
  const beforeOne = parseSamples((await one.request('GET', '/metrics')).text)
  await one.request('GET', `${REFERENCE_ROOT}Catalog_Products?$top=1`, { headers: { authorization: DEMO_BASIC } })
  await two.request('GET', `${REFERENCE_ROOT}Catalog_Products?$top=1`, { headers: { authorization: DEMO_BASIC } })
  const afterTwo = parseSamples((await two.request('GET', '/metrics')).text)
  const labels = { flavour: 'reference', method: 'GET', status: '200' }
  t.equal(
    sample(afterTwo, 'odata_requests_total', labels) - sample(beforeOne, 'odata_requests_total', labels),
    2,
    'one request through each process, counted in one scrape',
  )
  t.ok(sample(afterTwo, 'odata_rate_limit_refusals_total', { subject: 'reader' }) >= 2, 'the refusals of both processes')
})

t.test('SIGTERM stops both processes gracefully', async (t) => {
  one.close()
  two.close()
  service.child.kill('SIGTERM')
  t.equal(await service.exited, 0)
  t.equal((service.output().match(/"msg":"stopped"/g) ?? []).length, 3, 'each worker and the primary')
})
