// How a batch's answer reaches the response: each step's text leaves with the next step's, the last with
// the end, so a batch of one step is one send (src/batch/answer/*-batch-writer.ts). The sink records what
// it is asked to do; the texts together must still be the whole answer.
import t from 'tap'
import type { OperationOutcome } from '../../../src/batch/execute/execute-batch.js'
import type { PlannedOperation } from '../../../src/batch/plan/plan-batch.js'
import { JsonBatchWriter } from '../../../src/batch/answer/json-batch-writer.js'
import { MultipartBatchWriter } from '../../../src/batch/answer/multipart-batch-writer.js'
import type { ResponseSink } from '../../../src/respond/response-sink.js'

type Call = ['begin', number] | ['write', string] | ['end', string] | ['send', number, string]

function recordingSink(calls: Call[]): ResponseSink {
  return {
    aborted: false,
    headersSent: false,
    begin: (status) => void calls.push(['begin', status]),
    write: (chunk) => {
      calls.push(['write', chunk])
      return true
    },
    end: (chunk) => void calls.push(['end', chunk ?? '']),
    send: (status, _headers, body) => void calls.push(['send', status, String(body ?? '')]),
    sendJson: () => undefined,
    sendError: () => undefined,
    drained: () => Promise.resolve(),
    abort: () => undefined,
    onAbort: () => undefined,
  }
}

function outcome(id: string): OperationOutcome {
  const planned = {
    operation: { id, index: Number(id) - 1, method: 'GET', url: `Catalog_Products?id=${id}` },
  } as unknown as PlannedOperation
  return { planned, response: { status: 200, headers: { 'Content-Type': 'application/json' }, body: `{"n":${id}}` } }
}

const text = (calls: Call[]) => calls.map((c) => (c[0] === 'write' || c[0] === 'end' ? c[1] : c[0] === 'send' ? c[2] : '')).join('')

t.test('JSON: one step is begun and ended, nothing written between', async (t) => {
  const calls: Call[] = []
  const writer = new JsonBatchWriter(recordingSink(calls), {})
  writer.operation(outcome('1'))
  t.same(
    calls.map((c) => c[0]),
    ['begin'],
    'the step is held',
  )
  writer.finish()
  t.same(
    calls.map((c) => c[0]),
    ['begin', 'end'],
  )
  t.same(JSON.parse(text(calls)).responses, [{ id: '1', status: 200, headers: { 'Content-Type': 'application/json' }, body: { n: 1 } }])
})

t.test('JSON: three steps, each written when the next comes, the last with the end', async (t) => {
  const calls: Call[] = []
  const writer = new JsonBatchWriter(recordingSink(calls), {})
  writer.operation(outcome('1'))
  writer.operation(outcome('2'))
  t.same(
    calls.map((c) => c[0]),
    ['begin', 'write'],
  )
  t.match(calls[1]![1], /"id":"1"/)
  t.notMatch(calls[1]![1], /"id":"2"/)
  writer.operation(outcome('3'))
  writer.finish()
  t.same(
    calls.map((c) => c[0]),
    ['begin', 'write', 'write', 'end'],
  )
  t.same(
    JSON.parse(text(calls)).responses.map((r: { id: string }) => r.id),
    ['1', '2', '3'],
  )
})

t.test('JSON: a batch without steps is sent whole', async (t) => {
  const calls: Call[] = []
  new JsonBatchWriter(recordingSink(calls), {}).finish()
  t.same(calls, [['send', 200, '{"responses":[]}']])
})

t.test('multipart: one step and its closing delimiter in one end; three steps as with JSON', async (t) => {
  const calls: Call[] = []
  const writer = new MultipartBatchWriter(recordingSink(calls), {})
  writer.operation(outcome('1'))
  writer.finish()
  t.same(
    calls.map((c) => c[0]),
    ['begin', 'end'],
  )
  const boundary = writer.boundary
  t.match(text(calls), new RegExp(`^--${boundary}\\r\\n[^]*Content-ID: 1\\r\\n[^]*\\{"n":1\\}\\r\\n--${boundary}--\\r\\n$`))

  const more: Call[] = []
  const three = new MultipartBatchWriter(recordingSink(more), {})
  for (const id of ['1', '2', '3']) three.operation(outcome(id))
  three.finish()
  t.same(
    more.map((c) => c[0]),
    ['begin', 'write', 'write', 'end'],
  )
  t.equal(text(more).split(`--${three.boundary}\r\n`).length - 1, 3, 'three parts')
  t.ok(text(more).endsWith(`--${three.boundary}--\r\n`))
})
