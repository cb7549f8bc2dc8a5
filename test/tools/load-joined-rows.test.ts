// A header row swallowed by a damaged record of the headers file (a stray quote closed rows later) is still
// in the file: the lines of its document are loose, and their reason names the rejected record that may
// hold their header instead of saying that no header has their value (docs/loading.md).
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { DEFAULT_LIMITS } from '../../src/tools/load/input-limits.js'
import type { InputRow } from '../../src/tools/load/input-rows.js'
import { openInput } from '../../src/tools/load/input-rows.js'
import { joinedInput } from '../../src/tools/load/joined-rows.js'
import { dir } from '../support/load-fixtures.js'

t.test('lines whose header is inside a rejected header record say so; a true orphan does not', async (t) => {
  const headers = join(dir, 'swallowing-headers.csv')
  const lines = join(dir, 'swallowing-lines.csv')
  writeFileSync(
    headers,
    'number,date,warehouse\nH0,2025-01-01,W0\nH1,2025-01-01,"W1\nH2,2025-01-02,W2\nH3,2025-01-03,W3"x\nH4,2025-01-04,W4\n',
  )
  writeFileSync(lines, 'number,product,qty\nH0,P1,1\nH2,P2,2\nH4,P4,4\nH9,P9,9\n')
  const input = joinedInput(openInput(headers, 'csv', DEFAULT_LIMITS), lines, 'number', 'Goods', DEFAULT_LIMITS, () => false)
  const rows: InputRow[] = []
  for await (const row of input.rows()) rows.push(row)
  t.same(
    rows.filter((row) => !row.unreadable).map((row) => row.record.number),
    ['H0', 'H4'],
    'the readable headers join their lines',
  )
  const rejected = rows.filter((row) => row.unreadable)
  t.equal(rejected.length, 1, 'one rejected record, from H1 to the damaged quote')
  t.equal(rejected[0]!.line, 3)
  const loose = [...input.loose()]
  t.equal(loose.length, 2, "H2's line and H9's line are loose")
  t.match(
    loose.find((l) => l.joinValue === 'H2'),
    {
      line: 3,
      problem: {
        code: 'OrphanLine',
        message: /no readable header row has number = H2; the rejected record at line 3 of the headers file may hold it/,
      },
    },
  )
  t.match(
    loose.find((l) => l.joinValue === 'H9'),
    { line: 5, problem: undefined },
    'an orphan no header names keeps the plain reason',
  )
})
