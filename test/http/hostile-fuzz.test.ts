// Seeded mutations of the hostile-input cases (protocol/hostile/): each case's bytes with a head byte
// replaced, a head line doubled or dropped, the message cut short, and written in pieces at random split
// points, against both listeners. Whatever arrives, the service never answers 500 and keeps serving: after
// the run both listeners still answer /health and a read. FUZZ_SCALE multiplies the mutants (`make fuzz`
// runs 50 times the suite's slice); a failure names its seed and mutant, to be replayed.
import t from 'tap'
import { hostileBytes, hostileExchange, loadHostileCases, startBothListeners } from '../support/hostile-exchange.js'
import { seededRandom } from '../../src/seed/random.js'
import { DEMO_BASIC, READER_BASIC, REFERENCE_ROOT } from '../support/test-service.js'

const SCALE = Number(process.env.FUZZ_SCALE ?? 1)
const SEED = Number(process.env.FUZZ_SEED ?? 2025)
const MUTANTS_PER_CASE = 2 * SCALE
const AT_ONCE = 8
/** Bytes a mutation writes into a head: separators, line ends, controls, bytes that are not UTF-8. */
const HOSTILE_BYTES = [0x20, 0x09, 0x0a, 0x0d, 0x3a, 0x2c, 0x00, 0x7f, 0xff, 0x41, 0x30, 0x22, 0x25]

const cases = loadHostileCases()
const listeners = await startBothListeners('hostile_fuzz')
t.teardown(() => listeners.close())

type Mutation = 'replace-byte' | 'double-line' | 'drop-line' | 'cut-short' | 'as-sent'
const MUTATIONS: readonly Mutation[] = ['replace-byte', 'double-line', 'drop-line', 'cut-short', 'as-sent']

function mutate(message: Buffer, random: () => number): { bytes: Buffer; mutation: Mutation; splits: number[] } {
  const mutation = MUTATIONS[Math.floor(random() * MUTATIONS.length)]!
  const headEnd = Math.max(message.indexOf('\r\n\r\n'), message.indexOf('\n\n'), 1)
  let bytes = message
  switch (mutation) {
    case 'replace-byte': {
      bytes = Buffer.from(message)
      bytes[Math.floor(random() * headEnd)] = HOSTILE_BYTES[Math.floor(random() * HOSTILE_BYTES.length)]!
      break
    }
    case 'double-line':
    case 'drop-line': {
      const head = message.subarray(0, headEnd).toString('latin1').split('\r\n')
      const line = 1 + Math.floor(random() * Math.max(head.length - 1, 1))
      if (line < head.length) {
        if (mutation === 'double-line') head.splice(line, 0, head[line]!)
        else head.splice(line, 1)
      }
      bytes = Buffer.concat([Buffer.from(head.join('\r\n'), 'latin1'), message.subarray(headEnd)])
      break
    }
    case 'cut-short':
      bytes = message.subarray(0, Math.floor(random() * message.length))
      break
    case 'as-sent':
      break
  }
  const splits = Array.from({ length: Math.floor(random() * 4) }, () => Math.floor(random() * bytes.length))
  return { bytes, mutation, splits }
}

t.test(`${cases.length} cases, ${MUTANTS_PER_CASE} mutants each, on both listeners (seed ${SEED})`, async (t) => {
  const random = seededRandom(SEED)
  const work: (() => Promise<void>)[] = []
  for (const hostile of cases) {
    for (let mutant = 0; mutant < MUTANTS_PER_CASE; mutant++) {
      for (const listener of ['uws', 'front'] as const) {
        const service = listeners[listener]
        const prepared = hostileBytes(hostile, { port: service.port, basic: DEMO_BASIC, readerBasic: READER_BASIC })
        const { bytes, mutation, splits } = mutate(prepared.message, random)
        const name = `${listener} ${hostile.file} mutant ${mutant} (${mutation})`
        work.push(async () => {
          // Half-closed after sending, so a message left incomplete ends at once rather than at the idle timeout.
          const result = await hostileExchange(service.port, { message: bytes, fill: 0, chunked: false }, { halfClose: true, splits })
          const failed = result.answers.filter((answer) => answer.status === 500 || answer.status === 0)
          if (failed.length > 0) t.fail(`${name}: answered ${failed.map((answer) => answer.status).join(', ')}`)
        })
      }
    }
  }
  let next = 0
  await Promise.all(
    Array.from({ length: AT_ONCE }, async () => {
      while (next < work.length) await work[next++]!()
    }),
  )
  t.pass(`${work.length} exchanges, none answered 500`)
  for (const listener of ['uws', 'front'] as const) {
    const service = listeners[listener]
    t.equal((await service.request('GET', '/health')).status, 200, `${listener}: still healthy`)
    const read = await service.request('GET', `${REFERENCE_ROOT}Catalog_Warehouses?$top=1`, { headers: { authorization: DEMO_BASIC } })
    t.equal(read.status, 200, `${listener}: still serving`)
  }
})
