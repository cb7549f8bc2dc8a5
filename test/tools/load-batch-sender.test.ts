// The sender's look-up (the keys a lost batch may have written) waits like a batch and is bounded by
// `retryFor` like one: a refused connection is counted as a connection failure and named as such when the
// loader gives up, a service that keeps answering 503 is given up on too, and an answer is returned.
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import t from 'tap'
import { BatchSender, GaveUpError } from '../../src/tools/load/batch-sender.js'
import { ServiceClient } from '../../src/tools/shared/service-client.js'

/** A real HTTP server answering every request with `status`; its port, and how many requests it saw. */
async function answering(status: number): Promise<{ server: Server; port: number; seen: () => number }> {
  let seen = 0
  const server = createServer((_request, response) => {
    seen++
    response.writeHead(status, { 'content-type': 'application/json', 'retry-after': '0' })
    response.end(JSON.stringify({ value: [] }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return { server, port: (server.address() as AddressInfo).port, seen: () => seen }
}

t.test('a refused look-up is a connection failure, retried within retryFor, then given up with that reason', async (t) => {
  const { server, port } = await answering(200)
  await new Promise((resolve) => server.close(resolve)) // nothing listens on the port any more
  const client = new ServiceClient({ root: `http://127.0.0.1:${port}/api/v4/` })
  t.teardown(() => client.close())
  const sender = new BatchSender(client, 0.3)
  const error = await sender.read('Catalog_Items?$select=Ref_Key').catch((caught: unknown) => caught)
  t.ok(error instanceof GaveUpError, 'gave up')
  t.match((error as Error).message, /^the service did not answer: .*gave up after 0\.3 s/)
  t.ok(sender.statistics.connectionFailures >= 1, 'counted as connection failures')
  t.equal(sender.statistics.unavailable, 0, 'not counted as unavailable')
})

t.test('a look-up answered 503 again and again is given up within retryFor', async (t) => {
  const { server, port, seen } = await answering(503)
  const client = new ServiceClient({ root: `http://127.0.0.1:${port}/api/v4/` })
  t.teardown(async () => {
    await client.close()
    await new Promise((resolve) => server.close(resolve))
  })
  const sender = new BatchSender(client, 0.3)
  const error = await sender.read('Catalog_Items?$select=Ref_Key').catch((caught: unknown) => caught)
  t.ok(error instanceof GaveUpError, 'gave up')
  t.match((error as Error).message, /^the service is unavailable \(503\); gave up/)
  t.ok(seen() >= 2, `asked again before giving up (${seen()} requests)`)
  t.equal(sender.statistics.unavailable, seen())
})

t.test('a look-up answered is returned, whatever its status', async (t) => {
  const { server, port } = await answering(200)
  const client = new ServiceClient({ root: `http://127.0.0.1:${port}/api/v4/` })
  t.teardown(async () => {
    await client.close()
    await new Promise((resolve) => server.close(resolve))
  })
  const answer = await new BatchSender(client, 0.3).read('Catalog_Items?$select=Ref_Key')
  t.equal(answer.status, 200)
  t.same(answer.json(), { value: [] })
})
