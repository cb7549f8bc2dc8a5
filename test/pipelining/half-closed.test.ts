// A client that shuts down its sending side after its request (shutdown(SHUT_WR), a half-closed connection)
// still gets its answer, then the connection closes. Through the pipelining front; uWS alone closes a
// half-closed connection at once (docs/hardening.md).
import net from 'node:net'
import t from 'tap'
import { DEMO_BASIC, REFERENCE_ROOT, startTestService } from '../support/test-service.js'

const service = await startTestService('http_half_closed', { pipelining: 'serialize' })
t.teardown(() => service.close())

/** Writes `request`, half-closes, and reads until the server closes. */
function halfClosedExchange(request: string): Promise<string> {
  return new Promise((resolve) => {
    const socket = net.connect({ port: service.port, host: '127.0.0.1', allowHalfOpen: true })
    const chunks: Buffer[] = []
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', () => undefined)
    socket.on('close', () => resolve(Buffer.concat(chunks).toString('utf8')))
    socket.on('connect', () => socket.end(request))
  })
}

t.test('/health through the front', async (t) => {
  const answer = await halfClosedExchange('GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n')
  t.match(answer, /^HTTP\/1\.1 200 /)
})

t.test('a read that needs the database through the front', async (t) => {
  const answer = await halfClosedExchange(
    `GET ${REFERENCE_ROOT}Catalog_Warehouses?$top=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${DEMO_BASIC}\r\n\r\n`,
  )
  t.match(answer, /^HTTP\/1\.1 200 /)
  t.match(answer, /"value":\[/)
})

t.test('two pipelined requests, then the half-close: both answered in order', async (t) => {
  const answer = await halfClosedExchange(
    'GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n' +
      `GET ${REFERENCE_ROOT}Catalog_Warehouses?$top=1 HTTP/1.1\r\nHost: localhost\r\nAuthorization: ${DEMO_BASIC}\r\n\r\n`,
  )
  t.equal(answer.match(/HTTP\/1\.1 200 /g)?.length, 2)
})
