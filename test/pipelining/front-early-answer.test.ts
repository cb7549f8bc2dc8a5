// Through the pipelining front (HTTP_PIPELINING=serialize), a body over the limit is answered 413 and the
// answer reaches the client before the connection closes: the client may still be sending, and a close
// with its bytes unread would reset the connection and destroy the answer on its way (RFC 9112 §9.6).
import net from 'node:net'
import t from 'tap'
import { startTestService, TOKEN_ROOT } from '../support/test-service.js'

const service = await startTestService('front_early_answer', { pipelining: 'serialize' })
t.teardown(() => service.close())

/** 13 MB of a JSON batch, over the 10 MB limit. */
const BODY_BYTES = 13 * 1024 * 1024

interface Received {
  readonly text: string
  readonly error?: string
}

/** Sends `head` and then the body as fast as the connection takes it, and reads until the server closes. */
function sendLarge(head: string, body: (write: (bytes: Buffer | string) => boolean) => Promise<void>): Promise<Received> {
  return new Promise((resolve) => {
    const socket = net.connect(service.port, '127.0.0.1')
    const chunks: Buffer[] = []
    let error: string | undefined
    socket.on('data', (chunk: Buffer) => chunks.push(chunk))
    socket.on('error', (failure: NodeJS.ErrnoException) => {
      error ??= failure.code
    })
    socket.on('close', () => resolve({ text: Buffer.concat(chunks).toString('latin1'), error }))
    socket.on('connect', () => {
      socket.write(head)
      const write = (bytes: Buffer | string) => !socket.destroyed && socket.write(bytes)
      void body(write).then(() => {
        if (!socket.destroyed) socket.end()
      })
    })
  })
}

async function writeSlowly(write: (bytes: Buffer | string) => boolean, total: number, framed: (piece: Buffer) => Buffer | string) {
  const piece = Buffer.alloc(64 * 1024, 0x20)
  for (let sent = 0; sent < total; sent += piece.length) {
    if (!write(framed(piece))) await new Promise((resolve) => setTimeout(resolve, 1))
  }
}

t.test('Content-Length over the limit: 413 received', async (t) => {
  const head =
    `POST ${TOKEN_ROOT}$batch HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer demo-token\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${BODY_BYTES}\r\n\r\n{"requests":[`
  const received = await sendLarge(head, (write) => writeSlowly(write, BODY_BYTES - 13, (piece) => piece))
  t.match(received.text, /^HTTP\/1\.1 413 /, `answered (${received.error ?? 'no socket error'})`)
  t.match(received.text, /"code":"BatchTooLarge"/)
})

t.test('chunked over the limit: 413 received', async (t) => {
  const head =
    `POST ${TOKEN_ROOT}$batch HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer demo-token\r\n` +
    `Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`
  const received = await sendLarge(head, async (write) => {
    write('d\r\n{"requests":[\r\n')
    await writeSlowly(write, BODY_BYTES, (piece) =>
      Buffer.concat([Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from('\r\n')]),
    )
    write('0\r\n\r\n')
  })
  t.match(received.text, /^HTTP\/1\.1 413 /, `answered (${received.error ?? 'no socket error'})`)
  t.match(received.text, /"code":"BatchTooLarge"/)
})
