// What the cluster tests share: the Galera cluster of scripts/galera-cluster.sh (nodes on 3311-3313), a
// database of the test's own on it, service processes (`build/src/cli.js serve`) each listing the nodes in
// its own order of preference, batches of posted documents into the same register keys, and the checks
// made on every node (totals against a recomputation from the movements, the nodes against each other).
import { spawnSync, type ChildProcess } from 'node:child_process'
import { availableParallelism } from 'node:os'
import mysql, { type Connection } from 'mysql2/promise'
import type { ServiceModel } from '../../src/model/model.js'
import { recomputeTotalsStatements } from '../../src/store/totals.js'
import { buildJsonBatch, type OperationSpec } from '../../src/tools/shared/batch-body.js'
import { rawRequest, startTestService, type TestResponse } from '../support/test-service.js'

export const NODE_PORTS = [3311, 3312, 3313]
const SCRIPT = 'scripts/galera-cluster.sh'

export function clusterCommand(...args: string[]): { ok: boolean; output: string } {
  const run = spawnSync('bash', [SCRIPT, ...args], { encoding: 'utf8' })
  return { ok: run.status === 0, output: `${run.stdout ?? ''}${run.stderr ?? ''}`.trim() }
}

function readyNodes(): number {
  return (clusterCommand('status').output.match(/wsrep_ready=ON/g) ?? []).length
}

/**
 * Makes sure `nodes` nodes run; `unavailable` is the one-line reason when the cluster cannot be had here.
 * `stop()` stops the cluster only when this call started it.
 */
export function ensureCluster(nodes: number): { unavailable?: string; stop(): void } {
  if (readyNodes() >= nodes) return { stop: () => undefined }
  const started = clusterCommand('start', String(nodes))
  if (!started.ok) {
    const reason =
      started.output
        .split('\n')
        .filter((line) => line.trim() !== '')
        .pop() ?? 'the cluster script failed'
    clusterCommand('stop')
    return { unavailable: reason, stop: () => undefined }
  }
  return { stop: () => void clusterCommand('stop') }
}

export function nodeConnection(node: number, database?: string): Promise<Connection> {
  return mysql.createConnection({
    host: '127.0.0.1',
    port: NODE_PORTS[node - 1]!,
    user: 'root',
    database,
    charset: 'utf8mb4_bin',
    dateStrings: true,
    supportBigNumbers: true,
    bigNumberStrings: true,
  })
}

/** A fresh database named after the test, created through node 1 (DDL replicates in total order). */
export async function freshDatabase(name: string): Promise<string> {
  const suffix = (process.env.TEST_DATABASE_SUFFIX ?? '').replace(/[^A-Za-z0-9_]/g, '_')
  const database = `odata_test_cluster_${name}${suffix}`.slice(0, 64)
  const admin = await nodeConnection(1)
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``)
  await admin.query(`CREATE DATABASE \`${database}\` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`)
  await admin.end()
  return database
}

export async function dropDatabase(database: string): Promise<void> {
  const admin = await nodeConnection(1).catch(() => nodeConnection(2))
  await admin.query(`DROP DATABASE IF EXISTS \`${database}\``)
  await admin.end()
}

/** DATABASE_URL listing the nodes in the given order (the first is the one preferred). */
export function clusterUrl(database: string, order: readonly number[]): string {
  return `mysql://root@${order.map((node) => `127.0.0.1:${NODE_PORTS[node - 1]}`).join(',')}/${database}`
}

export interface ServiceProcess {
  readonly port: number
  readonly child: ChildProcess
  stop(): Promise<void>
}

/** `build/src/cli.js serve` on a free port against the nodes in `order`; resolves when it listens. */
export function startServiceProcess(database: string, order: readonly number[]): Promise<ServiceProcess> {
  return startService(clusterUrl(database, order))
}

/** `build/src/cli.js serve` on a free port against DATABASE_URL `url` (demo configuration, seed scale 0). */
export async function startService(url: string): Promise<ServiceProcess> {
  // As many workers as the machine has processors: the service's own default.
  const environment = { LOG_LEVEL: 'silent', WORKERS: String(availableParallelism()) }
  const service = await startTestService('cluster', { process: 'child', database: url, environment })
  return { port: service.port, child: service.child, stop: () => service.stop('SIGTERM') }
}

export interface CatalogKeys {
  readonly warehouse: string
  readonly product: string
  readonly counterparty: string
  readonly organization: string
}

export async function catalogKeys(database: string): Promise<CatalogKeys> {
  const connection = await nodeConnection(1, database)
  try {
    return await catalogKeysFrom(connection)
  } finally {
    await connection.end()
  }
}

/** The first warehouse, product, counterparty and organisation by code, read through any connection or pool. */
export async function catalogKeysFrom(source: Pick<Connection, 'query'>): Promise<CatalogKeys> {
  const first = async (table: string) =>
    ((await source.query(`SELECT Ref_Key FROM \`${table}\` ORDER BY Code LIMIT 1`))[0] as { Ref_Key: string }[])[0]!.Ref_Key
  return {
    warehouse: await first('c_Warehouses'),
    product: await first('c_Products'),
    counterparty: await first('c_Counterparties'),
    organization: await first('c_Организации'),
  }
}

export interface PlannedDocument {
  readonly key: string
  readonly kind: 'GoodsReceipt' | 'GoodsSale'
  readonly quantity: number
  readonly rows: number
}

/** A deterministic document key: batch b, document d of client c. */
export function documentKey(client: number, batch: number, document: number): string {
  const hex = (n: number, width: number) => n.toString(16).padStart(width, '0')
  return `c1c1c1c1-${hex(client, 4)}-4${hex(batch, 3)}-8${hex(document, 3)}-000000000000`
}

/**
 * One change set: creates with client-given keys (`If-None-Match: *`, so a repeat after an unknown
 * outcome cannot create twice) and their Posts, every document into the same warehouse and product.
 */
export function postingBatch(keys: CatalogKeys, documents: readonly PlannedDocument[]): { body: Buffer; contentType: string } {
  const creates: OperationSpec[] = []
  const posts: OperationSpec[] = []
  documents.forEach((document, i) => {
    creates.push({
      id: `c${i}`,
      method: 'POST',
      url: `Document_${document.kind}`,
      headers: { 'Content-Type': 'application/json', 'If-None-Match': '*' },
      body: {
        Ref_Key: document.key,
        Number: `CL-${i}`,
        Date: '2026-03-10T10:00:00Z',
        Warehouse_Key: keys.warehouse,
        Counterparty_Key: keys.counterparty,
        Organization_Key: keys.organization,
        Goods: Array.from({ length: document.rows }, () => ({
          Product_Key: keys.product,
          Quantity: document.quantity,
          Price: 2,
          Amount: document.quantity * 2,
        })),
      },
      atomicityGroup: 'g',
    })
    posts.push({ id: `p${i}`, method: 'POST', url: `$c${i}/Post`, atomicityGroup: 'g' })
  })
  return buildJsonBatch([...creates, ...posts])
}

export const TOKEN = 'demo-token'

export function sendBatch(port: number, batch: { body: Buffer; contentType: string }): Promise<TestResponse> {
  return rawRequest(port, 'POST', '/api/v4/$batch', {
    headers: { Authorization: `Bearer ${TOKEN}`, 'Content-Type': batch.contentType, 'Content-Length': String(batch.body.length) },
    body: batch.body,
  })
}

export interface BatchOutcome {
  /** 'committed': every operation succeeded; 'present': a create answered 412, the set was applied by an earlier attempt; 'retry': 503 with Retry-After, whole or of the set. */
  readonly kind: 'committed' | 'present' | 'retry' | 'failed'
  readonly statuses: number[]
  readonly retryAfter?: string
  readonly detail: string
}

/** What a client makes of a batch answer. */
export function readOutcome(response: TestResponse): BatchOutcome {
  if (response.status === 503)
    return {
      kind: 'retry',
      statuses: [503],
      retryAfter: String(response.headers['retry-after'] ?? ''),
      detail: response.text.slice(0, 300),
    }
  if (response.status !== 200) return { kind: 'failed', statuses: [response.status], detail: response.text.slice(0, 300) }
  const items = response.json().responses as { status: number; headers?: Record<string, string>; body?: { error?: { code: string } } }[]
  const statuses = items.map((item) => item.status)
  // The failures that say why, not the 424s of the operations that followed them.
  const detail = JSON.stringify(
    items
      .filter((item) => item.status >= 400 && item.status !== 424)
      .map((item) => ({ status: item.status, code: item.body?.error?.code })),
  ).slice(0, 300)
  if (statuses.every((status) => status < 400)) return { kind: 'committed', statuses, detail }
  if (statuses.some((status) => status >= 500 && status !== 503)) return { kind: 'failed', statuses, detail }
  const unavailable = items.find((item) => item.status === 503)
  if (unavailable)
    return { kind: 'retry', statuses, retryAfter: unavailable.headers?.['Retry-After'] ?? unavailable.headers?.['retry-after'], detail }
  if (items[0]?.status === 412) return { kind: 'present', statuses, detail }
  return { kind: 'failed', statuses, detail }
}

/** Galera status counters of a node (certification failures, brute-force aborts). */
export async function conflictCounters(node: number): Promise<number> {
  const connection = await nodeConnection(node)
  const [rows] = (await connection.query(
    "SHOW STATUS WHERE Variable_name IN ('wsrep_local_cert_failures', 'wsrep_local_bf_aborts')",
  )) as unknown as [{ Value: string }[]]
  await connection.end()
  return rows.reduce((sum, row) => sum + Number(row.Value), 0)
}

export interface NodeState {
  /** Every totals table: its rows (non-zero) as sorted text. */
  readonly totals: Record<string, string[]>
  /** The same tables as a recomputation from the movements would make them (read only, nothing written). */
  readonly recomputed: Record<string, string[]>
  readonly documents: number
  readonly postedDocuments: number
  readonly goodsRows: number
  readonly movements: number
  readonly rateOperations: number
  /** The rate rule's windows the counters have a row for (one per rule and window). */
  readonly rateWindows: number
  readonly batchLogEntries: number
}

const rowsText = (rows: unknown[][], keyColumns: number) =>
  rows
    .filter((row) => row.slice(keyColumns).some((value) => Number(value) !== 0))
    .map((row) =>
      row.map((value) => (value === null ? 'null' : /^-?\d+\.\d+$/.test(String(value)) ? String(Number(value)) : String(value))).join('|'),
    )
    .sort()

/** Reads a node's state after waiting for it to apply everything committed before (wsrep_sync_wait). */
export async function nodeState(node: number, database: string, model: ServiceModel): Promise<NodeState> {
  const connection = await nodeConnection(node, database)
  try {
    await connection.query('SET SESSION wsrep_sync_wait = 1')
    const one = async (sql: string) => Number(Object.values(((await connection.query(sql))[0] as Record<string, unknown>[])[0]!)[0] ?? 0)
    const totals: Record<string, string[]> = {}
    const recomputed: Record<string, string[]> = {}
    for (const statement of recomputeTotalsStatements(model)) {
      const insert = /^INSERT INTO (`[^`]+`) \(([^)]*)\) (SELECT[\s\S]*)$/.exec(statement.text)
      if (!insert) continue
      const [, table, columns, select] = insert
      // Resources are the Quantity… and Amount… columns of the demo's registers; the rest is the key.
      const keyColumns = columns!.split(',').filter((c) => !/^(Quantity|Amount)/.test(c.trim().replace(/`/g, ''))).length
      totals[table!] = rowsText(
        (await connection.query({ sql: `SELECT ${columns} FROM ${table}`, rowsAsArray: true }))[0] as unknown[][],
        keyColumns,
      )
      recomputed[table!] = rowsText(
        (await connection.query({ sql: select!, rowsAsArray: true }, [...statement.parameters]))[0] as unknown[][],
        keyColumns,
      )
    }
    return {
      totals,
      recomputed,
      documents: (await one('SELECT COUNT(*) FROM d_GoodsReceipt')) + (await one('SELECT COUNT(*) FROM d_GoodsSale')),
      postedDocuments:
        (await one('SELECT COUNT(*) FROM d_GoodsReceipt WHERE Posted = 1')) +
        (await one('SELECT COUNT(*) FROM d_GoodsSale WHERE Posted = 1')),
      goodsRows: (await one('SELECT COUNT(*) FROM d_GoodsReceipt__Goods')) + (await one('SELECT COUNT(*) FROM d_GoodsSale__Goods')),
      movements: await one('SELECT COUNT(*) FROM ar_Stock'),
      rateOperations: await one("SELECT COALESCE(SUM(operations), 0) FROM _rate_counters WHERE subject = 'demo'"),
      rateWindows: await one("SELECT COUNT(*) FROM _rate_counters WHERE subject = 'demo'"),
      batchLogEntries: await one("SELECT COUNT(*) FROM request_log WHERE url LIKE '%$batch%'"),
    }
  } finally {
    await connection.end()
  }
}

/** A bounded pause. */
export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
