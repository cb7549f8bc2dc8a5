// Seeded fuzzing of the loader against the real service and MariaDB: documents written as NDJSON (receipts)
// and as a header CSV with a lines CSV in shuffled order (sales), with random rows damaged — a quote cut into
// a field, a field dropped or added, invalid UTF-8, a NUL, a field or a whole row past the limits, a JSON
// line cut short. Afterwards every document is either in the database exactly once and whole (its lines, its
// quantities, posted, its movements) or named in the reject file, and the totals equal a recomputation.
// FUZZ_SCALE multiplies the rounds (`make fuzz` runs 50 times the suite's slice); a failure names its seed.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import type { LoadSummary } from '../../src/tools/load/run-load.js'
import { dir, exitedCleanly, loadCatalogs } from '../support/load-fixtures.js'
import { runCli, summaryOf } from '../support/run-cli.js'
import { seededRandom } from '../../src/seed/random.js'
import { startTestService } from '../support/test-service.js'
import { totalsAndRecomputation } from '../support/totals-snapshot.js'

const ROUNDS = 2 * Number(process.env.FUZZ_SCALE ?? 1)
const DOCUMENTS = 24
const LIMITS = ['--max-record-bytes', '3000', '--max-field-bytes', '1000']

interface Document {
  number: string
  warehouse: string
  lines: { product: string; quantity: number }[]
}

type Random = () => number
const pick = <T>(random: Random, list: readonly T[]): T => list[Math.floor(random() * list.length)]!

function documents(random: Random, prefix: string): Document[] {
  return Array.from({ length: DOCUMENTS }, (_, i) => ({
    number: `${prefix}${i + 1}`,
    warehouse: pick(random, ['W1', 'W2']),
    lines: Array.from({ length: 1 + Math.floor(random() * 4) }, () => ({
      product: pick(random, ['P1', 'P2', 'P3']),
      quantity: 1 + Math.floor(random() * 9),
    })),
  }))
}

/** One CSV record's fields, damaged so that it cannot load (the first `keep` fields left as they are). */
function damageCsv(random: Random, fields: string[], keep: number): Buffer {
  const at = keep + Math.floor(random() * (fields.length - keep))
  const out = fields.map((f) => Buffer.from(f))
  switch (pick(random, ['quote', 'fewer', 'more', 'utf8', 'nul', 'long-field', 'long-row'])) {
    case 'quote':
      out[at] = Buffer.from(`"${fields[at]}`)
      break
    case 'fewer':
      out.splice(at, 1)
      break
    case 'more':
      out.splice(at, 0, Buffer.from('extra'))
      break
    case 'utf8':
      out[at] = Buffer.concat([out[at]!, Buffer.from([0xff, 0xfe])])
      break
    case 'nul':
      out[at] = Buffer.concat([out[at]!, Buffer.from([0])])
      break
    case 'long-field':
      out[at] = Buffer.from(`${fields[at]}${'y'.repeat(1500)}`)
      break
    case 'long-row':
      out[at] = Buffer.from(`"${fields[at]}${'z'.repeat(900)}\n${'z'.repeat(900)}\n${'z'.repeat(1500)}"`)
      break
  }
  return Buffer.concat(out.flatMap((f, i) => (i === 0 ? [f] : [Buffer.from(','), f])))
}

function damageJson(random: Random, line: string): Buffer {
  switch (pick(random, ['cut', 'utf8', 'nul', 'long-field', 'long-line', 'not-object'])) {
    case 'cut':
      return Buffer.from(line.slice(0, 1 + Math.floor(random() * (line.length - 2))))
    case 'utf8':
      return Buffer.from(line.replace('"Comment":"', '"Comment":"\u0001').replace('\u0001', ''), 'utf8').fill(0xff, 20, 21)
    case 'nul':
      return Buffer.from(line.replace('"Comment":"', '"Comment":"\\u0000'))
    case 'long-field':
      return Buffer.from(line.replace('"Comment":"', `"Comment":"${'y'.repeat(1500)}`))
    case 'long-line':
      return Buffer.from(line.replace('"Comment":"', `"Comment":"${'y'.repeat(900)}","Extra":"${'z'.repeat(2500)}`))
    default:
      return Buffer.from(`[${line}]`)
  }
}

const lines = (records: Buffer[]) => Buffer.concat(records.flatMap((r) => [r, Buffer.from('\n')]))

t.test('damaged CSV and NDJSON inputs: every document in the database once and whole, or in the reject file', async (t) => {
  const service = await startTestService('tools_load_fuzz')
  t.teardown(() => service.close())
  const root = `http://127.0.0.1:${service.port}/api/v4/`
  await loadCatalogs(root)
  const pool = service.database.pool
  for (let round = 1; round <= ROUNDS; round++) {
    const seed = 2400 + round
    const random = seededRandom(seed)
    const damaged = () => random() < 0.2

    // Receipts as NDJSON.
    const receipts = documents(random, `R${round}x`)
    const receiptLines = receipts.map((d) => {
      const line = JSON.stringify({
        Number: d.number,
        Date: '2025-05-01T10:00:00Z',
        Warehouse: d.warehouse,
        Counterparty: 'C1',
        Organization: 'O1',
        Comment: 'fuzz',
        Goods: d.lines.map((l) => ({ Product: l.product, Quantity: l.quantity, Price: 2, Amount: l.quantity * 2 })),
      })
      return damaged() ? damageJson(random, line) : Buffer.from(line)
    })
    // Sales as a header CSV and a lines CSV, the lines shuffled; damage never touches a line's number (the join).
    const sales = documents(random, `S${round}x`)
    const headers: Buffer[] = [Buffer.from('number,date,warehouse,counterparty,organization,comment')]
    for (const d of sales) {
      const fields = [d.number, '2025-05-02T10:00:00Z', d.warehouse, 'C1', 'O1', 'fuzz']
      headers.push(damaged() ? damageCsv(random, fields, 1) : Buffer.from(fields.join(',')))
    }
    const saleLines = sales.flatMap((d) =>
      d.lines.map((l) => {
        const fields = [d.number, l.product, String(l.quantity), '2', String(l.quantity * 2)]
        return random() < 0.05 ? damageCsv(random, fields, 1) : Buffer.from(fields.join(','))
      }),
    )
    for (let i = saleLines.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1))
      ;[saleLines[i], saleLines[j]] = [saleLines[j]!, saleLines[i]!]
    }
    const base = join(dir, `fuzz-${seed}`)
    writeFileSync(`${base}-receipts.ndjson`, lines(receiptLines))
    writeFileSync(`${base}-headers.csv`, lines(headers))
    writeFileSync(`${base}-lines.csv`, lines([Buffer.from('number,product,qty,price,amount'), ...saleLines]))
    writeFileSync(
      `${base}.json`,
      JSON.stringify({
        files: [
          { path: `${base}-receipts.ndjson`, set: 'Document_GoodsReceipt', post: true },
          {
            path: `${base}-headers.csv`,
            lines: `${base}-lines.csv`,
            join: 'number',
            tablePart: 'Goods',
            set: 'Document_GoodsSale',
            post: true,
            columns: {
              number: 'Number',
              date: 'Date',
              warehouse: 'Warehouse',
              counterparty: 'Counterparty',
              organization: 'Organization',
              comment: 'Comment',
              'Goods/product': 'Product',
              'Goods/qty': 'Quantity',
              'Goods/price': 'Price',
              'Goods/amount': 'Amount',
            },
          },
        ],
      }),
    )
    const run = await runCli(['load', '--mapping', `${base}.json`, '--url', root, '--token', 'bench-token', ...LIMITS]).done
    exitedCleanly(t, run)
    const summary = summaryOf<LoadSummary>(run.stdout)
    const rejected = readFileSync(`${base}.json.rejects.ndjson`, 'utf8')
    const rejectedReceipts = new Set(
      rejected
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { source: string; row: number })
        .filter((r) => r.source.startsWith('Document_GoodsReceipt'))
        .map((r) => r.row),
    )
    let whole = 0
    for (const [table, list] of [
      ['d_GoodsReceipt', receipts],
      ['d_GoodsSale', sales],
    ] as const) {
      for (const d of list) {
        const [rows] = (await pool.query(
          `SELECT d.Posted AS posted, COUNT(g.Ref_Key) AS line_count, COALESCE(SUM(g.Quantity), 0) AS quantity, w.Code AS warehouse,
             (SELECT COUNT(*) FROM ar_Stock s WHERE s.Recorder = d.Ref_Key) AS movements
           FROM ${table} d JOIN c_Warehouses w ON w.Ref_Key = d.Warehouse_Key LEFT JOIN ${table}__Goods g ON g.Ref_Key = d.Ref_Key
           WHERE d.Number = ? GROUP BY d.Ref_Key`,
          [d.number],
        )) as unknown as [{ posted: number; line_count: number; quantity: string; warehouse: string; movements: number }[]]
        if (rows.length === 0) {
          // A receipt is its line's row (damage may cut its number off); a sale's number is never damaged.
          const inRejects =
            table === 'd_GoodsReceipt'
              ? rejectedReceipts.has(list.indexOf(d) + 1)
              : rejected.includes(`"${d.number}`) || rejected.includes(`${d.number},`)
          if (!inRejects) t.fail(`seed ${seed}: ${d.number} is neither in the database nor in the reject file`)
          continue
        }
        const expected = {
          copies: 1,
          posted: 1,
          lines: d.lines.length,
          quantity: d.lines.reduce((sum, l) => sum + l.quantity, 0),
          warehouse: d.warehouse,
          movements: d.lines.length,
        }
        const { line_count, ...row } = rows[0]!
        const found = {
          copies: rows.length,
          ...row,
          quantity: Number(row.quantity),
          lines: Number(line_count),
          movements: Number(row.movements),
        }
        if (JSON.stringify(found) !== JSON.stringify({ ...found, ...expected }))
          t.same(found, { ...found, ...expected }, `seed ${seed}: ${d.number} once and whole`)
        else whole++
      }
    }
    t.ok(whole > 0 && summary.rejected > 0, `seed ${seed}: ${whole} documents whole, ${summary.rejected} rejected`)
  }
  const { kept, recomputed } = await totalsAndRecomputation(pool)
  t.same(kept, recomputed, 'the totals equal a recomputation')
})
