// Change tracking (docs/change-tracking.md): `Prefer: odata.track-changes` ends a read with a delta link;
// the link answers what changed since — changed rows as they are now, removed ones as `@removed` — paged,
// ending with the next delta link. Every write path notes its rows in the same transaction, and a link
// cannot be altered, moved to another set or options, or handed to another subject.
import t from 'tap'
import { DeltaMirror, type Entity } from '../../support/delta-mirror.js'
import { READER_BASIC, rawRequest, REFERENCE_ROOT, startTestService } from '../../support/test-service.js'
import { count, documentBody, fixtures, rows } from '../writes/write-helpers.js'
import { buildMultipartBatch } from '../../../src/tools/shared/batch-body.js'
import { purgeExpiredChanges } from '../../../src/service/change-retention.js'
import { migrate } from '../../../src/store/migrate.js'

const client = await startTestService('read_change_tracking', { data: 'demo' })
t.teardown(() => client.close())
const service = client
const { pool } = client.database
const f = await fixtures(pool)

/** Follows an absolute link as given, or requests a path under the reference root. */
const fetchAs =
  (authorization: string) =>
  (link: string, headers: Record<string, string> = {}) => {
    const path = link.startsWith('http')
      ? `${new URL(link).pathname}${new URL(link).search}`
      : `${REFERENCE_ROOT}${link.replaceAll(' ', '%20')}`
    return rawRequest(service.port, 'GET', path, { headers: { Authorization: authorization, ...headers } })
  }
const fetch = fetchAs(`Basic ${Buffer.from('demo:demo').toString('base64')}`)

/** The set read again from scratch, keyed like the mirror. */

async function create(set: string, body: Record<string, unknown>): Promise<string> {
  const response = await client.send('POST', set, body)
  if (response.status !== 201) throw new Error(`create: ${response.status} ${response.text}`)
  return response.json().Ref_Key
}

t.test('a catalog: created, changed and deleted rows, then an empty delta', async (t) => {
  const kept = await create('Catalog_Warehouses', { Description: 'Kept' })
  const doomed = await create('Catalog_Warehouses', { Description: 'Doomed' })
  const first = await fetch('Catalog_Warehouses', { Prefer: 'odata.track-changes' })
  t.equal(first.status, 200)
  t.equal(first.headers['preference-applied'], 'odata.track-changes')
  const link = first.json()['@odata.deltaLink'] as string
  t.match(link, /^http:\/\/[^/]+\/odata\/standard\.odata\/v4\/Catalog_Warehouses\?\$deltatoken=[\w-]+\.[\w-]+$/)

  const added = await create('Catalog_Warehouses', { Description: 'Added' })
  t.equal((await client.send('PATCH', `Catalog_Warehouses(${kept})`, { Description: 'Kept, renamed' })).status, 200)
  t.equal((await client.send('DELETE', `Catalog_Warehouses(${doomed})`)).status, 204)

  const delta = await fetch(link)
  t.equal(delta.status, 200)
  const body = delta.json()
  t.match(body['@odata.context'], /\$metadata#Catalog_Warehouses\/\$delta$/)
  const changed = (body.value as Entity[]).filter((entry) => !entry['@removed'])
  const removed = (body.value as Entity[]).filter((entry) => entry['@removed'])
  t.same(
    changed.map((entry) => [entry.Ref_Key, entry.Description]).sort(),
    [
      [added, 'Added'],
      [kept, 'Kept, renamed'],
    ].sort(),
  )
  t.ok(
    changed.every((entry) => String(entry['@id']).endsWith(`/Catalog_Warehouses(${entry.Ref_Key})`)),
    'each with its @id',
  )
  t.same(removed, [
    {
      '@removed': { reason: 'deleted' },
      '@id': `http://127.0.0.1:${service.port}${REFERENCE_ROOT}Catalog_Warehouses(${doomed})`,
      Ref_Key: doomed,
    },
  ])
  const next = body['@odata.deltaLink'] as string
  t.not(next, link, 'a new delta link')
  const empty = await fetch(next)
  t.same(empty.json().value, [], 'nothing changed since')
  t.type(empty.json()['@odata.deltaLink'], 'string')
  t.same((await fetch(link)).json().value.length, 3, 'the old link still answers the same changes')
})

t.test('the first read pages carry the position to the last page; a delta pages too', async (t) => {
  const mirror = new DeltaMirror(['Ref_Key'], fetch)
  await mirror.start('Catalog_Products?$select=Ref_Key,Description', { Prefer: 'odata.track-changes,odata.maxpagesize=3' })
  const products = await count(pool, 'SELECT COUNT(*) FROM c_Products')
  t.equal(mirror.rows.size, products, 'every page read')
  for (let i = 0; i < 7; i++) await create('Catalog_Products', { Description: `Paged ${i}` })
  const first = await fetch(mirror.deltaLink, { Prefer: 'odata.maxpagesize=3' })
  t.equal(first.headers['preference-applied'], 'odata.maxpagesize=3')
  t.equal(first.json().value.length, 3)
  t.type(first.json()['@odata.nextLink'], 'string', 'more changes: a next link, no delta link')
  t.notOk(first.json()['@odata.deltaLink'])
  await mirror.catchUp({ Prefer: 'odata.maxpagesize=3' })
  t.equal(mirror.deltas.at(-1)!.changed.length, 7, 'each change once over three pages')
  t.same(mirror.rows, await mirror.readAgain('Catalog_Products?$select=Ref_Key,Description'))
})

t.test('movements follow their recorder: post, re-post with fewer lines, unpost, delete', async (t) => {
  const set = 'AccumulationRegister_Stock_RecordType'
  const mirror = new DeltaMirror(['Recorder', 'Recorder_Type', 'LineNumber'], fetch)
  await mirror.start(`${set}?$filter=Warehouse_Key eq ${f.warehouses[1]}`)
  const document = await create('Document_GoodsReceipt', documentBody(f, { rows: 3, warehouse: f.warehouses[1] }))
  t.equal((await client.send('POST', `Document_GoodsReceipt(${document})/Post`)).status, 204)
  await mirror.catchUp()
  t.same(
    mirror.deltas
      .at(-1)!
      .changed.map((entry) => entry.LineNumber)
      .sort(),
    [1, 2, 3],
    'posting adds three movements',
  )

  await client.send('PATCH', `Document_GoodsReceipt(${document})`, { Goods: [{ Product_Key: f.products[2], Quantity: 5, Amount: 50 }] })
  t.equal((await client.send('POST', `Document_GoodsReceipt(${document})/Post`)).status, 204)
  await mirror.catchUp()
  const repost = mirror.deltas.at(-1)!
  t.same(
    repost.changed.map((entry) => [entry.LineNumber, entry.Quantity]),
    [[1, 5]],
  )
  t.same(repost.removed.map((entry) => [entry.LineNumber, (entry['@removed'] as Entity).reason]).sort(), [
    [2, 'deleted'],
    [3, 'deleted'],
  ])
  t.same(mirror.rows, await mirror.readAgain(`${set}?$filter=Warehouse_Key eq ${f.warehouses[1]}`))

  t.equal((await client.send('POST', `Document_GoodsReceipt(${document})/Unpost`)).status, 204)
  await mirror.catchUp()
  t.same(mirror.deltas.at(-1)!.removed.length, 1, 'unposting removes the movement')
  t.same(mirror.rows, await mirror.readAgain(`${set}?$filter=Warehouse_Key eq ${f.warehouses[1]}`))
})

t.test('with $filter, a row that leaves the filtered rows is removed with reason changed', async (t) => {
  const key = await create('Catalog_Counterparties', { Description: 'Tracked-A' })
  const first = await fetch("Catalog_Counterparties?$filter=startswith(Description,'Tracked')&$select=Ref_Key,Description", {
    Prefer: 'odata.track-changes',
  })
  t.same(
    first.json().value.map((entity: Entity) => entity.Description),
    ['Tracked-A'],
  )
  await client.send('PATCH', `Catalog_Counterparties(${key})`, { Description: 'Elsewhere' })
  const delta = await fetch(first.json()['@odata.deltaLink'])
  t.same(delta.json().value, [
    {
      '@removed': { reason: 'changed' },
      '@id': `http://127.0.0.1:${service.port}${REFERENCE_ROOT}Catalog_Counterparties(${key})`,
      Ref_Key: key,
    },
  ])
})

t.test('information registers and change sets of a batch (coalesced creates and posts) are tracked', async (t) => {
  const prices = new DeltaMirror(['Period', 'Product_Key', 'PriceType'], fetch)
  await prices.start('InformationRegister_Prices')
  const documents = new DeltaMirror(['Ref_Key'], fetch)
  await documents.start('Document_GoodsSale?$select=Ref_Key,Posted')
  const write = await client.send('POST', 'InformationRegister_Prices', {
    Period: '2031-05-05T00:00:00Z',
    Product_Key: f.products[0],
    PriceType: 'Tracked',
    Price: 12.5,
  })
  t.equal(write.status, 201)
  const keys = ['00000000-0000-4000-8000-0000000000d1', '00000000-0000-4000-8000-0000000000d2']
  // Two creates, then their Posts: one coalesced run (src/batch/execute/coalesced-run.ts).
  const batch = buildMultipartBatch([
    ...keys.map((key, i) => ({
      method: 'POST',
      url: 'Document_GoodsSale',
      body: { ...documentBody(f), Ref_Key: key },
      id: `c${i}`,
      atomicityGroup: 'g',
    })),
    ...keys.map((key, i) => ({ method: 'POST', url: `Document_GoodsSale(${key})/Post`, id: `p${i}`, atomicityGroup: 'g' })),
  ])
  const answer = await client.request('POST', '/api/t/demo-token/v4/$batch', {
    headers: { 'Content-Type': batch.contentType },
    body: batch.body,
  })
  t.equal(answer.status, 200)
  t.equal(await count(pool, 'SELECT COUNT(*) FROM d_GoodsSale WHERE Posted = 1 AND Ref_Key IN (?, ?)', keys), 2)
  await prices.catchUp()
  t.same(
    prices.deltas.at(-1)!.changed.map((entry) => [entry.PriceType, entry.Price]),
    [['Tracked', 12.5]],
  )
  t.same(prices.rows, await prices.readAgain('InformationRegister_Prices'))
  await documents.catchUp()
  t.same(
    documents.deltas
      .at(-1)!
      .changed.map((entry) => [entry.Ref_Key, entry.Posted])
      .sort(),
    keys.map((key) => [key, true]),
  )
  t.same(documents.rows, await documents.readAgain('Document_GoodsSale?$select=Ref_Key,Posted'))
})

t.test('a delta link cannot be altered, moved to another set, options or subject; an expired one is 410', async (t) => {
  const first = await fetch('Catalog_Products?$select=Ref_Key', { Prefer: 'odata.track-changes' })
  const link = new URL(first.json()['@odata.deltaLink'] as string)
  const token = link.searchParams.get('$deltatoken')!
  const [payload, signature] = token.split('.') as [string, string]
  const moved = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'))
  moved.from = '0'
  const forged = `${Buffer.from(JSON.stringify(moved)).toString('base64url')}.${signature}`
  const altered = await fetch(`Catalog_Products?$select=Ref_Key&$deltatoken=${forged}`)
  t.equal(altered.status, 410)
  t.equal(altered.json().error.code, 'DeltaLinkGone')
  const otherSet = await fetch(`Catalog_Warehouses?$select=Ref_Key&$deltatoken=${token}`)
  t.equal(otherSet.status, 400)
  t.equal(otherSet.json().error.code, 'InvalidDeltaLink')
  const otherOptions = await fetch(`Catalog_Products?$select=Ref_Key,Code&$deltatoken=${token}`)
  t.equal(otherOptions.json().error.code, 'InvalidDeltaLink')
  const otherSubject = await fetchAs(READER_BASIC)(`Catalog_Products?$select=Ref_Key&$deltatoken=${token}`)
  t.equal(otherSubject.json().error.code, 'InvalidDeltaLink')
  const extraOption = await fetch(`Catalog_Products?$select=Ref_Key&$top=1&$deltatoken=${token}`)
  t.equal(extraOption.json().error.code, 'InvalidDeltaLink')
})

t.test('retention drops old notes in chunks, never the newest; a link from before them is 410', async (t) => {
  const first = await fetch('Catalog_Products?$select=Ref_Key', { Prefer: 'odata.track-changes' })
  const old = first.json()['@odata.deltaLink'] as string
  await create('Catalog_Products', { Description: 'After the old link' })
  // 2,500 notes of a week ago (more than two chunks), beside the recent ones.
  await pool.query(
    "INSERT INTO _change_notes (table_name, key_count, key_texts, recorded_at) SELECT 'c_Nothing', 0, '[]', '2000-01-01 00:00:00' FROM _change_notes LIMIT 1",
  )
  for (let i = 0; i < 12; i++)
    await pool.query(
      "INSERT INTO _change_notes (table_name, key_count, key_texts, recorded_at) SELECT 'c_Nothing', 0, '[]', '2000-01-01 00:00:00' FROM _change_notes WHERE table_name = 'c_Nothing' LIMIT 2500",
    )
  await pool.query("UPDATE _change_notes SET recorded_at = '2000-01-01 00:00:00' WHERE table_name <> 'c_Nothing'")
  const newest = await rows<{ seq: string }>(pool, 'SELECT MAX(seq) AS seq FROM _change_notes')
  const total = await count(pool, 'SELECT COUNT(*) FROM _change_notes')
  t.ok(total > 2500)
  const dropped = await purgeExpiredChanges(pool, 24)
  t.equal(dropped, total - 1, 'every old note but the newest')
  t.same(await rows(pool, 'SELECT seq FROM _change_notes'), newest, 'the newest stays')
  t.equal(await purgeExpiredChanges(pool, 24), 0, 'nothing more to drop')
  const expired = await fetch(old)
  t.equal(expired.status, 410)
  t.equal(expired.json().error.code, 'DeltaLinkGone')
  t.match(expired.json().error.message, /expired/)
  const fresh = await fetch('Catalog_Products?$select=Ref_Key', { Prefer: 'odata.track-changes' })
  const delta = await fetch(fresh.json()['@odata.deltaLink'])
  t.equal(delta.status, 200, 'a link taken after the purge works')
})

t.test('reads the preference does not apply to answer as usual, without a delta link', async (t) => {
  const ordered = await fetch('Catalog_Products?$orderby=Code&$top=2', { Prefer: 'odata.track-changes' })
  t.equal(ordered.status, 200)
  t.notOk(ordered.headers['preference-applied'])
  t.notOk(ordered.json()['@odata.deltaLink'])
  const parts = await fetch('Document_GoodsReceipt_Goods', { Prefer: 'odata.track-changes' })
  t.notOk(parts.headers['preference-applied'], 'table parts are tracked with their document')
})

t.test('a rolled-back write leaves no note', async (t) => {
  const before = await count(pool, 'SELECT COUNT(*) FROM _change_notes')
  const refused = await client.send('POST', 'Catalog_Products', { Ref_Key: f.products[0], Description: 'duplicate' })
  t.equal(refused.status, 409)
  t.equal(await count(pool, 'SELECT COUNT(*) FROM _change_notes'), before)
  const notes = await rows(pool, 'SELECT table_name FROM _change_notes ORDER BY seq DESC LIMIT 1')
  t.ok(notes.length === 1)
})

t.test('a delta longer than a stretch: cut at note boundaries, continued by next links, every row shown', async (t) => {
  const table = client.model.entitySets.find((set) => set.name === 'Catalog_Warehouses')!.table
  const first = await fetch('Catalog_Warehouses?$select=Ref_Key', { Prefer: 'odata.track-changes' })
  const link = first.json()['@odata.deltaLink'] as string
  const before = await create('Catalog_Warehouses', { Description: 'Before the long stretch' })
  // Twelve notes of a thousand keys of rows that do not exist (each shows as removed): more than one
  // stretch at pages of 2,000 (max(4 pages, 10,000) keys). The first key is written again in the last note.
  const ghost = (i: number) => `00000000-0000-4000-8000-${String(i).padStart(12, '0')}`
  for (let note = 0; note < 12; note++) {
    const keys = Array.from({ length: 1000 }, (_, i) => [ghost(note * 1000 + i)])
    if (note === 11) keys[999] = [ghost(0)]
    await pool.query('INSERT INTO _change_notes (table_name, key_count, key_texts) VALUES (?, ?, ?)', [
      table,
      keys.length,
      JSON.stringify(keys),
    ])
  }
  const after = await create('Catalog_Warehouses', { Description: 'After the long stretch' })
  const shown = new Map<string, number>()
  let pages = 0
  let next: string | undefined = link
  let deltaLink: string | undefined
  while (next) {
    const page = await fetch(next, { Prefer: 'odata.maxpagesize=2000' })
    t.equal(page.status, 200)
    const body = page.json()
    pages++
    t.ok((body.value as Entity[]).length <= 2000)
    for (const entry of body.value as Entity[]) shown.set(entry.Ref_Key as string, (shown.get(entry.Ref_Key as string) ?? 0) + 1)
    next = body['@odata.nextLink']
    deltaLink = body['@odata.deltaLink']
  }
  t.ok(pages >= 7, `paged: ${pages} pages`)
  t.equal(shown.get(before), 1)
  t.equal(shown.get(after), 1)
  t.equal(shown.get(ghost(0)), 2, 'a row written in two stretches shows in each')
  t.equal(shown.get(ghost(11_998)), 1)
  t.equal(shown.size, 2 + 11_999, 'every row written')
  const empty = await fetch(deltaLink!)
  t.same(empty.json().value, [], 'the delta link stands at the mark: nothing more')
})

t.test('migrate replaces the per-row change record: its links answer 410, new links work above it', async (t) => {
  const first = await fetch('Catalog_Warehouses?$select=Ref_Key', { Prefer: 'odata.track-changes' })
  const issued = first.json()['@odata.deltaLink'] as string
  // The earlier layout, a note per row, with positions far above the new table's.
  await pool.query(`CREATE TABLE _changes (seq BIGINT NOT NULL AUTO_INCREMENT, table_name VARCHAR(64) NOT NULL,
    key_hash BINARY(16) NOT NULL, key_values TEXT NOT NULL, recorded_at DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    PRIMARY KEY (seq), KEY by_table (table_name, seq), KEY by_key (table_name, key_hash, seq))`)
  await pool.query(
    "INSERT INTO _changes (seq, table_name, key_hash, key_values) VALUES (5000000, 'c_Warehouses', UNHEX(MD5('[\"x\"]')), '[\"x\"]')",
  )
  await migrate(pool, client.model)
  t.same(
    await rows(pool, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND TABLE_NAME = '_changes'"),
    [],
    'the old table is gone',
  )
  const old = await fetch(issued)
  t.equal(old.status, 410)
  t.equal(old.json().error.code, 'DeltaLinkGone')
  const fresh = await fetch('Catalog_Warehouses?$select=Ref_Key', { Prefer: 'odata.track-changes' })
  const link = fresh.json()['@odata.deltaLink'] as string
  t.equal((await fetch(link)).status, 200, 'a link issued after the migration works before any write')
  const added = await create('Catalog_Warehouses', { Description: 'After the migration' })
  const delta = await fetch(link)
  t.same(
    (delta.json().value as Entity[]).map((entry) => entry.Ref_Key),
    [added],
  )
  const [{ seq }] = await rows<{ seq: string }>(pool, 'SELECT MAX(seq) AS seq FROM _change_notes')
  t.ok(BigInt(seq) > 5_000_000n, 'the new notes are numbered above the old positions')
  await migrate(pool, client.model)
  t.equal((await fetch(delta.json()['@odata.deltaLink'])).status, 200, 'migrating again changes nothing')
})
