// The change record's write side (src/store/change-record.ts): a transaction's notes go in one statement
// with the clock's shared lock, several when they are many, each key once; their digests are the server's
// MD5 of the key text, so a key noted by any writer is found again by the index.
import t from 'tap'
import { loadModel } from '../../src/model/load-model.js'
import { changedKeys, changeWatermark } from '../../src/store/change-feed.js'
import { changeKeyText, recordChange, recordChanges } from '../../src/store/change-record.js'
import { migrate } from '../../src/store/migrate.js'
import { runInTransaction } from '../../src/store/transaction.js'
import { createTestDatabase } from '../support/test-database.js'

const database = await createTestDatabase('store_change_record')
t.teardown(() => database.drop())
const { pool } = database
await migrate(pool, loadModel('config/demo.json'))

t.test('a transaction of more notes than one statement takes: every one kept, once, in two tables', async (t) => {
  const start = await changeWatermark(pool)
  const keys = Array.from({ length: 4500 }, (_, i) => [`key ${i}`, i])
  await runInTransaction(pool, async (transaction) => {
    recordChanges(transaction, 'c_Many', keys)
    recordChanges(transaction, 'c_Many', keys.slice(0, 100))
    recordChange(transaction, 'ir_Другая', ['Цена "в кавычках" \\ и обратная черта', 1])
  })
  const end = await changeWatermark(pool)
  const many = await changedKeys(pool, 'c_Many', start, end, 10_000)
  t.equal(many.length, keys.length, 'each key once')
  t.same(new Set(many.map((note) => note.keyText)), new Set(keys.map(changeKeyText)))
  const other = await changedKeys(pool, 'ir_Другая', start, end, 10)
  t.same(
    other.map((note) => JSON.parse(note.keyText)),
    [['Цена "в кавычках" \\ и обратная черта', '1']],
    'a Cyrillic table and a key with quotes and a backslash come back as written',
  )
})

t.test('the digest is the MD5 of the key text: a key noted again is found as the same row', async (t) => {
  const [[row]] = (await pool.query(
    "SELECT HEX(key_hash) = UPPER(MD5(key_values)) AS same, key_values FROM _changes WHERE table_name = 'ir_Другая'",
  )) as unknown as [[{ same: number; key_values: string }]]
  t.equal(Number(row.same), 1)
  const start = await changeWatermark(pool)
  for (const value of ['a', 'b', 'a'])
    await runInTransaction(pool, async (transaction) => recordChange(transaction, 'c_Again', ['Ключ', value]))
  const notes = await changedKeys(pool, 'c_Again', start, await changeWatermark(pool), 10)
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
  const [rows] = (await pool.query("SELECT 1 FROM _changes WHERE table_name = 'c_NoClock'")) as unknown as [unknown[]]
  t.equal(rows.length, 0, 'the transaction was rolled back')
})
