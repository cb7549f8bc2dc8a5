// A batch's log id (`Пакет`) is a UUID whose text sorts in the order the ids were made, so that the log's
// index on it grows at its end (src/log/batch-id.ts).
import t from 'tap'
import { newBatchId } from '../../src/log/batch-id.js'

const UUID_V7 = /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

t.test('a version-7 UUID, 36 characters as the column holds', async (t) => {
  const id = newBatchId()
  t.match(id, UUID_V7)
  t.equal(id.length, 36)
})

t.test('ids made one after another sort in that order, within a millisecond and across milliseconds', async (t) => {
  const ids: string[] = []
  for (let i = 0; i < 5000; i++) ids.push(newBatchId())
  await new Promise((resolve) => setTimeout(resolve, 5))
  for (let i = 0; i < 100; i++) ids.push(newBatchId())
  const sorted = [...ids].sort()
  t.same(sorted, ids, 'text order is creation order')
  t.equal(new Set(ids).size, ids.length, 'no id twice')
})

t.test('the leading 48 bits are the time of making, in milliseconds', async (t) => {
  const before = Date.now()
  const id = newBatchId()
  const after = Date.now()
  const millis = Number.parseInt(id.replaceAll('-', '').slice(0, 12), 16)
  t.ok(millis >= before && millis <= after, `${millis} within [${before}, ${after}]`)
})
