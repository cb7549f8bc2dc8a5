// The summary a person reads at a terminal (src/tools/load/load-summary.ts): one line an input in its own
// unit, and rows an earlier run refused told apart from the rows it wrote.
import t from 'tap'
import { inputSummary, summaryText } from '../../src/tools/load/load-summary.js'

const figures = (input: ReturnType<typeof inputSummary>) => ({
  inputs: [input],
  seconds: 2,
  rowsPerSecond: 5,
  rejected: input.rejected,
  linesRejected: 0,
  checkpoint: 'load.checkpoint',
  rejects: 'load.rejects',
})

t.test('a resumed input says how many of the rows done earlier were refused', async (t) => {
  const input = inputSummary({ set: 'Document_GoodsReceipt' }, 'Document_GoodsReceipt:receipts.ndjson')
  input.resumed = 10
  input.resumedRejected = 1
  t.match(
    summaryText(figures(input)),
    'receipts.ndjson: 0 documents loaded, 0 already present, 0 rejected, 10 done by an earlier run (1 of them rejected, in the reject file)',
  )
})

t.test('without earlier refusals the resumed count stands alone; a fresh input names no earlier run', async (t) => {
  const resumed = inputSummary({ set: 'Catalog_Products' }, 'Catalog_Products:products.csv')
  resumed.resumed = 4
  t.match(summaryText(figures(resumed)), /4 done by an earlier run$/m)
  const fresh = inputSummary({ set: 'InformationRegister_Prices' }, 'InformationRegister_Prices:prices.csv')
  fresh.loaded = 3
  t.notMatch(summaryText(figures(fresh)), /earlier run/)
  t.match(summaryText(figures(fresh)), '3 records loaded')
})
