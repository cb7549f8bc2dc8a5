// Replays protocol/batch/cases.json: every body through the intake whole, split at every byte and at
// seeded random points (always the same outcome), then every case against a running service.
import { readFileSync } from 'node:fs'
import t from 'tap'
import { ODataError } from '../../src/errors.js'
import { createBatchIntake, type BatchDocument } from '../../src/batch/intake/index.js'
import { Random } from '../../src/seed/random.js'
import { startTestService, TOKEN_ROOT } from '../support/test-service.js'
import { PLACEHOLDER_PRODUCT } from './intake/intake-harness.js'

interface BatchCase {
  name: string
  request: { contentType: string; headers?: Record<string, string>; body: string }
  response: { status: number; error?: string; parts?: (number | number[])[]; codes?: Record<string, string>; headers?: Record<string, string>; contentIds?: string[] }
}
const { cases } = JSON.parse(readFileSync('protocol/batch/cases.json', 'utf8')) as { cases: BatchCase[] }

/** What an intake made of a body, comparable across splits: the document's shape, or the error code and message. */
function outcome(contentType: string, chunks: Buffer[]): string {
  try {
    const intake = createBatchIntake(contentType)
    for (const chunk of chunks) intake.push(chunk)
    const document: BatchDocument = intake.end()
    return JSON.stringify(document.items, (key, value) => (value instanceof Map ? [...value] : key === 'bytes' ? Buffer.from(value.data ?? value).toString('base64') : value))
  } catch (error) {
    if (!(error instanceof ODataError)) throw error
    return `${error.code}: ${error.message}`
  }
}

t.test('the intake gives the same result however a body is split', async (t) => {
  const random = new Random(42)
  for (const batchCase of cases) {
    const body = Buffer.from(batchCase.request.body.replaceAll('{product}', PLACEHOLDER_PRODUCT))
    const whole = outcome(batchCase.request.contentType, [body])
    let same = true
    for (let cut = 1; cut < body.length && same; cut++) same = outcome(batchCase.request.contentType, [body.subarray(0, cut), body.subarray(cut)]) === whole
    for (let round = 0; round < 20 && same; round++) {
      const chunks: Buffer[] = []
      for (let at = 0; at < body.length; ) {
        const size = 1 + Math.floor(random.next() * 40)
        chunks.push(body.subarray(at, at + size))
        at += size
      }
      same = outcome(batchCase.request.contentType, chunks) === whole
    }
    t.ok(same, `${batchCase.name}: every split gives the whole body's result`)
    if (batchCase.response.error === 'BatchMalformed') t.match(whole, /^BatchMalformed/, `${batchCase.name}: refused by the intake`)
  }
})

t.test('each case against the service', async (t) => {
  const service = await startTestService('batch_protocol', { seed: true })
  t.teardown(() => service.close())
  const [[{ Ref_Key: product }]] = (await service.database.pool.query('SELECT Ref_Key FROM c_Products ORDER BY Code LIMIT 1')) as unknown as [[{ Ref_Key: string }]]
  for (const batchCase of cases) {
    const response = await service.request('POST', `${TOKEN_ROOT}$batch`, {
      headers: { Authorization: 'Bearer demo-token', 'Content-Type': batchCase.request.contentType, ...batchCase.request.headers },
      body: batchCase.request.body.replaceAll('{product}', product),
    })
    const expected = batchCase.response
    t.equal(response.status, expected.status, `${batchCase.name}: status`)
    for (const [name, value] of Object.entries(expected.headers ?? {})) t.equal(response.headers[name], value, `${batchCase.name}: ${name}`)
    if (expected.error) {
      t.equal(response.json().error.code, expected.error, `${batchCase.name}: error code`)
      continue
    }
    if (/^multipart\//.test(String(response.headers['content-type']))) {
      // Top-level parts: an application/http part's status, or a nested change set's list of statuses.
      const boundary = /boundary=([^;\s]+)/.exec(String(response.headers['content-type']))![1]!
      const parts = response.text.split(`--${boundary}`).slice(1, -1)
      const statuses = parts.map((part) => {
        const nested = /boundary=(changesetresponse_[^\s;]+)/.exec(part)
        if (!nested) return Number(/HTTP\/1\.1 (\d{3})/.exec(part)![1])
        return part.split(`--${nested[1]}`).slice(1, -1).map((inner) => Number(/HTTP\/1\.1 (\d{3})/.exec(inner)![1]))
      })
      t.same(statuses, expected.parts, `${batchCase.name}: parts`)
      if (expected.contentIds) t.same([...response.text.matchAll(/Content-ID: ([^\r\n]+)/g)].map((m) => m[1]), expected.contentIds, `${batchCase.name}: Content-IDs echoed`)
    } else {
      const items = response.json().responses as { id: string; atomicityGroup?: string; status: number; body?: { error?: { code: string } } }[]
      const grouped: (number | number[])[] = []
      let group: string | undefined
      for (const item of items) {
        if (item.atomicityGroup !== undefined && item.atomicityGroup === group) (grouped[grouped.length - 1] as number[]).push(item.status)
        else grouped.push(item.atomicityGroup !== undefined ? [item.status] : item.status)
        group = item.atomicityGroup
      }
      t.same(grouped, expected.parts, `${batchCase.name}: responses`)
      for (const [id, code] of Object.entries(expected.codes ?? {})) t.equal(items.find((i) => i.id === id)?.body?.error?.code, code, `${batchCase.name}: ${id}`)
    }
  }
})
