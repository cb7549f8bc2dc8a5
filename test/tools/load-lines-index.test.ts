// The lines file's index tells a line that names no header (an orphan, told by the loader) from a line
// whose join value cannot be read at all: bytes that are not UTF-8 in the join column make an
// `UnplacedLine` naming why (docs/loading.md), not an orphan with an empty join value.
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { DEFAULT_LIMITS } from '../../src/tools/load/input-limits.js'
import { LinesIndex } from '../../src/tools/load/lines-index.js'
import { dir } from '../support/load-fixtures.js'

t.test('invalid UTF-8 in the join column is an UnplacedLine; in another column the line still joins', async (t) => {
  const path = join(dir, 'bad-join-bytes.csv')
  const badBytes = Buffer.from([0xc3, 0x28])
  writeFileSync(
    path,
    Buffer.concat([
      Buffer.from('number,product,qty\nA1,P1,1\n'),
      badBytes,
      Buffer.from(',P2,2\nA1,'),
      badBytes,
      Buffer.from(',3\nZ9,P4,4\n'),
    ]),
  )
  const index = await LinesIndex.build(path, 'number', ',', DEFAULT_LIMITS)
  t.teardown(() => index.close())
  t.same(
    index.linesOf('A1').map((line) => line.line),
    [2, 4],
    "A1's lines, the one with bad bytes elsewhere included (its document rejects it)",
  )
  const loose = [...index.loose()]
  t.equal(loose.length, 2, 'the line with the unreadable join value, and Z9 (no document took it)')
  t.match(loose[0], {
    line: 3,
    joinValue: undefined,
    problem: { code: 'UnplacedLine', message: /line 3 of the lines file: its number cannot be read.*not valid UTF-8/ },
  })
  t.match(loose[1], { line: 5, joinValue: 'Z9', problem: undefined })
})
