// The page of a delta (src/store/change-feed.ts: changedKeys) in both its forms: a short range read whole
// with a window keeping each row's last note, a long one read page by page with an anti-join. Both must
// give what a reader applying every note in order would conclude: each row once, at its last note in the
// range, in note order, and pages that together are the whole answer with no row twice.
import t from 'tap'
import { loadModel } from '../../src/model/load-model.js'
import { changedKeys, changeWatermark } from '../../src/store/change-feed.js'
import { changeKeyText, recordChange } from '../../src/store/change-record.js'
import { migrate } from '../../src/store/migrate.js'
import { runInTransaction } from '../../src/store/transaction.js'
import { createTestDatabase } from '../support/test-database.js'

const database = await createTestDatabase('store_changed_keys')
t.teardown(() => database.drop())
const { pool } = database
await migrate(pool, loadModel('config/demo.json'))

/** A reproducible walk: the same notes every run. */
function random(seed: number): () => number {
  let state = seed
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state / 2147483648
  }
}

const start = await changeWatermark(pool)
// 300 transactions of one to three notes over 40 rows of one table and 10 of another, so that most rows
// are noted several times and the two tables' notes interleave.
const next = random(29)
for (let i = 0; i < 300; i++)
  await runInTransaction(pool, async (transaction) => {
    for (let n = 1 + Math.floor(next() * 3); n > 0; n--)
      if (next() < 0.8) recordChange(transaction, 'c_Paged', [`row ${Math.floor(next() * 40)}`])
      else recordChange(transaction, 'c_Other', [`row ${Math.floor(next() * 10)}`])
  })
const end = await changeWatermark(pool)

const [notes] = (await pool.query(
  "SELECT seq, key_values FROM _changes WHERE table_name = 'c_Paged' AND seq > ? AND seq <= ? ORDER BY seq",
  [start, end],
)) as unknown as [{ seq: number | string; key_values: string }[]]

/** Each row at its last note in (after, upTo], in note order: what applying every note in order leaves. */
function expected(after: bigint, upTo: bigint): string[] {
  const last = new Map<string, bigint>()
  for (const note of notes) {
    const seq = BigInt(note.seq)
    if (seq > after && seq <= upTo) last.set(note.key_values, seq)
  }
  return [...last].sort((a, b) => (a[1] < b[1] ? -1 : 1)).map(([key, seq]) => `${seq} ${key}`)
}

async function pagedThrough(after: string, upTo: string, size: number): Promise<string[]> {
  const shown: string[] = []
  for (let position = after; ; ) {
    const page = await changedKeys(pool, 'c_Paged', position, upTo, size)
    shown.push(...page.map((note) => `${note.seq} ${note.keyText}`))
    if (page.length < size) return shown
    position = page[page.length - 1]!.seq
  }
}

t.ok(notes.length > 200 && new Set(notes.map((note) => note.key_values)).size === 40, 'rows noted many times each')
t.ok(expected(BigInt(start), BigInt(end)).includes(`${notes[notes.length - 1]!.seq} ${notes[notes.length - 1]!.key_values}`))

for (const size of [1, 7, 40, 1000]) {
  // Pages of 1, 7 and 40 over a range of several hundred positions take the anti-join (pages of 40 the
  // window for what is left at the end), pages of 1,000 the window.
  t.test(`pages of ${size}: every row once, at its last note, in note order`, async (t) => {
    t.same(await pagedThrough(start, end, size), expected(BigInt(start), BigInt(end)))
  })
}

t.test('a range that starts and ends between the notes, both forms', async (t) => {
  const from = BigInt(notes[50]!.seq) - 1n
  const upTo = BigInt(notes[200]!.seq)
  const want = expected(from, upTo)
  t.ok(want.length > 0 && want.length < 40)
  t.same(await pagedThrough(String(from), String(upTo), 3), want, 'page by page (anti-join)')
  t.same(await pagedThrough(String(from), String(upTo), 1000), want, 'whole (window)')
})

t.test('an empty range and a row of the other table', async (t) => {
  t.same(await changedKeys(pool, 'c_Paged', end, end, 10), [])
  const other = await changedKeys(pool, 'c_Other', start, end, 1000)
  t.ok(other.length > 0 && other.length <= 10)
  t.ok(other.every((note) => /^\["row \d"\]$/.test(note.keyText)))
  t.equal(changeKeyText(['row 1']), '["row 1"]', 'the key text the notes hold')
})
