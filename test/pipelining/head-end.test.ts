// The front looks for the end of a request head in everything held since the last one, each time more
// bytes arrive: however the head is cut between packets, it must see nothing until the empty line is all
// there, and from then on always the same end (the same line ends, the same start of what follows).
import t from 'tap'
import { headEnd } from '../../src/pipelining/head-end.js'

const CASES: readonly { name: string; input: string; expected: ReturnType<typeof headEnd> }[] = [
  {
    name: 'CRLF lines, a body after',
    input: 'POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nokGET /b HTTP/1.1\r\n\r\n',
    expected: { head: 18 + 9 + 17, next: 18 + 9 + 19 + 2, lineEnds: 'crlf' },
  },
  { name: 'bare line feeds only', input: 'GET / HTTP/1.1\nHost: x\n\nrest', expected: { head: 22, next: 24, lineEnds: 'bare' } },
  {
    name: 'a bare line feed, then CRLF',
    input: 'GET / HTTP/1.1\r\nHost: x\n\r\nrest',
    expected: { head: 23, next: 26, lineEnds: 'mixed' },
  },
  {
    name: 'CRLF, then a bare empty line',
    input: 'GET / HTTP/1.1\r\nHost: x\r\n\nrest',
    expected: { head: 23, next: 26, lineEnds: 'mixed' },
  },
  { name: 'a CR in a line, bare line feeds', input: 'GET / HTTP/1.1\nA: \rb\n\n', expected: { head: 20, next: 22, lineEnds: 'mixed' } },
  { name: 'not all here', input: 'GET / HTTP/1.1\r\nHost: x\r\n', expected: undefined },
]

for (const { name, input, expected } of CASES) {
  t.test(name, async (t) => {
    const bytes = Buffer.from(input, 'latin1')
    t.same(headEnd(bytes), expected, 'whole')
    const differing: string[] = []
    for (let length = 0; length <= bytes.length; length++) {
      const seen = headEnd(bytes.subarray(0, length))
      const due = expected !== undefined && length >= expected.next
      if (due ? JSON.stringify(seen) !== JSON.stringify(expected) : seen !== undefined)
        differing.push(`${length} bytes: ${JSON.stringify(seen)}`)
    }
    t.same(differing, [], 'nothing before the end arrives, the same end once it has')
  })
}
