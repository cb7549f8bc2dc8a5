// The standing hostile-input suite: every case of protocol/hostile/ (attacks met so far: framing and
// smuggling, credentials in URLs, forged browser requests, malformed batches, leniencies) replayed against
// both listeners, uWS alone and through the pipelining front, each with what it answers, whether the
// connection closes, and what was (not) written, read back from the database.
import t, { type Test } from 'tap'
import { hostileBytes, hostileExchange, loadHostileCases, startBothListeners, type HostileCase } from '../support/hostile-exchange.js'
import { DEMO_BASIC, READER_BASIC, type TestService } from '../support/test-service.js'

const cases = loadHostileCases()
const listeners = await startBothListeners('hostile_input')
t.teardown(() => listeners.close())

t.ok(cases.length >= 30, `${cases.length} cases: a moved folder cannot pass by replaying nothing`)

async function readBack(t: Test, service: TestService, hostile: HostileCase): Promise<void> {
  for (const check of hostile.database ?? []) {
    let rows: unknown[] = []
    // The request log is written in the background: asked again until it holds, a few seconds at most.
    for (let tries = 0; tries < 40; tries++) {
      rows = ((await service.database.pool.query(check.sql))[0] as Record<string, unknown>[]).map((row) =>
        Object.fromEntries(Object.entries(row).map(([name, value]) => [name, typeof value === 'string' ? Number(value) : value])),
      )
      if (JSON.stringify(rows) === JSON.stringify(check.rows)) break
      await new Promise((resolve) => setTimeout(resolve, 100))
    }
    t.same(rows, check.rows, check.sql)
  }
}

for (const hostile of cases) {
  for (const listener of hostile.listeners ?? (['uws', 'front'] as const)) {
    t.test(`${listener}: ${hostile.description} (${hostile.file})`, async (t) => {
      const service = listeners[listener]
      const bytes = hostileBytes(hostile, { port: service.port, basic: DEMO_BASIC, readerBasic: READER_BASIC })
      const result = await hostileExchange(service.port, bytes, { halfClose: hostile.halfClose, expectedAnswers: hostile.expect.answers })
      const expected = hostile.expect
      const first = result.answers[0]
      t.ok(first, `answered (got ${JSON.stringify(result.text.slice(0, 200))})`)
      if (!first) return
      const statuses = typeof expected.status === 'number' ? [expected.status] : expected.status
      t.ok(statuses.includes(first.status), `status ${first.status}, expected ${statuses.join(' or ')}`)
      if (expected.code !== undefined) t.equal(JSON.parse(first.body).error?.code, expected.code, 'error code')
      if (expected.answers !== undefined) t.equal(result.answers.length, expected.answers, 'answers')
      if (expected.closed !== undefined) t.equal(result.closed, expected.closed, 'connection closed')
      for (const text of expected.contains ?? []) t.ok(result.text.includes(text), `holds ${text}`)
      for (const text of expected.absent ?? []) t.notOk(result.text.includes(text), `does not hold ${text}`)
      await readBack(t, service, hostile)
    })
  }
}
