// Benchmark of the expression parser: a realistic $filter (the shape of a virtual-table Condition plus a
// search) parsed 100,000 times, against JSON.parse of a JSON text of exactly the same length in the same
// run — the physical limit of turning that many characters into a tree in this process. The ratio is the
// figure that matters (docs/architecture.md, performance posture); machines are shared and noisy.
//
//   node build/perf/expression-parse.bench.js [iterations]
import { parseFilter, type ExpressionNode } from '../src/odata/expression/index.js'

const ITERATIONS = Number(process.argv[2] ?? 100_000)
const WARM_UP = 20_000

const FILTER =
  "Period ge 2024-01-01T00:00:00Z and Period lt 2024-02-01T00:00:00Z and Warehouse_Key eq guid'4f9e6c1a-2b3d-4e5f-8a7b-1c2d3e4f5a6b'" +
  " and (contains(tolower(Product/Description),'bolt') or Quantity gt 100)" +
  " and Recorder_Type in ('StandardODATA.Document_GoodsReceipt','StandardODATA.Document_GoodsSale')"

/** A JSON document of the same information, padded to exactly the filter's length. */
function jsonOfLength(length: number): string {
  const document = {
    period: ['2024-01-01T00:00:00Z', '2024-02-01T00:00:00Z'],
    warehouse: '4f9e6c1a-2b3d-4e5f-8a7b-1c2d3e4f5a6b',
    search: { path: ['Product', 'Description'], contains: 'bolt', orQuantityAbove: 100 },
    recorderTypes: ['StandardODATA.Document_GoodsReceipt', 'StandardODATA.Document_GoodsSale'],
    pad: '',
  }
  const unpadded = JSON.stringify(document).length
  if (unpadded > length) throw new Error(`the JSON baseline (${unpadded}) is longer than the filter (${length})`)
  document.pad = 'x'.repeat(length - unpadded)
  return JSON.stringify(document)
}

/** Runs `work` n times; returns operations per second. Results feed a sink so nothing is optimised away. */
function measure(n: number, work: () => unknown): { opsPerSecond: number; sink: number } {
  let sink = 0
  const start = process.hrtime.bigint()
  for (let i = 0; i < n; i++) {
    const result = work() as { kind?: string } | null
    sink += result === null ? 0 : 1
  }
  const seconds = Number(process.hrtime.bigint() - start) / 1e9
  return { opsPerSecond: n / seconds, sink }
}

const json = jsonOfLength(FILTER.length)
const parse = (): ExpressionNode => parseFilter(FILTER, { option: '$filter' })
const parseJson = (): unknown => JSON.parse(json)

// Warm-up: let both reach optimised code before the timed runs.
measure(WARM_UP, parse)
measure(WARM_UP, parseJson)

const expression = measure(ITERATIONS, parse)
const baseline = measure(ITERATIONS, parseJson)

console.log(`input: ${FILTER.length} characters, ${ITERATIONS} iterations`)
console.log(`expression parse: ${Math.round(expression.opsPerSecond)} ops/s (${(1e6 / expression.opsPerSecond).toFixed(2)} µs/op)`)
console.log(`JSON.parse baseline: ${Math.round(baseline.opsPerSecond)} ops/s (${(1e6 / baseline.opsPerSecond).toFixed(2)} µs/op)`)
console.log(`ratio (expression time / JSON.parse time): ${(baseline.opsPerSecond / expression.opsPerSecond).toFixed(2)}`)
if (expression.sink !== ITERATIONS || baseline.sink !== ITERATIONS) console.log('sink mismatch')
