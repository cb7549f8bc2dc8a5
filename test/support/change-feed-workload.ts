// The workload of the change-tracking property test (docs/change-tracking.md), shared by the single-server
// test (test/read/change-tracking-concurrency.test.ts) and the cluster one (test/cluster/change-feed.cluster.ts):
// writers of every kind — single creates, batch change sets (coalesced creates and posts), re-posts with
// other lines, unposts, deletes, record-set replacements, information register writes and deletes,
// catalog renames — each a seeded sequence on documents of its own, and the sets a reader tracks.
import { buildMultipartBatch } from '../../src/tools/shared/batch-body.js'
import { seededRandom } from '../../src/seed/random.js'
import type { TestResponse } from './test-service.js'

/** A request to the service, as the demo subject: `path` relative to the reference root unless it starts with `/`. */
export type Send = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => Promise<TestResponse>
/** A `$batch` to the demo token's root. */
export type SendBatch = (contentType: string, body: Buffer) => Promise<TestResponse>

export interface TrackedSet {
  readonly path: string
  readonly key: readonly string[]
}

export interface ChangeFeedWorkload {
  /** The tracked sets, each with its key, as the reader follows them. */
  readonly tracked: readonly TrackedSet[]
  /** One writer: `operations` seeded writes of every kind, through `send`/`sendBatch` (which may differ per writer). */
  writer(index: number, operations: number, send: Send, sendBatch: SendBatch): Promise<void>
}

/** Makes the catalogs the writers use (through `send`) and returns the workload. */
export async function changeFeedWorkload(seed: number, send: Send): Promise<ChangeFeedWorkload> {
  async function create(set: string, body: Record<string, unknown>, through: Send = send): Promise<string> {
    const response = await through('POST', encodeURIComponent(set), body)
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
  const TRACKED: TrackedSet[] = [
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
  async function writer(index: number, operations: number, send: Send, sendBatch: SendBatch): Promise<void> {
    const random = seededRandom(seed * 100 + index)
    const mine: string[] = []
    const pick = () => mine[Math.floor(random() * mine.length)]
    for (let step = 0; step < operations; step++) {
      const choice = mine.length === 0 ? 0 : Math.floor(random() * 9)
      switch (choice) {
        case 0: {
          const key = await create('Document_GoodsReceipt', receipt(random), send)
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
          const answer = await sendBatch(batch.contentType, batch.body)
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

  return { tracked: TRACKED, writer }
}
