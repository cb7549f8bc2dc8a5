// The property of change tracking (docs/change-tracking.md): whatever the commit order, no change is
// missed and none is shown twice. Writers of every kind — single creates, batch change sets (coalesced
// creates and posts), re-posts with other lines, unposts, deletes, record-set replacements, information
// register writes and deletes, catalog renames — run at once against the service with two worker
// processes, while a reader follows delta links of several sets. At the end the first snapshot with every
// delta applied in order equals the sets read again from scratch, row for row.
import t from 'tap'
import { buildMultipartBatch } from '../../../src/tools/shared/batch-body.js'
import { DeltaMirror } from '../../support/delta-mirror.js'
import { seededRandom } from '../../../src/seed/random.js'
import { rawRequest, REFERENCE_ROOT, startTestService } from '../../support/test-service.js'

const SEED = Number(process.env.DELTA_SEED ?? 29)
const WRITERS = 4
const OPERATIONS_PER_WRITER = 40

const service = await startTestService('read_delta_concurrency', { process: 'child', environment: { WORKERS: '2' } })
t.teardown(() => service.close())
const authorization = `Basic ${Buffer.from('demo:demo').toString('base64')}`

const send = (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) =>
  rawRequest(service.port, method, path.startsWith('/') ? path : `${REFERENCE_ROOT}${path}`, {
    headers: { Authorization: authorization, ...(body === undefined ? {} : { 'Content-Type': 'application/json' }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
const fetch = (link: string, headers: Record<string, string> = {}) =>
  send(
    'GET',
    link.startsWith('http') ? `${new URL(link).pathname}${new URL(link).search}` : link.replaceAll(' ', '%20'),
    undefined,
    headers,
  )

async function create(set: string, body: Record<string, unknown>): Promise<string> {
  const response = await send('POST', encodeURIComponent(set), body)
  if (response.status !== 201) throw new Error(`create ${set}: ${response.status} ${response.text}`)
  return response.json().Ref_Key
}

const warehouses = [await create('Catalog_Warehouses', { Description: 'W1' }), await create('Catalog_Warehouses', { Description: 'W2' })]
const products = await Promise.all(['P1', 'P2', 'P3', 'P4'].map((name) => create('Catalog_Products', { Description: name })))
const counterparty = await create('Catalog_Counterparties', { Description: 'C1' })
const organization = await create('Catalog_Организации', { Description: 'O1' })

const receipt = (random: () => number, lines = 1 + Math.floor(random() * 4)) => ({
  Date: `2024-0${1 + Math.floor(random() * 9)}-1${Math.floor(random() * 9)}T10:00:00Z`,
  Warehouse_Key: warehouses[Math.floor(random() * warehouses.length)],
  Counterparty_Key: counterparty,
  Organization_Key: organization,
  Goods: Array.from({ length: lines }, (_, i) => ({
    Product_Key: products[(i + Math.floor(random() * 4)) % products.length],
    Quantity: 1 + Math.floor(random() * 9),
    Price: 2,
    Amount: 2 * (1 + Math.floor(random() * 9)),
  })),
})

/** The tracked sets, each with its key and the options the reader follows it with. */
const TRACKED = [
  { path: 'Document_GoodsReceipt?$select=Ref_Key,Posted,Date,Warehouse_Key', key: ['Ref_Key'] },
  { path: 'AccumulationRegister_Stock_RecordType', key: ['Recorder', 'Recorder_Type', 'LineNumber'] },
  {
    path: 'AccountingRegister_Main_RecordType?$select=Recorder,Recorder_Type,LineNumber,Amount',
    key: ['Recorder', 'Recorder_Type', 'LineNumber'],
  },
  { path: 'InformationRegister_Prices', key: ['Period', 'Product_Key', 'PriceType'] },
  {
    path: `AccumulationRegister_Stock_RecordType?$filter=Warehouse_Key eq ${warehouses[0]}`,
    key: ['Recorder', 'Recorder_Type', 'LineNumber'],
  },
  { path: 'Catalog_Products?$select=Ref_Key,Description', key: ['Ref_Key'] },
]

/** One writer: a seeded sequence of every kind of write, on documents of its own. */
async function writer(index: number): Promise<void> {
  const random = seededRandom(SEED * 100 + index)
  const mine: string[] = []
  const pick = () => mine[Math.floor(random() * mine.length)]
  for (let step = 0; step < OPERATIONS_PER_WRITER; step++) {
    const choice = mine.length === 0 ? 0 : Math.floor(random() * 9)
    switch (choice) {
      case 0: {
        const key = await create('Document_GoodsReceipt', receipt(random))
        mine.push(key)
        await send('POST', `Document_GoodsReceipt(${key})/Post`)
        break
      }
      case 1: {
        // A change set of creates and their posts: one coalesced write.
        const keys = [0, 1].map(() => crypto.randomUUID())
        const batch = buildMultipartBatch([
          ...keys.map((key) => ({
            method: 'POST',
            url: 'Document_GoodsReceipt',
            body: { ...receipt(random), Ref_Key: key },
            atomicityGroup: 'g',
          })),
          ...keys.map((key) => ({ method: 'POST', url: `Document_GoodsReceipt(${key})/Post`, atomicityGroup: 'g' })),
        ])
        const answer = await rawRequest(service.port, 'POST', '/api/t/demo-token/v4/$batch', {
          headers: { 'Content-Type': batch.contentType },
          body: batch.body,
        })
        if (answer.status !== 200 || answer.text.includes('HTTP/1.1 4')) throw new Error(`batch: ${answer.status} ${answer.text}`)
        mine.push(...keys)
        break
      }
      case 2:
      case 3: {
        const key = pick()!
        await send('PATCH', `Document_GoodsReceipt(${key})`, { Goods: receipt(random).Goods })
        await send('POST', `Document_GoodsReceipt(${key})/Post`)
        break
      }
      case 4:
        await send('POST', `Document_GoodsReceipt(${pick()})/Unpost`)
        break
      case 5: {
        const key = mine.splice(Math.floor(random() * mine.length), 1)[0]!
        await send('DELETE', `Document_GoodsReceipt(${key})`)
        break
      }
      case 6: {
        const key = pick()!
        await send('PUT', `AccumulationRegister_Stock(Recorder=guid'${key}',Recorder_Type='StandardODATA.Document_GoodsReceipt')`, {
          RecordSet: Array.from({ length: Math.floor(random() * 4) }, () => ({
            Warehouse_Key: warehouses[Math.floor(random() * warehouses.length)],
            Product_Key: products[0],
            Quantity: 1,
            Amount: 1,
          })),
        })
        break
      }
      case 7: {
        const record = {
          Period: `2030-01-0${1 + Math.floor(random() * 3)}T00:00:00Z`,
          Product_Key: products[index % products.length],
          PriceType: 'P',
        }
        if (random() < 0.7) await send('POST', 'InformationRegister_Prices', { ...record, Price: Math.floor(random() * 100) })
        else await send('DELETE', `InformationRegister_Prices(Period=${record.Period},Product_Key=${record.Product_Key},PriceType='P')`)
        break
      }
      case 8:
        await send('PATCH', `Catalog_Products(${products[Math.floor(random() * products.length)]})`, {
          Description: `P by ${index} at ${step}`,
        })
        break
    }
  }
}

t.test('snapshot plus every delta in order equals the final state, with WORKERS=2', async (t) => {
  const mirrors = TRACKED.map((tracked) => ({ tracked, mirror: new DeltaMirror(tracked.key, fetch) }))
  for (const { tracked, mirror } of mirrors) await mirror.start(tracked.path, { Prefer: 'odata.track-changes,odata.maxpagesize=7' })
  let writing = true
  const writers = Promise.all(Array.from({ length: WRITERS }, (_, i) => writer(i))).finally(() => {
    writing = false
  })
  let rounds = 0
  // The reader follows the links while the writers write, in pages small enough to be paged.
  while (writing) {
    for (const { mirror } of mirrors) await mirror.catchUp({ Prefer: 'odata.maxpagesize=5' })
    rounds++
  }
  await writers
  for (const { mirror } of mirrors) await mirror.catchUp()
  t.ok(rounds > 1, `the reader followed the links ${rounds} times while the writers wrote`)
  for (const { tracked, mirror } of mirrors) {
    const final = await mirror.readAgain(tracked.path)
    t.ok(final.size > 0 || tracked.path.startsWith('InformationRegister'), `${tracked.path}: rows to compare`)
    t.same(mirror.rows, final, `${tracked.path}: snapshot + deltas = the set now (${final.size} rows)`)
  }
  // Shown once: within one delta no row comes twice.
  for (const { tracked, mirror } of mirrors)
    for (const delta of mirror.deltas) {
      const keys = [...delta.changed, ...delta.removed].map((entry) => mirror.keyOf(entry))
      t.equal(new Set(keys).size, keys.length, `${tracked.path}: no row twice in one delta`)
    }
})
