// The comparison the property tests of virtual tables share: a call's answer, read from the service, against
// rows computed in plain TypeScript (support/reference.ts, support/accounting-reference.ts), as sets of rows
// with resources in thousandths and date-times as stored, so that a float's last digit or a row's place in
// the answer does not count.
import type { Test } from 'tap'
import type { TestService } from '../../support/test-service.js'

type Row = Record<string, unknown>

/** A row as the reference writes it: resources in thousandths (LineNumber as it is), date-times stored. */
function normalise(row: Row): Row {
  return Object.fromEntries(
    Object.entries(row).map(([name, value]) => {
      if (typeof value === 'number') return [name, name === 'LineNumber' ? value : Math.round(value * 1000)]
      if (typeof value === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(value)) return [name, value.slice(0, 19).replace('T', ' ')]
      return [name, value]
    }),
  )
}

/** Rows as sorted texts of sorted members: an order-free form to compare. */
const sorted = (rows: readonly Row[]) => rows.map((r) => JSON.stringify(Object.entries(r).sort(([a], [b]) => (a < b ? -1 : 1)))).sort()

async function values(service: TestService, path: string): Promise<Row[]> {
  const response = await service.get(path)
  if (response.status !== 200) throw new Error(`${path}: ${response.status} ${response.text.slice(0, 400)}`)
  return response.json().value
}

/** Calls `path` (under the reference root) and asserts its rows equal `expected`; a pass is one line, a failure shows the difference. */
export async function compareAnswer(t: Test, service: TestService, path: string, expected: readonly Row[], name: string): Promise<void> {
  const actual = sorted((await values(service, path)).map(normalise))
  const want = sorted(expected)
  if (JSON.stringify(actual) === JSON.stringify(want)) t.pass(name)
  else t.same(actual, want, name)
}
