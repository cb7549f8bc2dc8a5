// What a load did, per input and in the input's own unit — catalog items, documents (their table part rows
// counted apart, as lines) or register records — and, for a person at a terminal, as a few lines of text
// naming the reject file and the checkpoint. The JSON line of the summary carries the same figures.
import type { EntityShape } from './service-metadata.js'

export interface InputSummary {
  /** The input as the reject file names it (`Document_GoodsReceipt:receipts.ndjson`). */
  readonly input: string
  readonly unit: 'items' | 'documents' | 'records'
  rows: number
  loaded: number
  present: number
  rejected: number
  resumed: number
  /** Of the resumed rows, those an earlier run refused (they are in the reject file). */
  resumedRejected: number
  /** Table part rows of the documents loaded by this run. */
  linesLoaded: number
  /** Lines of a lines file that no document took. */
  linesRejected: number
}

export function inputSummary(plan: { readonly set: string }, name: string): InputSummary {
  const unit = plan.set.startsWith('Document_') ? 'documents' : plan.set.startsWith('Catalog_') ? 'items' : 'records'
  return {
    input: name,
    unit,
    rows: 0,
    loaded: 0,
    present: 0,
    rejected: 0,
    resumed: 0,
    resumedRejected: 0,
    linesLoaded: 0,
    linesRejected: 0,
  }
}

/** The table part rows in a mapped body. */
export function tablePartRows(body: Readonly<Record<string, unknown>>, shape: EntityShape): number {
  let rows = 0
  for (const part of shape.tableParts.keys()) {
    const value = body[part]
    if (Array.isArray(value)) rows += value.length
  }
  return rows
}

export interface SummaryFigures {
  readonly inputs: readonly InputSummary[]
  readonly seconds: number
  readonly rowsPerSecond: number
  readonly rejected: number
  readonly linesRejected: number
  readonly checkpoint: string
  readonly rejects: string
  readonly stopped?: string
  readonly gaveUp?: string
}

const number = (n: number) => n.toLocaleString('en-US')

/** A few lines for a person: one an input, then the time and rate, the reject file and the checkpoint. */
export function summaryText(summary: SummaryFigures): string {
  const lines: string[] = []
  for (const input of summary.inputs) {
    const unit = input.unit
    const parts = [
      `${number(input.loaded)} ${unit} loaded${input.unit === 'documents' && input.linesLoaded > 0 ? ` (${number(input.linesLoaded)} lines)` : ''}`,
      `${number(input.present)} already present`,
      `${number(input.rejected)} rejected`,
    ]
    if (input.resumed > 0)
      parts.push(
        `${number(input.resumed)} done by an earlier run${input.resumedRejected > 0 ? ` (${number(input.resumedRejected)} of them rejected, in the reject file)` : ''}`,
      )
    if (input.linesRejected > 0) parts.push(`${number(input.linesRejected)} lines of no document rejected`)
    lines.push(`${input.input}: ${parts.join(', ')}`)
  }
  lines.push(`${summary.seconds.toFixed(1)} s, ${number(Math.round(summary.rowsPerSecond))} rows/s`)
  const rejected = summary.rejected + summary.linesRejected
  lines.push(rejected > 0 ? `rejects: ${summary.rejects} (${number(rejected)})` : 'rejects: none')
  lines.push(`checkpoint: ${summary.checkpoint} (run the same command again to resume)`)
  if (summary.stopped) lines.push(`stopped: ${summary.stopped}`)
  if (summary.gaveUp) lines.push(`gave up: ${summary.gaveUp}`)
  return lines.join('\n')
}
