// Replays the wire cases of protocol/batch (format: protocol/README.md): every `$batch` body through the
// intake whole, split at every byte and at seeded random points (always the same outcome), then every
// case against a running service.
import t from 'tap'
import { ODataError } from '../../src/errors.js'
import { createBatchIntake, type BatchDocument } from '../../src/batch/intake/index.js'
import { Random } from '../../src/seed/random.js'
import { replayWireCases } from '../support/wire-replay.js'
import { batchBodies } from './intake/intake-harness.js'

const CASES = 14

/** What an intake made of a body, comparable across splits: the document's shape, or the error code and message. */
function outcome(contentType: string, chunks: Buffer[]): string {
  try {
    const intake = createBatchIntake(contentType)
    for (const chunk of chunks) intake.push(chunk)
    const document: BatchDocument = intake.end()
    return JSON.stringify(document.items, (key, value) =>
      value instanceof Map ? [...value] : key === 'bytes' ? Buffer.from(value.data ?? value).toString('base64') : value,
    )
  } catch (error) {
    if (!(error instanceof ODataError)) throw error
    return `${error.code}: ${error.message}`
  }
}

t.test('the intake gives the same result however a body is split', async (t) => {
  const bodies = batchBodies()
  t.ok(bodies.length >= CASES, `protocol/batch: at least ${CASES} bodies (${bodies.length})`)
  for (const { name, contentType, body, errorCode } of bodies) {
    // Seeded per body, so that the split points of one case do not depend on the others.
    const random = new Random(42)
    const whole = outcome(contentType, [body])
    let same = true
    for (let cut = 1; cut < body.length && same; cut++) same = outcome(contentType, [body.subarray(0, cut), body.subarray(cut)]) === whole
    for (let round = 0; round < 20 && same; round++) {
      const chunks: Buffer[] = []
      for (let at = 0; at < body.length; ) {
        const size = 1 + Math.floor(random.next() * 40)
        chunks.push(body.subarray(at, at + size))
        at += size
      }
      same = outcome(contentType, chunks) === whole
    }
    t.ok(same, `${name}: every split gives the whole body's result`)
    if (errorCode === 'BatchMalformed') t.match(whole, /^BatchMalformed/, `${name}: refused by the intake`)
  }
})

t.test('each case against the service', (t) => replayWireCases(t, 'batch', CASES))
