// The Responder writes a streamed answer's head with its first chunk, in the same cork (one send on the
// socket), and an answer begun and ended without chunks whole. A recording stand-in for uWS's response
// shows which calls happen inside which cork.
import t from 'tap'
import type { HttpResponse } from 'uWebSockets.js'
import { Responder } from '../../src/http/responder.js'

function recordingResponse(): { res: HttpResponse; log: string[] } {
  const log: string[] = []
  let depth = 0
  const res = {
    onAborted: () => res,
    cork(callback: () => void) {
      log.push('cork(')
      depth++
      callback()
      depth--
      log.push(')')
      return res
    },
    writeStatus(status: string) {
      log.push(`${depth > 0 ? '' : 'UNCORKED '}status ${status}`)
      return res
    },
    writeHeader(name: string) {
      log.push(`header ${name}`)
      return res
    },
    write(chunk: string) {
      log.push(`write ${chunk}`)
      return true
    },
    end(chunk: string) {
      log.push(`end ${chunk}`)
      return res
    },
    endWithoutBody() {
      log.push('endWithoutBody')
      return res
    },
    close() {
      log.push('close')
      return res
    },
  }
  return { res: res as unknown as HttpResponse, log }
}

t.test('begin writes nothing; the head leaves in the first write’s cork', async (t) => {
  const { res, log } = recordingResponse()
  const responder = new Responder(res)
  responder.begin(200, { 'Content-Type': 'text/plain' })
  t.same(log, [], 'nothing written at begin')
  t.ok(responder.headersSent, 'the status is decided: an error can only abort now')
  t.equal(responder.status, 200)
  responder.write('a')
  responder.write('b')
  responder.end('c')
  t.same(log, [
    'cork(',
    'status 200 OK',
    'header OData-Version',
    'header Content-Type',
    'write a',
    ')',
    'cork(',
    'write b',
    ')',
    'cork(',
    'end c',
    ')',
  ])
})

t.test('begun and ended without a chunk between: head and end in one cork', async (t) => {
  const { res, log } = recordingResponse()
  const responder = new Responder(res)
  responder.begin(200, {})
  responder.end('{"responses":[]}')
  t.same(log, ['cork(', 'status 200 OK', 'header OData-Version', 'end {"responses":[]}', ')'])
  t.ok(responder.done)
})

t.test('a HEAD request begun and ended: the head, no body', async (t) => {
  const { res, log } = recordingResponse()
  const responder = new Responder(res)
  responder.headOnly = true
  responder.begin(200, {})
  responder.write('ignored')
  responder.end()
  t.same(log, ['cork(', 'status 200 OK', 'header OData-Version', 'endWithoutBody', ')'])
})

t.test('an error after begin closes the connection and writes no head', async (t) => {
  const { res, log } = recordingResponse()
  const responder = new Responder(res)
  responder.begin(200, {})
  responder.abort()
  t.same(log, ['close'])
})
