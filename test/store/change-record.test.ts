// The change record's write side (src/store/change-record.ts): a transaction writes one note per table it
// wrote, holding each of its rows' keys once (split over several notes past KEYS_PER_NOTE keys), in one
// statement with the clock's shared lock, several when the notes are many.
import t from 'tap'
import { loadModel } from '../../src/model/load-model.js'
import { changedPage, changeWatermark } from '../../src/store/change-feed.js'
import { changeKeyText, KEYS_PER_NOTE, recordChange, recordChanges } from '../../src/store/change-record.js'
import { migrate } from '../../src/store/migrate.js'
import { runInTransaction } from '../../src/store/transaction.js'
import { createTestDatabase } from '../support/test-database.js'

const database = await createTestDatabase('store_change_record')
t.teardown(() => database.drop())
const { pool } = database
await migrate(pool, loadModel('config/demo.json'))

t.test('a transaction of more notes than one statement takes: every one kept, once, in two tables', async (t) => {
  const start = await changeWatermark(pool)
  // More than sixteen notes of KEYS_PER_NOTE keys: two statements.
  const keys = Array.from({ length: KEYS_PER_NOTE * 17 + 500 }, (_, i) => [`key ${i}`, i])
  await runInTransaction(pool, async (transaction) => {
    recordChanges(transaction, 'c_Many', keys)
    recordChanges(transaction, 'c_Many', keys.slice(0, 100))
    recordChange(transaction, 'ir_Другая', ['Цена "в кавычках" \\ и обратная черта', 1])
  })
  const end = await changeWatermark(pool)
  const many = (await changedPage(pool, 'c_Many', start, end, 100_000)).keys
  t.equal(many.length, keys.length, 'each key once')
  t.same(new Set(many.map((note) => note.keyText)), new Set(keys.map(changeKeyText)))
  const other = (await changedPage(pool, 'ir_Другая', start, end, 10)).keys
  t.same(
    other.map((note) => JSON.parse(note.keyText)),
    [['Цена "в кавычках" \\ и обратная черта', '1']],
    'a Cyrillic table and a key with quotes and a backslash come back as written',
  )
})

t.test('one note per table a transaction wrote; a key written again later gives way to its later note', async (t) => {
  const [counts] = (await pool.query(
    "SELECT table_name, COUNT(*) AS notes, SUM(key_count) AS keys_noted, MAX(key_count) AS widest FROM _change_notes WHERE table_name IN ('c_Many', 'ir_Другая') GROUP BY table_name ORDER BY table_name",
  )) as unknown as [{ table_name: string; notes: number; keys_noted: string | number; widest: number }[]]
  t.same(
    counts.map((row) => [row.table_name, Number(row.notes), Number(row.keys_noted), Number(row.widest)]),
    [
      ['c_Many', 18, KEYS_PER_NOTE * 17 + 500, KEYS_PER_NOTE],
      ['ir_Другая', 1, 1, 1],
    ],
  )
  const start = await changeWatermark(pool)
  for (const value of ['a', 'b', 'a'])
    await runInTransaction(pool, async (transaction) => recordChange(transaction, 'c_Again', ['Ключ', value]))
  const notes = (await changedPage(pool, 'c_Again', start, await changeWatermark(pool), 10)).keys
  t.same(
    notes.map((note) => JSON.parse(note.keyText)[1]),
    ['b', 'a'],
    'the earlier note of `a` gives way to its later one',
  )
})

t.test('without the clock row the notes are refused, not written without the lock', async (t) => {
  await pool.query('DELETE FROM _change_clock')
  t.teardown(() => pool.query('INSERT IGNORE INTO _change_clock (id) VALUES (1)'))
  await t.rejects(
    runInTransaction(pool, async (transaction) => recordChange(transaction, 'c_NoClock', ['x'])),
    /_change_clock has no row/,
  )
  const [rows] = (await pool.query("SELECT 1 FROM _change_notes WHERE table_name = 'c_NoClock'")) as unknown as [unknown[]]
  t.equal(rows.length, 0, 'the transaction was rolled back')
})
