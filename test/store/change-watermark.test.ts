// The low-water mark of the change record (src/store/change-feed.ts, docs/change-tracking.md): sequence
// numbers are taken before COMMIT, so a transaction that took a smaller number may commit after one that
// took a larger. The position a delta may stop at must wait for it; these cases set that order up on
// purpose, with two connections, instead of hoping a load test meets it.
import t from 'tap'
import { loadModel } from '../../src/model/load-model.js'
import { changedPage, changeWatermark } from '../../src/store/change-feed.js'
import { recordChange, takeRecordedChanges } from '../../src/store/change-record.js'
import { migrate } from '../../src/store/migrate.js'
import { runInTransaction, transactionOn } from '../../src/store/transaction.js'
import { createTestDatabase } from '../support/test-database.js'

const database = await createTestDatabase('store_change_watermark')
t.teardown(() => database.drop())
const { pool } = database
await migrate(pool, loadModel('config/demo.json'))

const seqOf = async (key: string): Promise<string | undefined> => {
  const [rows] = (await pool.query('SELECT seq FROM _change_notes WHERE key_texts = ?', [JSON.stringify([[key]])])) as unknown as [
    { seq: string }[],
  ]
  return rows[0]?.seq
}

t.test('a smaller number committed later: the mark waits for it, so the delta up to the mark holds both', async (t) => {
  const start = await changeWatermark(pool)
  // The slow writer takes its number first and does not commit yet.
  const slow = await pool.getConnection()
  const slowTransaction = transactionOn(slow)
  recordChange(slowTransaction, 'c_Test', ['slow'])
  // Its notes written without the COMMIT that runInTransaction sends with them (the transaction opens with its first statement).
  for (const statement of takeRecordedChanges(slowTransaction)) await slowTransaction.run(statement)
  // The fast writer takes a larger number and commits.
  await runInTransaction(pool, async (transaction) => recordChange(transaction, 'c_Test', ['fast']))
  t.ok(BigInt((await seqOf('fast'))!) > BigInt(start), 'the fast note is committed')
  t.equal(await seqOf('slow'), undefined, 'the slow note is not visible yet')

  const order: string[] = []
  // A reader takes the mark and reads the delta up to it at once, as a delta request does.
  const delta = changeWatermark(pool).then((position) => {
    order.push('mark')
    return changedPage(pool, 'c_Test', start, position, 100).then((page) => page.keys)
  })
  // Give a mark that does not wait every chance to be taken now, past the fast note and before the slow one.
  await new Promise((resolve) => setTimeout(resolve, 300))
  order.push('slow commits')
  await slow.query('COMMIT')
  slow.release()
  const notes = await delta
  t.same(order, ['slow commits', 'mark'], 'the mark is taken only once the slow writer has committed')
  t.same(
    notes.map((note) => note.keyText).sort(),
    [JSON.stringify(['fast']), JSON.stringify(['slow'])],
    'both notes are in the delta: the slow one is not passed over',
  )
})

t.test('a rolled-back or retried transaction leaves no note; a row written twice is noted once', async (t) => {
  const start = await changeWatermark(pool)
  await t.rejects(
    runInTransaction(pool, async (transaction) => {
      recordChange(transaction, 'c_Test', ['rolled back'])
      throw new Error('refused')
    }),
  )
  let attempts = 0
  await runInTransaction(pool, async (transaction) => {
    attempts++
    recordChange(transaction, 'c_Test', [`attempt ${attempts}`])
    recordChange(transaction, 'c_Test', ['twice'])
    recordChange(transaction, 'c_Test', ['twice'])
    // A deadlock victim runs again whole: its first attempt's notes must not stay.
    if (attempts === 1) throw Object.assign(new Error('deadlock'), { errno: 1213 })
  })
  const notes = (await changedPage(pool, 'c_Test', start, await changeWatermark(pool), 100)).keys
  t.same(notes.map((note) => note.keyText).sort(), [JSON.stringify(['attempt 2']), JSON.stringify(['twice'])])
})

t.test('a key written again later is shown once, at its last note', async (t) => {
  const start = await changeWatermark(pool)
  for (const key of ['a', 'b', 'a', 'c', 'a'])
    await runInTransaction(pool, async (transaction) => recordChange(transaction, 'c_Order', [key]))
  const end = await changeWatermark(pool)
  const all = (await changedPage(pool, 'c_Order', start, end, 100)).keys
  t.same(
    all.map((note) => JSON.parse(note.keyText)[0]),
    ['b', 'c', 'a'],
  )
  // Paged two at a time, from the last note shown: the same three, once each.
  const first = (await changedPage(pool, 'c_Order', start, end, 2)).keys
  const second = (await changedPage(pool, 'c_Order', first[1]!.position, end, 2)).keys
  t.same(
    [...first, ...second].map((note) => JSON.parse(note.keyText)[0]),
    ['b', 'c', 'a'],
  )
})
