// The chunked-body scanner of the front is a byte state machine fed piece by piece: wherever the bytes are
// split between packets, it must find the same end of the body, the same framing error at the same byte,
// and write out the same plain body. Every input is checked whole (against what is expected of it), cut at
// every point, cut at every pair of points (the short ones), and cut at random points.
import t from 'tap'
import { ChunkedScanner } from '../../src/pipelining/chunked-scanner.js'
import { seededRandom } from '../../src/seed/random.js'
import { randomSplit, splitAt } from '../batch/intake/intake-harness.js'

interface Outcome {
  /** Where the body ended, or where the framing broke, counted from the start of the input; undefined: still open. */
  readonly end: number | undefined
  readonly done: boolean
  readonly malformed: boolean
  /** The body as the scanner wrote it out (latin1). */
  readonly plain: string
}

function scanPieces(pieces: readonly Buffer[]): Outcome {
  const scanner = new ChunkedScanner()
  const emitted: Buffer[] = []
  let offset = 0
  for (const piece of pieces) {
    // The scanner must not keep a view of a piece past the call: the front's buffers are reused.
    const copy = Buffer.from(piece)
    const { used, done } = scanner.scan(copy, (bytes) => emitted.push(Buffer.from(bytes)))
    copy.fill(0x7e)
    if (done || scanner.malformed)
      return { end: offset + used, done, malformed: scanner.malformed, plain: Buffer.concat(emitted).toString('latin1') }
    if (used !== piece.length) return { end: offset + used, done, malformed: false, plain: 'stopped early without a reason' }
    offset += piece.length
  }
  return { end: undefined, done: false, malformed: false, plain: Buffer.concat(emitted).toString('latin1') }
}

const NEXT = 'GET /next HTTP/1.1\r\nHost: x\r\n\r\n'

/** A case whose outcome is `expected`; `breaks` and `open` say the same of a malformed and an unfinished body. */
const ends = (name: string, input: string, end: number, plain: string) => ({
  name,
  input,
  expected: { end, done: true, malformed: false, plain },
})
const breaks = (name: string, input: string, at: number, plain: string) => ({
  name,
  input,
  expected: { end: at, done: false, malformed: true, plain },
})
const open = (name: string, input: string, plain: string) => ({
  name,
  input,
  expected: { end: undefined, done: false, malformed: false, plain },
})

const CASES: readonly { name: string; input: string; expected: Outcome }[] = [
  ends(
    'two chunks, then the next request',
    `5\r\nhello\r\nB\r\n, world!!!!\r\n0\r\n\r\n${NEXT}`,
    3 + 7 + 3 + 13 + 5,
    '5\r\nhello\r\nb\r\n, world!!!!\r\n0\r\n\r\n',
  ),
  ends(
    'extensions and a trailer dropped',
    `3;name=value;q="x y"\r\nabc\r\n0;last\r\nExpires: never\r\nX-Check: 1\r\n\r\n${NEXT}`,
    22 + 5 + 8 + 16 + 12 + 2,
    '3\r\nabc\r\n0\r\n\r\n',
  ),
  ends('a chunk of CR and LF bytes', '4\r\n\r\n\r\n\r\n0\r\n\r\n', 3 + 6 + 5, '4\r\n\r\n\r\n\r\n0\r\n\r\n'),
  open('the body not all here yet', 'a\r\n0123456', 'a\r\n0123456'),
  breaks('a size that is not hex', '5\r\nhello\r\nzz\r\n', 10, '5\r\nhello\r\n'),
  breaks('chunk data longer than its size', '2\r\nabc\r\n0\r\n\r\n', 5, '2\r\nab'),
  breaks('a bare line feed after the size', '2\nab\r\n0\r\n\r\n', 1, ''),
  breaks('a bare line feed in a trailer', '0\r\nX: 1\n\r\n', 7, ''),
  breaks('more than thirteen hex digits', '00000000000001\r\na\r\n0\r\n\r\n', 13, ''),
]

for (const { name, input, expected } of CASES) {
  t.test(name, async (t) => {
    const bytes = Buffer.from(input, 'latin1')
    t.same(scanPieces([bytes]), expected, 'whole')
    const splits: [string, Buffer[]][] = []
    for (let cut = 0; cut <= bytes.length; cut++) splits.push([`cut at ${cut}`, splitAt(bytes, [cut])])
    if (bytes.length <= 40)
      for (let first = 0; first <= bytes.length; first++)
        for (let second = first; second <= bytes.length; second++)
          splits.push([`cut at ${first} and ${second}`, splitAt(bytes, [first, second])])
    const random = seededRandom(bytes.length)
    for (let round = 0; round < 200; round++)
      splits.push([`random cut, round ${round}`, randomSplit(bytes, random, 2 + Math.floor(random() * bytes.length))])
    let differing = 0
    for (const [how, pieces] of splits) {
      const outcome = scanPieces(pieces)
      if (JSON.stringify(outcome) !== JSON.stringify(expected) && differing++ < 3) t.same(outcome, expected, how)
    }
    t.equal(differing, 0, 'every split gives the outcome of the whole')
  })
}

t.test('a byte at a time, the limits of a size line and of a trailer', async (t) => {
  const longLine = Buffer.from(`1;${'e'.repeat(5000)}\r\nx\r\n0\r\n\r\n`, 'latin1')
  const bytewise = [...longLine].map((byte) => Buffer.from([byte]))
  t.same(scanPieces(bytewise), scanPieces([longLine]), 'the same, byte by byte')
  t.equal(scanPieces([longLine]).malformed, true, 'a size line past 4 KiB is refused')
  const longTrailer = Buffer.from(`0\r\n${'X-A: b\r\n'.repeat(10_000)}\r\n`, 'latin1')
  t.same(scanPieces([...longTrailer].map((byte) => Buffer.from([byte]))), scanPieces([longTrailer]))
  t.equal(scanPieces([longTrailer]).malformed, true, 'a trailer past 64 KiB is refused')
})
