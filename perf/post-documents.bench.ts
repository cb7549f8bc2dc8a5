// Posting documents of 10 rows each through the service, one document per request pair, with N parallel
// clients: each client creates a document (`POST Document_X` with its `Goods`, client-given Ref_Key) and
// posts it (`POST Document_X(…)/Post`), then takes the next. The figure is documents per second.
// Baseline, in the same run: the same rows (document, table part, movements, totals) inserted straight
// through mysql2 by N connections, one transaction per document, multi-row INSERTs, totals upserted
// from sums computed in the client — the physical limit of this database for this work. Target ≥ 0.5.
// Documents alternate between the two kinds of the demo (a sale writes three registers).
import { randomUUID } from 'node:crypto'
import net from 'node:net'
import { extDimensionColumns } from '../src/model/build-model.js'
import type { EntitySetModel, ServiceModel } from '../src/model/model.js'
import { computeMovements, postingPlan, type EntityValues, type RegisterMovements } from '../src/posting/posting-plan.js'
import { registerSetOf } from '../src/posting/movement-store.js'
import { createPool, type Pool, type PoolConnection } from '../src/store/pool.js'
import { runInTransaction } from '../src/store/transaction.js'
import { unpostDocument } from '../src/posting/post-document.js'
import { startBenchmarkServer } from '../test/support/service-child.js'
import { prepareBenchDatabase } from './support/bench-database.js'
import { printResult } from './support/report.js'
import { Statement } from '../src/statement.js'

const SECONDS = Number(process.env.BENCH_SECONDS ?? 5)
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 8)
const ROWS = 10
const MARK = 'post-documents bench'
const DOCUMENTS = ['GoodsReceipt', 'GoodsSale'] as const

const { model, pool: setupPool, address } = await prepareBenchDatabase(1)
const keysOf = async (table: string) =>
  ((await setupPool.query(`SELECT Ref_Key FROM \`${table}\``))[0] as { Ref_Key: string }[]).map((r) => r.Ref_Key)
const catalogs = {
  products: await keysOf('c_Products'),
  warehouses: await keysOf('c_Warehouses'),
  counterparties: await keysOf('c_Counterparties'),
  organizations: await keysOf('c_Организации'),
}
const pick = <T>(items: readonly T[]) => items[Math.floor(Math.random() * items.length)]!

interface BenchDocument {
  readonly kind: (typeof DOCUMENTS)[number]
  readonly ref: string
  readonly header: Record<string, string>
  readonly goods: Record<string, string>[]
}

let made = 0
function makeDocument(): BenchDocument {
  const kind = DOCUMENTS[made++ % 2]!
  const day = Math.floor(Math.random() * 730)
  const date = new Date(Date.UTC(2024, 0, 1) + day * 86_400_000 + Math.floor(Math.random() * 86_400) * 1000).toISOString().slice(0, 19)
  const header = {
    Number: `B${String(made).padStart(10, '0')}`.slice(0, 11),
    Date: date,
    Warehouse_Key: pick(catalogs.warehouses),
    Counterparty_Key: pick(catalogs.counterparties),
    Organization_Key: pick(catalogs.organizations),
    Comment: MARK,
  }
  const goods = Array.from({ length: ROWS }, () => {
    const quantity = 1 + Math.floor(Math.random() * 100)
    const price = (100 + Math.floor(Math.random() * 99_900)) / 100
    return {
      Product_Key: pick(catalogs.products),
      Quantity: quantity.toFixed(3),
      Price: price.toFixed(2),
      Amount: (quantity * price).toFixed(2),
    }
  })
  return { kind, ref: randomUUID(), header, goods }
}

// ---- the service, through HTTP ----------------------------------------------------------------------

const authorization = `Basic ${Buffer.from('bench:bench').toString('base64')}`
function httpRequest(method: string, path: string, body?: string): Buffer {
  const head = `${method} /odata/standard.odata/v4/${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\nAccept: application/json\r\n`
  if (body === undefined) return Buffer.from(`${head}Content-Length: 0\r\n\r\n`)
  return Buffer.from(`${head}Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`)
}

function documentRequests(document: BenchDocument): [Buffer, Buffer] {
  const create = JSON.stringify({
    Ref_Key: document.ref,
    ...document.header,
    Goods: document.goods.map((row) => ({ ...row, Quantity: Number(row.Quantity), Price: Number(row.Price), Amount: Number(row.Amount) })),
  })
  return [httpRequest('POST', `Document_${document.kind}`, create), httpRequest('POST', `Document_${document.kind}(${document.ref})/Post`)]
}

interface HttpRun {
  readonly documents: number
  readonly seconds: number
  readonly statuses: Record<number, number>
}

/** N keep-alive connections; each creates then posts one document at a time until the time is up. */
function runService(port: number, seconds: number): Promise<HttpRun> {
  // Inputs are built before the clock starts.
  const prepared = Array.from({ length: Math.ceil(seconds * 2000) + CLIENTS * 4 }, () => documentRequests(makeDocument()))
  let next = 0
  return new Promise((resolve, reject) => {
    const statuses: Record<number, number> = {}
    let documents = 0
    let open = 0
    const started = process.hrtime.bigint()
    const deadline = started + BigInt(Math.round(seconds * 1e9))
    for (let c = 0; c < CLIENTS; c++) {
      const socket = net.connect(port, '127.0.0.1')
      socket.setNoDelay(true)
      open++
      let buffer: Buffer = Buffer.alloc(0)
      let current: [Buffer, Buffer] | undefined
      let step = 0
      const send = () => {
        if (step === 0) {
          if (process.hrtime.bigint() >= deadline || next >= prepared.length) return socket.end()
          current = prepared[next++]!
        }
        socket.write(current![step]!)
      }
      socket.on('connect', send)
      socket.on('data', (chunk: Buffer) => {
        buffer = buffer.length === 0 ? chunk : Buffer.concat([buffer, chunk])
        for (;;) {
          const headerEnd = buffer.indexOf('\r\n\r\n')
          if (headerEnd < 0) return
          const head = buffer.subarray(0, headerEnd).toString('latin1')
          const status = Number(head.slice(9, 12))
          // A 204 has no body whatever Content-Length says (RFC 9110 §8.6).
          const length = status === 204 ? 0 : Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0)
          if (buffer.length < headerEnd + 4 + length) return
          if (status >= 300) console.error(`${status} ${buffer.subarray(headerEnd + 4, headerEnd + 4 + Math.min(length, 300)).toString()}`)
          statuses[status] = (statuses[status] ?? 0) + 1
          buffer = buffer.subarray(headerEnd + 4 + length)
          if (step === 1) documents++
          step = 1 - step
          send()
        }
      })
      socket.on('error', reject)
      socket.on('close', () => {
        if (--open === 0) resolve({ documents, seconds: Number(process.hrtime.bigint() - started) / 1e9, statuses })
      })
    }
  })
}

async function measureService(port: number): Promise<number> {
  const server = await startBenchmarkServer('key-read-servers.js', ['service', String(port)])
  const stop = () => {
    server.child.kill()
    process.exit(1)
  }
  process.once('SIGTERM', stop)
  process.once('SIGINT', stop)
  await new Promise((resolve) => setTimeout(resolve, 300))
  try {
    await runService(port, 1) // warm-up
    const run = await runService(port, SECONDS)
    const unexpected = Object.keys(run.statuses).filter((s) => s !== '201' && s !== '204')
    if (unexpected.length > 0) throw new Error(`service: unexpected statuses ${JSON.stringify(run.statuses)}`)
    return run.documents / run.seconds
  } finally {
    server.child.kill()
  }
}

// ---- the baseline: the same rows straight through mysql2 --------------------------------------------

const q = (name: string) => `\`${name}\``
const setOf = (name: string) => model.entitySetByName.get(name)!
const insertSql = (set: EntitySetModel | { table: string; columns: string[] }) => {
  const columns = 'properties' in set ? set.properties.map((p) => p.column) : set.columns
  return `INSERT INTO ${q(set.table)} (${columns.map(q).join(', ')}) VALUES ?`
}

/** Totals rows of one register's movements, summed in the client: (key columns…, resource deltas…). */
function totalsRows(
  registerSet: EntitySetModel,
  recordTypeSet: EntitySetModel,
  movements: RegisterMovements,
): { table: string; columns: string[]; keyCount: number; rows: unknown[][] } | undefined {
  const source = registerSet.source
  const index = (name: string) => recordTypeSet.properties.findIndex((p) => p.name === name)
  const month = (row: unknown[]) => `${String(row[index('Period')]).slice(0, 7)}-01`
  const sums = new Map<string, { key: unknown[]; values: number[] }>()
  const add = (key: unknown[], values: number[]) => {
    const id = JSON.stringify(key)
    const entry = sums.get(id)
    if (entry) {
      for (let i = 0; i < entry.values.length; i++) entry.values[i]! += values[i]!
    } else sums.set(id, { key, values })
  }
  if (source.type === 'accumulationRegister' && source.totalsTable) {
    for (const row of movements.rows) {
      const sign = row[index('RecordType')] === 'Receipt' ? 1 : -1
      add(
        [month(row), ...source.dimensions.map((d) => row[index(d)])],
        source.resources.map((r) => sign * Number(row[index(r)])),
      )
    }
    const columns = ['Period', ...source.dimensions, ...source.resources]
    return {
      table: source.totalsTable,
      columns,
      keyCount: columns.length - source.resources.length,
      rows: [...sums.values()].map((e) => [...e.key, ...e.values.map((v) => v.toFixed(3))]),
    }
  }
  if (source.type === 'accountingRegister') {
    const ext = extDimensionColumns('', source.maxExtDimensions)
    for (const row of movements.rows) {
      for (const side of ['Dr', 'Cr'] as const) {
        const sideExt = extDimensionColumns(side, source.maxExtDimensions)
        const key = [
          month(row),
          row[index(`Account${side}_Key`)],
          ...sideExt.flatMap((c) => [row[index(c.value)], row[index(c.type)]]),
          ...source.dimensions.map((d) => row[index(d)]),
        ]
        const values = source.resources.flatMap((r) => {
          const value = Number(row[index(recordTypeSet.propertyByName.has(r) ? r : `${r}${side}`)])
          return side === 'Dr' ? [value, 0] : [0, value]
        })
        add(key, values)
      }
    }
    const columns = [
      'Period',
      'Account_Key',
      ...ext.flatMap((c) => [c.value, c.type]),
      ...source.dimensions,
      ...source.resources.flatMap((r) => [`${r}Dr`, `${r}Cr`]),
    ]
    return {
      table: source.totalsTable,
      columns,
      keyCount: columns.length - 2 * source.resources.length,
      rows: [...sums.values()].map((e) => [...e.key, ...e.values.map((v) => v.toFixed(3))]),
    }
  }
  return undefined
}

interface DirectDocument {
  readonly statements: { sql: string; values: unknown[] }[]
}

function directDocument(document: BenchDocument): DirectDocument {
  const set = setOf(`Document_${document.kind}`)
  const goodsSet = setOf(`Document_${document.kind}_Goods`)
  const values: Record<string, unknown> = {
    Ref_Key: document.ref,
    DataVersion: 'AAAAAQAAAAA=',
    DeletionMark: 0,
    Posted: 1,
    ...document.header,
    Date: document.header.Date!.replace('T', ' '),
  }
  const goods: EntityValues[] = document.goods.map((row, i) => ({ Ref_Key: document.ref, LineNumber: i + 1, ...row }))
  const statements = [
    { sql: insertSql(set), values: [[set.properties.map((p) => values[p.name])]] },
    { sql: insertSql(goodsSet), values: [goods.map((row) => goodsSet.properties.map((p) => row[p.name]))] },
  ]
  for (const movements of computeMovements(postingPlan(model, set), { document: values, tableParts: { Goods: goods } })) {
    statements.push({ sql: insertSql(movements.recordTypeSet), values: [movements.rows] })
    const totals = totalsRows(registerSetOf(model, movements.recordTypeSet), movements.recordTypeSet, movements)
    if (totals) {
      const update = totals.columns
        .slice(totals.keyCount)
        .map((c) => `${q(c)} = ${q(c)} + VALUES(${q(c)})`)
        .join(', ')
      statements.push({
        sql: `${insertSql(totals)} ON DUPLICATE KEY UPDATE ${update}`,
        values: [totals.rows.sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1))],
      })
    }
  }
  return { statements }
}

async function runDirect(pool: Pool, seconds: number): Promise<number> {
  const prepared = Array.from({ length: Math.ceil(seconds * 3000) + CLIENTS * 4 }, () => directDocument(makeDocument()))
  let next = 0
  let documents = 0
  const started = process.hrtime.bigint()
  const deadline = started + BigInt(Math.round(seconds * 1e9))
  const worker = async () => {
    const connection: PoolConnection = await pool.getConnection()
    try {
      while (process.hrtime.bigint() < deadline && next < prepared.length) {
        const document = prepared[next++]!
        for (let attempt = 1; ; attempt++) {
          try {
            await connection.beginTransaction()
            for (const statement of document.statements) await connection.query(statement.sql, statement.values)
            await connection.commit()
            break
          } catch (error) {
            await connection.rollback()
            if ((error as { errno?: number }).errno !== 1213 || attempt >= 5) throw error
          }
        }
        documents++
      }
    } finally {
      connection.release()
    }
  }
  await Promise.all(Array.from({ length: CLIENTS }, worker))
  return documents / (Number(process.hrtime.bigint() - started) / 1e9)
}

async function measureDirect(): Promise<number> {
  const pool = createPool(address, { connectionLimit: CLIENTS })
  try {
    await runDirect(pool, 1) // warm-up
    return await runDirect(pool, SECONDS)
  } finally {
    await pool.end()
  }
}

/** Removes the documents this run made, movements and totals included, through the poster itself. */
async function cleanUp(pool: Pool, serviceModel: ServiceModel): Promise<void> {
  for (const kind of DOCUMENTS) {
    const set = setOf(`Document_${kind}`)
    const goods = setOf(`Document_${kind}_Goods`)
    const [rows] = await pool.query(`SELECT Ref_Key FROM ${q(set.table)} WHERE Comment = ?`, [MARK])
    for (const { Ref_Key: key } of rows as { Ref_Key: string }[]) {
      await runInTransaction(pool, async (transaction) => {
        await unpostDocument(transaction, serviceModel, set, key)
        await transaction.run(new Statement(`DELETE FROM ${q(goods.table)} WHERE Ref_Key = ?`, [key]))
        await transaction.run(new Statement(`DELETE FROM ${q(set.table)} WHERE Ref_Key = ?`, [key]))
      })
    }
  }
}

try {
  const direct = await measureDirect()
  const service = await measureService(18094)
  const directAgain = await measureDirect()
  const baseline = (direct + directAgain) / 2
  printResult({
    benchmark: 'post-documents',
    figure: service,
    unit: 'documents/s',
    baseline,
    baselineName: `the same rows via mysql2, one transaction per document, ${CLIENTS} connections`,
    target: 0.5,
    extra: { clients: CLIENTS, rowsPerDocument: ROWS, requestsPerDocument: 2, directRuns: [direct, directAgain] },
  })
} finally {
  await cleanUp(setupPool, model)
  await setupPool.end()
}
