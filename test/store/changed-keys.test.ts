// The page of a delta (src/store/change-feed.ts: changedPage). A transaction writes one note per table it
// wrote, holding its rows' keys; a page expands the notes of its range and must give what a reader applying
// every key in order would conclude: each row once, at its last occurrence in the range, in the order of
// those occurrences, and pages that together are the whole answer with no row twice, including pages that
// end inside a note. A long range is cut into stretches at a bound of keys, each of which holds each row once.
import t from 'tap'
import { loadModel } from '../../src/model/load-model.js'
import { changedPage, changeWatermark } from '../../src/store/change-feed.js'
import { changeKeyText, KEYS_PER_NOTE, recordChange } from '../../src/store/change-record.js'
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
// 300 transactions of one to five rows over 40 rows of one table and 10 of another, so that most rows
// are written several times, a note often holds several keys, and the two tables' notes interleave.
const next = random(29)
for (let i = 0; i < 300; i++)
  await runInTransaction(pool, async (transaction) => {
    for (let n = 1 + Math.floor(next() * 5); n > 0; n--)
      if (next() < 0.8) recordChange(transaction, 'c_Paged', [`row ${Math.floor(next() * 40)}`])
      else recordChange(transaction, 'c_Other', [`row ${Math.floor(next() * 10)}`])
  })
// One transaction writing more rows than a note holds: its keys are split over several notes.
const wide = KEYS_PER_NOTE * 2 + 500
await runInTransaction(pool, async (transaction) => {
  for (let i = 0; i < wide; i++) recordChange(transaction, 'c_Paged', [`wide ${i}`])
  recordChange(transaction, 'c_Paged', ['row 3'])
})
for (let i = 0; i < 20; i++)
  await runInTransaction(pool, async (transaction) => {
    recordChange(transaction, 'c_Paged', [`row ${Math.floor(next() * 40)}`])
    recordChange(transaction, 'c_Paged', [`wide ${Math.floor(next() * wide)}`])
  })
const end = await changeWatermark(pool)

const [notes] = (await pool.query(
  "SELECT seq, key_count, key_texts FROM _change_notes WHERE table_name = 'c_Paged' AND seq > ? AND seq <= ? ORDER BY seq",
  [start, end],
)) as unknown as [{ seq: number | string; key_count: number; key_texts: string }[]]

/** Every key written, in order, with its note and place: what a reader applying them in order sees. */
const occurrences = notes.flatMap((note) =>
  (JSON.parse(note.key_texts) as string[][]).map((key, index) => ({ seq: BigInt(note.seq), index, keyText: changeKeyText(key) })),
)

/** Each row at its last occurrence in (after, upTo], in occurrence order. */
function expected(after: bigint, upTo: bigint): string[] {
  const last = new Map<string, string>()
  for (const { seq, index, keyText } of occurrences)
    if (seq > after && seq <= upTo) {
      last.delete(keyText)
      last.set(keyText, `${seq}.${index} ${keyText}`)
    }
  return [...last.values()]
}

async function pagedThrough(after: string, upTo: string, size: number): Promise<string[]> {
  const shown: string[] = []
  for (let position = after; ; ) {
    const page = (await changedPage(pool, 'c_Paged', position, upTo, size)).keys
    shown.push(...page.map((key) => `${key.position} ${key.keyText}`))
    if (page.length < size) return shown
    position = page[page.length - 1]!.position
  }
}

t.ok(notes.length > 200 && notes.length < 330, 'about one note per transaction that wrote the table')
t.ok(
  notes.some((note) => note.key_count > 1),
  'notes hold several keys',
)
t.same(
  notes.filter((note) => note.key_count === KEYS_PER_NOTE).length,
  2,
  `the wide transaction's ${wide + 1} keys over notes of at most ${KEYS_PER_NOTE}`,
)
t.ok(notes.every((note) => note.key_count === (JSON.parse(note.key_texts) as unknown[]).length))
t.equal(new Set(occurrences.map((o) => o.keyText)).size, 40 + wide, 'every row noted')

for (const size of [1, 7, 40, 999, 1000]) {
  // Pages of 7, 999 and 1,000 end inside the wide transaction's notes.
  t.test(`pages of ${size}: every row once, at its last occurrence, in order`, async (t) => {
    t.same(await pagedThrough(start, end, size), expected(BigInt(start), BigInt(end)))
  })
}

t.test('a range that starts and ends between the notes', async (t) => {
  const from = BigInt(notes[50]!.seq) - 1n
  const upTo = BigInt(notes[80]!.seq)
  const want = expected(from, upTo)
  t.ok(want.length > 0 && want.length < 40)
  t.same(await pagedThrough(String(from), String(upTo), 3), want)
  t.same(await pagedThrough(String(from), String(upTo), 1000), want)
})

t.test('a position inside a note: the keys after it in that note, and the later notes', async (t) => {
  const note = notes.find((n) => n.key_count === KEYS_PER_NOTE)!
  const keys = (await changedPage(pool, 'c_Paged', `${note.seq}.${KEYS_PER_NOTE - 3}`, String(note.seq), 10)).keys
  t.same(
    keys.map((key) => key.position),
    [`${note.seq}.${KEYS_PER_NOTE - 2}`, `${note.seq}.${KEYS_PER_NOTE - 1}`],
  )
})

t.test('stretches: a long range cut at a bound of keys, at note boundaries, each row once in each', async (t) => {
  for (const bound of [5, 60, 1500]) {
    const stretches: { from: string; upTo: string; shown: string[] }[] = []
    for (let from = start; BigInt(from) < BigInt(end); ) {
      // The first page of a stretch cuts it; its later pages read up to the cut, as a delta's pages do.
      const first = await changedPage(pool, 'c_Paged', from, end, 4, bound)
      const shown = first.keys.map((key) => `${key.position} ${key.keyText}`)
      if (first.keys.length === 4) shown.push(...(await pagedThrough(first.keys[3]!.position, first.upTo, 4)))
      stretches.push({ from, upTo: first.upTo, shown })
      t.ok(BigInt(first.upTo) > BigInt(from), 'a stretch moves on')
      from = first.upTo
    }
    t.ok(stretches.length > 1, `several stretches at a bound of ${bound}`)
    for (const [i, stretch] of stretches.entries()) {
      t.same(stretch.shown, expected(BigInt(stretch.from), BigInt(stretch.upTo)), `stretch ${i}: each row once, at its last occurrence`)
      const keys = occurrences.filter((o) => o.seq > BigInt(stretch.from) && o.seq <= BigInt(stretch.upTo)).length
      const lastNote = notes.find((note) => String(note.seq) === stretch.upTo)
      if (i < stretches.length - 1) {
        t.ok(keys >= bound && keys - lastNote!.key_count < bound, `stretch ${i} stops at the note that reaches ${bound} keys`)
      }
    }
    // Applying every stretch in order leaves what applying every key leaves: the last occurrence of each row.
    const final = new Map<string, string>()
    for (const stretch of stretches)
      for (const line of stretch.shown) final.set(line.slice(line.indexOf(' ') + 1), line.slice(0, line.indexOf(' ')))
    t.same(
      new Map([...final].sort()),
      new Map(
        expected(BigInt(start), BigInt(end))
          .map((line) => [line.slice(line.indexOf(' ') + 1), line.slice(0, line.indexOf(' '))] as [string, string])
          .sort(),
      ),
      'the stretches together end at every row as it was last written',
    )
  }
})

t.test('an empty range and a row of the other table', async (t) => {
  t.same((await changedPage(pool, 'c_Paged', end, end, 10)).keys, [])
  const other = (await changedPage(pool, 'c_Other', start, end, 1000)).keys
  t.ok(other.length > 0 && other.length <= 10)
  t.ok(other.every((note) => /^\["row \d"\]$/.test(note.keyText)))
  t.equal(changeKeyText(['row 1']), '["row 1"]', 'the key text the notes hold')
})
