// Ingest across nodes (docs/scale-out.md): the same change sets (20 documents of 5 rows, created and
// posted) through two service processes on a three-node and on a two-node MariaDB Galera cluster (each
// process preferring another node), against one process on the single server, in the same run. The figure
// is table rows per second; the ratio is against the single server.
//
// Two workloads: `hot`, every document into the same warehouse and product (every change set moves the
// same totals rows: the hot spot), and `spread`, each client its own warehouse and products. Where the
// time goes, from the servers' counters per change set: certification conflicts and brute-force aborts
// (each one a retried set), statements (each a network round trip from the service), Galera's replication
// latency (evs.repl_latency, one group round trip per commit), and InnoDB fsyncs (Innodb_data_fsyncs).
//
// Needs the cluster script (scripts/galera-cluster.sh); starts the cluster when it is not running and
// stops it again at the end, restarting node 3 when this run stopped it.
import { randomUUID } from 'node:crypto'
import mysql from 'mysql2/promise'
import { buildJsonBatch, type OperationSpec } from '../src/tools/shared/batch-body.js'
import { clusterCommand, ensureCluster, NODE_PORTS, sendBatch, startService, type ServiceProcess } from '../test/cluster/cluster-support.js'
import { printResult } from './support/report.js'

const CLIENTS = 4
const BATCHES_PER_CLIENT = Number(process.env.BENCH_BATCHES ?? 5)
const DOCUMENTS_PER_BATCH = 20
const ROWS_PER_DOCUMENT = 5
const SINGLE = { host: '127.0.0.1', port: 3306 }
const DATABASE = 'odata_bench_scale_out'

type Workload = 'hot' | 'spread'

interface Counters {
  readonly conflicts: number
  readonly statements: number
  readonly fsyncs: number
  readonly replLatencyMs: number
}

async function counters(port: number): Promise<Counters> {
  const connection = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' })
  const [rows] = (await connection.query(
    "SHOW GLOBAL STATUS WHERE Variable_name IN ('wsrep_local_cert_failures', 'wsrep_local_bf_aborts', 'Questions', 'Innodb_data_fsyncs', 'wsrep_evs_repl_latency')",
  )) as unknown as [{ Variable_name: string; Value: string }[]]
  await connection.end()
  const value = (name: string) => rows.find((r) => r.Variable_name === name)?.Value ?? '0'
  return {
    conflicts: Number(value('wsrep_local_cert_failures')) + Number(value('wsrep_local_bf_aborts')),
    statements: Number(value('Questions')),
    fsyncs: Number(value('Innodb_data_fsyncs')),
    // min/avg/max/stddev/samples in seconds, over the last evs.stats_report_period
    replLatencyMs: Number(value('wsrep_evs_repl_latency').split('/')[1] ?? 0) * 1000,
  }
}

async function freshDatabase(port: number): Promise<void> {
  const connection = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' })
  await connection.query(`DROP DATABASE IF EXISTS ${DATABASE}`)
  await connection.query(`CREATE DATABASE ${DATABASE} CHARACTER SET utf8mb4 COLLATE utf8mb4_bin`)
  await connection.end()
}

async function dropDatabase(port: number): Promise<void> {
  const connection = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root' })
  await connection.query(`DROP DATABASE IF EXISTS ${DATABASE}`)
  await connection.end()
}

interface Catalog {
  readonly warehouses: string[]
  readonly products: string[]
  readonly counterparty: string
  readonly organization: string
}

/** The seed's catalog entries and a warehouse and five products more per client (for `spread`). */
async function catalog(port: number): Promise<Catalog> {
  const connection = await mysql.createConnection({ host: '127.0.0.1', port, user: 'root', database: DATABASE })
  for (let c = 0; c < CLIENTS; c++) {
    await connection.query("INSERT INTO c_Warehouses (Ref_Key, DataVersion, Code, Description) VALUES (?, '1', ?, 'bench')", [
      randomUUID(),
      `W${c}`,
    ])
    for (let p = 0; p < 5; p++)
      await connection.query(
        "INSERT INTO c_Products (Ref_Key, Code, Description, Article, Unit, DataVersion) VALUES (?, ?, 'bench', '', '', '1')",
        [randomUUID(), `P${c}-${p}`],
      )
  }
  const keys = async (table: string) =>
    ((await connection.query(`SELECT Ref_Key FROM \`${table}\` ORDER BY Code`))[0] as { Ref_Key: string }[]).map((r) => r.Ref_Key)
  const result = {
    warehouses: await keys('c_Warehouses'),
    products: await keys('c_Products'),
    counterparty: (await keys('c_Counterparties'))[0]!,
    organization: (await keys('c_Организации'))[0]!,
  }
  await connection.end()
  return result
}

function batch(keys: Catalog, workload: Workload, client: number) {
  const creates: OperationSpec[] = []
  const posts: OperationSpec[] = []
  for (let d = 0; d < DOCUMENTS_PER_BATCH; d++) {
    const warehouse = workload === 'hot' ? keys.warehouses[0]! : keys.warehouses[1 + (client % (keys.warehouses.length - 1))]!
    const product = (i: number) =>
      workload === 'hot' ? keys.products[0]! : keys.products[1 + ((client * 5 + i) % (keys.products.length - 1))]!
    creates.push({
      id: `c${d}`,
      method: 'POST',
      url: 'Document_GoodsReceipt',
      headers: { 'Content-Type': 'application/json' },
      body: {
        Number: `S${d}`,
        Date: '2026-03-10T10:00:00Z',
        Warehouse_Key: warehouse,
        Counterparty_Key: keys.counterparty,
        Organization_Key: keys.organization,
        Goods: Array.from({ length: ROWS_PER_DOCUMENT }, (_, i) => ({ Product_Key: product(i), Quantity: 2, Price: 3, Amount: 6 })),
      },
      atomicityGroup: 'g',
    })
    posts.push({ id: `p${d}`, method: 'POST', url: `$c${d}/Post`, atomicityGroup: 'g' })
  }
  return buildJsonBatch([...creates, ...posts])
}

interface Measured {
  readonly rowsPerSecond: number
  readonly msPerBatch: number
  readonly conflictsPerBatch: number
  readonly statementsPerBatch: number
  readonly fsyncsPerBatchPerNode: number
  readonly replLatencyMs: number
  readonly retriedByClient: number
}

/** Runs the workload through `processes` (clients spread over them) and reads the nodes' counters around it. */
async function measure(
  processes: readonly ServiceProcess[],
  nodePorts: readonly number[],
  keys: Catalog,
  workload: Workload,
): Promise<Measured> {
  const before = await Promise.all(nodePorts.map(counters))
  let retried = 0
  const started = process.hrtime.bigint()
  await Promise.all(
    Array.from({ length: CLIENTS }, async (_, client) => {
      const port = processes[client % processes.length]!.port
      for (let b = 0; b < BATCHES_PER_CLIENT; b++) {
        const body = batch(keys, workload, client)
        for (let attempt = 1; ; attempt++) {
          const response = await sendBatch(port, body)
          const failed = response.status !== 200 || /"status":[45]\d\d/.test(response.text)
          if (!failed) break
          // A 503 (the set rolled back whole) is sent again, as a client would; anything else stops the run.
          const unavailable = response.status === 503 || /"status":503/.test(response.text)
          if (!unavailable || attempt >= 10) throw new Error(`batch failed: ${response.status} ${response.text.slice(0, 300)}`)
          await new Promise((resolve) => setTimeout(resolve, 200))
          retried++
        }
      }
    }),
  )
  const seconds = Number(process.hrtime.bigint() - started) / 1e9
  const after = await Promise.all(nodePorts.map(counters))
  const batches = CLIENTS * BATCHES_PER_CLIENT
  const sum = (pick: (c: Counters) => number) => after.reduce((total, c, i) => total + pick(c) - pick(before[i]!), 0)
  return {
    rowsPerSecond: (batches * DOCUMENTS_PER_BATCH * ROWS_PER_DOCUMENT) / seconds,
    msPerBatch: (seconds * 1000) / batches,
    conflictsPerBatch: sum((c) => c.conflicts) / batches,
    statementsPerBatch: sum((c) => c.statements) / batches,
    fsyncsPerBatchPerNode: sum((c) => c.fsyncs) / batches / nodePorts.length,
    replLatencyMs: after.reduce((total, c) => total + c.replLatencyMs, 0) / after.length,
    retriedByClient: retried,
  }
}

async function runConfiguration(name: string, urls: string[], nodePorts: readonly number[]): Promise<Record<Workload, Measured>> {
  await freshDatabase(nodePorts[0]!)
  // The first process migrates and seeds; the others find the schema and the seed in place.
  const processes = [await startService(urls[0]!)]
  for (const url of urls.slice(1)) processes.push(await startService(url))
  try {
    const keys = await catalog(nodePorts[0]!)
    // One warm-up batch per process (connections, prepared plans), not measured.
    await Promise.all(processes.map((p, i) => sendBatch(p.port, batch(keys, 'spread', i))))
    const result = { hot: await measure(processes, nodePorts, keys, 'hot'), spread: await measure(processes, nodePorts, keys, 'spread') }
    for (const workload of ['hot', 'spread'] as const) {
      const m = result[workload]
      console.log(
        `${name} ${workload}: ${m.rowsPerSecond.toFixed(0)} rows/s, ${m.msPerBatch.toFixed(0)} ms per change set, ${m.conflictsPerBatch.toFixed(2)} conflicts, ${m.statementsPerBatch.toFixed(0)} statements, ${m.fsyncsPerBatchPerNode.toFixed(1)} fsyncs per node, replication latency ${m.replLatencyMs.toFixed(2)} ms, ${m.retriedByClient} sent again by clients`,
      )
    }
    return result
  } finally {
    for (const p of processes) await p.stop()
    await dropDatabase(nodePorts[0]!)
  }
}

const url = (ports: readonly number[]) => `mysql://root@${ports.map((port) => `127.0.0.1:${port}`).join(',')}/${DATABASE}`

const cluster = ensureCluster(3)
if (cluster.unavailable !== undefined) {
  console.log(`scale-out: skipped, ${cluster.unavailable}`)
  process.exit(0)
}
const [n1, n2, n3] = NODE_PORTS as [number, number, number]
try {
  const single = await runConfiguration('single server, one process', [url([SINGLE.port])], [SINGLE.port])
  const three = await runConfiguration('three nodes, two processes', [url([n1, n2, n3]), url([n2, n3, n1])], [n1, n2, n3])
  if (!clusterCommand('stop-node', '3').ok) throw new Error('could not stop node 3')
  const two = await runConfiguration('two nodes, two processes', [url([n1, n2]), url([n2, n1])], [n1, n2])
  clusterCommand('start-node', '3')
  for (const workload of ['hot', 'spread'] as const) {
    for (const [name, measured] of [
      ['two-node', two],
      ['three-node', three],
    ] as const) {
      printResult({
        benchmark: `scale-out ingest, ${name} cluster, ${workload} keys`,
        figure: measured[workload].rowsPerSecond,
        unit: 'rows/s',
        baseline: single[workload].rowsPerSecond,
        baselineName: 'one process, single server',
        extra: { cluster: measured[workload], single: single[workload] },
      })
    }
  }
} finally {
  cluster.stop()
}
