// After any sequence of writes — create, post, repost with other rows and dates, unpost, delete, record
// sets written directly (with inactive rows) — the totals kept in the writes' transactions equal a
// recomputation from the movements. The sequence is random but seeded (TOTALS_SEED to replay one).
import t from 'tap'
import { accountRefKey } from '../../../src/model/account-key.js'
import { Random } from '../../../src/seed/random.js'
import { fixtures, totalsAgainstRecomputation, RECEIPT_TYPE, SALE_TYPE } from './write-helpers.js'
import { startTestService } from '../../support/test-service.js'

const client = await startTestService('writes_totals', { data: 'demo' })
t.teardown(() => client.close())
const model = client.model
const f = await fixtures(client.database.pool)
const seed = Number(process.env.TOTALS_SEED ?? 20240601)
const random = new Random(seed)
const STEPS = Number(process.env.TOTALS_STEPS ?? 120)

type Kind = 'GoodsReceipt' | 'GoodsSale'
interface Known {
  readonly kind: Kind
  readonly key: string
}
const documents: Known[] = []

// Few products and warehouses and three months, so that documents meet in the same totals rows.
const product = () => f.products[random.int(0, 3)]!
const warehouse = () => f.warehouses[random.int(0, 1)]!
const date = () =>
  `2024-0${random.int(1, 3)}-${String(random.int(1, 28)).padStart(2, '0')}T${String(random.int(0, 23)).padStart(2, '0')}:00:00Z`
const quantity = () => Number((random.int(1, 50) + random.int(0, 999) / 1000).toFixed(3))
const goods = () =>
  Array.from({ length: random.int(0, 4) }, () => ({
    Product_Key: product(),
    Quantity: quantity(),
    Price: 1,
    Amount: random.int(1, 100000) / 100,
  }))

async function expect(status: number, response: Promise<{ status: number; text: string }>, what: string): Promise<void> {
  const result = await response
  if (result.status !== status) throw new Error(`${what}: ${result.status} ${result.text.slice(0, 300)}`)
}

const operations: Record<string, () => Promise<void>> = {
  async create() {
    const kind: Kind = random.next() < 0.5 ? 'GoodsReceipt' : 'GoodsSale'
    const response = await client.send('POST', `Document_${kind}`, {
      Date: date(),
      Warehouse_Key: warehouse(),
      Counterparty_Key: f.counterparties[random.int(0, 2)],
      Organization_Key: f.organizations[0],
      Goods: goods(),
    })
    if (response.status !== 201) throw new Error(`create: ${response.status} ${response.text}`)
    documents.push({ kind, key: response.json().Ref_Key })
  },
  async post() {
    if (documents.length === 0) return
    const d = random.pick(documents)
    await expect(204, client.send('POST', `Document_${d.kind}(${d.key})/Post`), 'post')
  },
  async repost() {
    if (documents.length === 0) return
    const d = random.pick(documents)
    await expect(
      200,
      client.send('PATCH', `Document_${d.kind}(${d.key})`, { Date: date(), Warehouse_Key: warehouse(), Goods: goods() }),
      'patch',
    )
    await expect(204, client.send('POST', `Document_${d.kind}(${d.key})/Post`), 'repost')
  },
  async unpost() {
    if (documents.length === 0) return
    const d = random.pick(documents)
    await expect(204, client.send('POST', `Document_${d.kind}(${d.key})/Unpost`), 'unpost')
  },
  async delete() {
    if (documents.length === 0) return
    const index = random.int(0, documents.length - 1)
    const d = documents[index]!
    await expect(204, client.send('DELETE', `Document_${d.kind}(${d.key})`), 'delete')
    documents.splice(index, 1)
  },
  async stockRecordSet() {
    if (documents.length === 0) return
    const d = random.pick(documents)
    const records = Array.from({ length: random.int(0, 3) }, () => ({
      ...(random.next() < 0.5 ? { Period: date() } : {}),
      RecordType: random.next() < 0.5 ? 'Receipt' : 'Expense',
      Active: random.next() < 0.8,
      Warehouse_Key: warehouse(),
      Product_Key: product(),
      Quantity: quantity(),
      Amount: random.int(-1000, 1000) / 10,
    }))
    const type = d.kind === 'GoodsReceipt' ? RECEIPT_TYPE : SALE_TYPE
    await expect(
      200,
      client.send('PUT', `AccumulationRegister_Stock(Recorder=${d.key},Recorder_Type='${type}')`, { RecordSet: records }),
      'stock record set',
    )
  },
  async accountingRecordSet() {
    if (documents.length === 0) return
    const d = random.pick(documents)
    const records = Array.from({ length: random.int(0, 2) }, () => ({
      Period: date(),
      Active: random.next() < 0.9,
      AccountDr_Key: accountRefKey('Main', random.pick(['41', '51', '62'])),
      ExtDimensionDr1: product(),
      ExtDimensionDr1_Type: 'StandardODATA.Catalog_Products',
      AccountCr_Key: accountRefKey('Main', random.pick(['60', '90'])),
      Organization_Key: f.organizations[random.int(0, 1)],
      Amount: random.int(1, 100000) / 100,
      QuantityDr: quantity(),
      QuantityCr: quantity(),
    }))
    const type = d.kind === 'GoodsReceipt' ? RECEIPT_TYPE : SALE_TYPE
    await expect(
      200,
      client.send('PUT', `AccountingRegister_Main(Recorder=${d.key},Recorder_Type='${type}')`, { RecordSet: records }),
      'accounting record set',
    )
  },
}
const weights: [string, number][] = [
  ['create', 4],
  ['post', 4],
  ['repost', 3],
  ['unpost', 1],
  ['delete', 1],
  ['stockRecordSet', 2],
  ['accountingRecordSet', 1],
]
const total = weights.reduce((sum, [, w]) => sum + w, 0)

t.test(`a random sequence of ${STEPS} writes (seed ${seed}) keeps totals equal to a recomputation`, async (t) => {
  const done: Record<string, number> = {}
  for (let step = 1; step <= STEPS; step++) {
    let pick = random.next() * total
    const [name] = weights.find(([, w]) => (pick -= w) < 0) ?? weights[0]!
    await operations[name!]!()
    done[name!] = (done[name!] ?? 0) + 1
    if (step % 40 === 0 || step === STEPS) {
      // The comparison recomputes, which also resets the totals: later steps build on a clean state again.
      const { kept, recomputed } = await totalsAgainstRecomputation(client.database.pool, model)
      t.same(kept, recomputed, `after step ${step}`)
      t.ok(
        Object.values(recomputed).some((lines) => lines.length > 0),
        'the totals are not trivially empty',
      )
    }
  }
  t.ok(done.post! > 0 && done.repost! > 0 && done.stockRecordSet! > 0, `every kind of write ran: ${JSON.stringify(done)}`)
})
