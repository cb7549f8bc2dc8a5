// A graceful stop of the real process (`cli.js serve`): on SIGTERM no new connection is accepted, a batch
// whose body is still arriving completes, is answered and committed, and the process exits 0 with its pool
// closed; a second signal ends it at once; the wait is bounded by STOP_TIMEOUT_SECONDS.
import net from 'node:net'
import t from 'tap'
import { startTestService } from '../support/test-service.js'

const KEY = '5c0a4d5e-0000-4000-8000-00000000a001'
const body = JSON.stringify({
  requests: [
    {
      id: 'r1',
      method: 'POST',
      url: 'Catalog_Warehouses',
      headers: { 'content-type': 'application/json' },
      body: { Ref_Key: KEY, Description: 'Stopped gently' },
    },
  ],
})

/** Sends the head of a `$batch` and the first half of its body; the rest is for `finish`. */
function startBatch(port: number): { socket: net.Socket; finish(): void; answer: Promise<string> } {
  const socket = net.connect(port, '127.0.0.1')
  const head =
    `POST /api/v4/$batch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer demo-token\r\nContent-Type: application/json\r\n` +
    `OData-MaxVersion: 4.01\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n`
  const half = Math.floor(body.length / 2)
  socket.write(head + body.slice(0, half))
  let text = ''
  socket.on('data', (chunk: Buffer) => (text += chunk.toString()))
  const answer = new Promise<string>((resolve) => {
    socket.on('close', () => resolve(text))
    socket.on('error', () => undefined)
    // One answer is enough: it ends with its JSON.
    socket.on('data', () => {
      if (/\r\n\r\n\{.*\}$/s.test(text)) resolve(text)
    })
  })
  return { socket, finish: () => socket.write(body.slice(half)), answer }
}

function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1')
    socket.once('connect', () => {
      socket.destroy()
      resolve(true)
    })
    socket.once('error', () => resolve(false))
  })
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** A kept-alive connection: each `get` sends a request on it and resolves with what came back. */
function keptAlive(port: number) {
  const socket = net.connect(port, '127.0.0.1')
  socket.on('error', () => undefined)
  return {
    get(path: string): Promise<string> {
      return new Promise((resolve) => {
        let text = ''
        const onData = (chunk: Buffer) => {
          text += chunk.toString()
          if (/\r\n\r\n\{.*\}$/s.test(text)) {
            socket.off('data', onData)
            resolve(text)
          }
        }
        socket.on('data', onData)
        socket.once('close', () => resolve(text))
        socket.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`)
      })
    },
    socket,
  }
}

t.test('SIGTERM: a batch in flight completes and is answered, then the process exits 0', async (t) => {
  const service = await startTestService('ops_graceful_stop', { process: 'child', environment: { STOP_TIMEOUT_SECONDS: '20' } })
  t.teardown(() => service.close())
  const idle = keptAlive(service.port)
  t.match(await idle.get('/health'), /^HTTP\/1\.1 200 /, 'a kept-alive connection, open before the signal')
  const batch = startBatch(service.port)
  await delay(300)
  service.child.kill('SIGTERM')
  await delay(300)
  t.equal(await connects(service.port), false, 'no new connection is accepted')
  const turnedAway = await idle.get('/health')
  t.match(turnedAway, /^HTTP\/1\.1 503 /, 'a request on an open connection is turned away')
  t.match(turnedAway, /ShuttingDown/)
  t.match(turnedAway, /Connection: close/i)
  t.equal(service.child.exitCode, null, 'the process waits for the batch')
  batch.finish()
  const answer = await batch.answer
  t.match(answer, /^HTTP\/1\.1 200 /, 'the batch is answered')
  t.match(answer, /"status":201/, 'its create ran')
  t.equal(await service.exited, 0, 'the process exits 0 once the batch is answered')
  const [rows] = (await service.database.pool.query('SELECT Description FROM c_Warehouses WHERE Ref_Key = ?', [KEY])) as unknown as [
    { Description: string }[],
  ]
  t.same(rows, [{ Description: 'Stopped gently' }], 'the batch is committed')
  t.match(service.output(), /"msg":"stopped"/, 'the pool was closed and the stop logged')
})

t.test('a second signal stops at once', async (t) => {
  const service = await startTestService('ops_graceful_stop_twice', { process: 'child', environment: { STOP_TIMEOUT_SECONDS: '60' } })
  t.teardown(() => service.close())
  const batch = startBatch(service.port)
  await delay(300)
  service.child.kill('SIGTERM')
  await delay(300)
  t.equal(service.child.exitCode, null, 'the first signal waits for the batch')
  const started = Date.now()
  service.child.kill('SIGINT')
  t.equal(await service.exited, 130, 'the second signal exits at once, 130')
  t.ok(Date.now() - started < 5000)
  t.notMatch(await batch.answer, /HTTP\/1\.1 200/, 'the unfinished batch got no answer')
})

t.test('the wait is bounded by STOP_TIMEOUT_SECONDS', async (t) => {
  const service = await startTestService('ops_graceful_stop_timeout', { process: 'child', environment: { STOP_TIMEOUT_SECONDS: '1' } })
  t.teardown(() => service.close())
  const batch = startBatch(service.port)
  await delay(300)
  const started = Date.now()
  service.child.kill('SIGTERM')
  t.equal(await service.exited, 1, 'exits 1: a request was cut off')
  const waited = Date.now() - started
  t.ok(waited >= 900 && waited < 6000, `waited about the timeout (${waited} ms)`)
  t.match(service.output(), /cut off/)
  batch.socket.destroy()
})
