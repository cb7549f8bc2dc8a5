// What the loader tests share: input files in a directory of their own, the demo's catalogs with codes,
// receipts referring to them by code, the reject file as read back, and the check that a load left each
// row exactly once (documents, table rows, movements; totals equal to a recomputation).
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Test } from 'tap'
import type { Pool } from '../../src/store/pool.js'
import { runCli } from './run-cli.js'
import { totalsAndRecomputation } from './totals-snapshot.js'

export const dir = mkdtempSync(join(tmpdir(), 'odata-load-'))
export const file = (name: string, text: string) => {
  writeFileSync(join(dir, name), text)
  return join(dir, name)
}
export const ndjson = (rows: unknown[]) => `${rows.map((r) => (typeof r === 'string' ? r : JSON.stringify(r))).join('\n')}\n`

/** The service to load into, and a checkpoint and reject file of the test's own, named after `name`. */
export function loadFlags(root: string, name: string): string[] {
  return [
    '--url',
    root,
    '--token',
    'bench-token',
    '--checkpoint',
    join(dir, `${name}.checkpoint`),
    '--rejects',
    join(dir, `${name}.rejects`),
  ]
}

/** Catalog_Products from a CSV of `code,name,article`. */
export const PRODUCT_FLAGS = ['--set', 'Catalog_Products', '--map', 'code=Code', '--map', 'name=Description', '--map', 'article=Article']

/** Exit code 0; what the tool wrote on stderr only when not. */
export function exitedCleanly(t: Test, run: { code: number | null; stderr: string }): void {
  t.equal(run.code, 0, 'the command exits 0')
  if (run.code !== 0) t.comment(run.stderr.slice(-3000))
}

export async function count(pool: Pool, sql: string, values: unknown[] = []): Promise<number> {
  const [[row]] = (await pool.query(sql, values)) as unknown as [[{ n: number | string }]]
  return Number(row.n)
}

export function rejectsOf(path: string): { source: string; row: number; status: number; code: string }[] {
  if (!existsSync(path)) return []
  return readFileSync(path, 'utf8')
    .trim()
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l))
    .map((r) => ({ source: r.source, row: r.row, status: r.status, code: r.code }))
}

/** Catalogs with codes, for the documents to refer to (W1, W2; P1..P3; C1; O1). */
export function catalogFiles() {
  return [
    {
      path: file('warehouses.csv', 'code,name\nW1,North\nW2,South\n'),
      set: 'Catalog_Warehouses',
      columns: { code: 'Code', name: 'Description' },
    },
    {
      path: file('products.csv', 'code,name,article,unit\nP1,Bolt,A-1,pcs\nP2,Nut,A-2,pcs\nP3,Washer,A-3,pcs\n'),
      set: 'Catalog_Products',
      columns: { code: 'Code', name: 'Description', article: 'Article', unit: 'Unit' },
    },
    {
      path: file('counterparties.ndjson', ndjson([{ Code: 'C1', Description: 'Acme', TaxId: '7700000001' }])),
      set: 'Catalog_Counterparties',
    },
    { path: file('organizations.ndjson', ndjson([{ Code: 'O1', Description: 'Us' }])), set: 'Catalog_Организации' },
  ]
}

export function receipt(number: string, warehouse: string, goods: [string, number, number][]) {
  return {
    Number: number,
    Date: '2025-03-01T10:00:00Z',
    Warehouse: warehouse,
    Counterparty: 'C1',
    Organization: 'O1',
    Comment: 'load',
    Goods: goods.map(([p, q, price]) => ({ Product: p, Quantity: q, Price: price, Amount: q * price })),
  }
}

export function receiptsFile(name: string, n: number, lines: number): string {
  const products = ['P1', 'P2', 'P3']
  return file(
    name,
    ndjson(
      Array.from({ length: n }, (_, i) =>
        receipt(
          `R${i + 1}`,
          i % 2 ? 'W1' : 'W2',
          Array.from({ length: lines }, (_, j) => [products[(i + j) % 3]!, j + 1, 2] as [string, number, number]),
        ),
      ),
    ),
  )
}

export async function loadCatalogs(root: string): Promise<void> {
  const mapping = file(`catalogs-${Math.random().toString(36).slice(2)}.json`, JSON.stringify({ files: catalogFiles() }))
  const run = await runCli(['load', '--mapping', mapping, '--url', root, '--token', 'bench-token']).done
  if (run.code !== 0) throw new Error(`loading the catalogs failed: ${run.stderr}`)
}

/** Waits until the checkpoint has at least `lines` answered change sets. */
export async function untilAcknowledged(path: string, lines: number, done: Promise<unknown>): Promise<void> {
  let finished = false
  void done.then(() => (finished = true))
  for (;;) {
    if (finished) throw new Error('the load finished before it could be interrupted')
    if (
      existsSync(path) &&
      readFileSync(path, 'utf8')
        .split('\n')
        .filter((l) => l.startsWith('A\t')).length >= lines
    )
      return
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** Every receipt once, posted, its movements once, the totals equal to a recomputation. */
export async function exactlyOnce(t: Test, pool: Pool, n: number, lines: number): Promise<void> {
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt'), n, 'each document once')
  t.equal(await count(pool, 'SELECT COUNT(DISTINCT Number) AS n FROM d_GoodsReceipt'), n)
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt WHERE Posted = 1'), n, 'each posted')
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM d_GoodsReceipt__Goods'), n * lines, 'each table row once')
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM ar_Stock'), n * lines, 'each movement once')
  t.equal(await count(pool, 'SELECT COUNT(*) AS n FROM acr_Main'), n * lines)
  const { kept, recomputed } = await totalsAndRecomputation(pool)
  t.same(kept, recomputed, 'the totals equal a recomputation')
}
