// The front counts a body off the byte stream by its framing: wherever the stream is cut, the body must end
// at the same byte and the bytes forwarded must be the same.
import t from 'tap'
import type { BodyFraming } from '../../src/pipelining/body-framing.js'
import { BodyTracker } from '../../src/pipelining/body-tracker.js'
import { splitAt } from '../batch/intake/intake-harness.js'

function track(framing: BodyFraming, pieces: readonly Buffer[]): { end: number | undefined; malformed: boolean; forwarded: string } {
  const tracker = new BodyTracker(framing)
  const forwarded: Buffer[] = []
  let offset = 0
  for (const piece of pieces) {
    const { used, done, malformed } = tracker.track(piece, (bytes) => forwarded.push(Buffer.from(bytes)))
    if (done || malformed) return { end: offset + used, malformed, forwarded: Buffer.concat(forwarded).toString('latin1') }
    offset += piece.length
  }
  return { end: undefined, malformed: false, forwarded: Buffer.concat(forwarded).toString('latin1') }
}

const CASES: readonly { name: string; framing: BodyFraming; input: string; expected: ReturnType<typeof track> }[] = [
  {
    name: 'a length',
    framing: { kind: 'length', length: 11 },
    input: 'hello world GET / HTTP/1.1\r\n\r\n',
    expected: { end: 11, malformed: false, forwarded: 'hello world' },
  },
  {
    name: 'chunked, with an extension',
    framing: { kind: 'chunked' },
    input: '2;x=y\r\nhi\r\n0\r\n\r\nGET / HTTP/1.1\r\n\r\n',
    expected: { end: 16, malformed: false, forwarded: '2\r\nhi\r\n0\r\n\r\n' },
  },
  {
    name: 'chunked, broken',
    framing: { kind: 'chunked' },
    input: '2\r\nhi\r\nG\r\n',
    expected: { end: 7, malformed: true, forwarded: '2\r\nhi\r\n' },
  },
  { name: 'none', framing: { kind: 'none' }, input: 'GET / HTTP/1.1\r\n\r\n', expected: { end: 0, malformed: false, forwarded: '' } },
  {
    name: 'until the connection closes',
    framing: { kind: 'until-close' },
    input: 'everything that comes',
    expected: { end: undefined, malformed: false, forwarded: 'everything that comes' },
  },
]

for (const { name, framing, input, expected } of CASES) {
  t.test(name, async (t) => {
    const bytes = Buffer.from(input, 'latin1')
    t.same(track(framing, [bytes]), expected, 'whole')
    const differing: string[] = []
    for (let first = 0; first <= bytes.length; first++)
      for (let second = first; second <= bytes.length; second++) {
        const outcome = track(framing, splitAt(bytes, [first, second]))
        if (JSON.stringify(outcome) !== JSON.stringify(expected))
          differing.push(`cut at ${first} and ${second}: ${JSON.stringify(outcome)}`)
      }
    t.same(differing.slice(0, 3), [], 'every split into three gives the outcome of the whole')
  })
}
