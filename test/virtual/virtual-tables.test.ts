// Every virtual table against the one case table (virtual-table-cases.ts), through HTTP against the
// hand-made data; and every implementation the registry has is covered by it.
import t from 'tap'
import { VIRTUAL_TABLES } from '../../src/virtual/virtual-table-registry.js'
import { VIRTUAL_TABLE_CASES } from './virtual-table-cases.js'
import { startTestService } from '../support/test-service.js'

const service = await startTestService('virtual_cases', { data: 'virtual-tables' })
t.teardown(() => service.close())

t.test('every implementation has cases', async (t) => {
  for (const table of VIRTUAL_TABLES)
    t.ok(
      VIRTUAL_TABLE_CASES.some((c) => c.function === table.name),
      `${table.name} is in the case table`,
    )
})

for (const testCase of VIRTUAL_TABLE_CASES) {
  t.test(`${testCase.function}: ${testCase.name}`, async (t) => {
    const rows = await service.values(testCase.path)
    // JSON numbers such as `12.000` parse to 12: compared as numbers.
    t.strictSame(rows, testCase.rows)
  })
}
