// Documents from two CSV files: a header file (one row a document) and a lines file (one row a table
// part row), joined by a column both have (the document's number, say). The lines are read alongside
// the headers, so both files stream: the lines of a document must come together and in the order of
// the headers, as an export writes them. Lines out of that order, or whose document never comes, are
// rejected as orphans.
import type { Input, InputRow } from './input-rows.js'

export function joinedInput(headers: Input, lines: Input, join: string, tablePart: string): Input & { orphans(): InputRow[] } {
  const orphans: InputRow[] = []
  return {
    name: headers.name,
    size: headers.size !== undefined && lines.size !== undefined ? headers.size + lines.size : undefined,
    orphans: () => orphans,
    rows: async function* () {
      const lineRows = lines.rows()[Symbol.asyncIterator]()
      let pending: InputRow | undefined
      let linesEnded = false
      const next = async () => {
        if (linesEnded) return undefined
        const result = await lineRows.next()
        if (result.done) linesEnded = true
        return result.done ? undefined : result.value
      }
      pending = await next()
      const seen = new Set<string>()
      let lastLineOffset: number | undefined
      for await (const header of headers.rows()) {
        const key = String(header.record[join] ?? '')
        seen.add(key)
        const parts: Record<string, unknown>[] = []
        // A line of a document already passed came out of order: an orphan. A line of a document not
        // read yet waits for it (this one has no lines).
        while (pending && String(pending.record[join] ?? '') !== key && seen.has(String(pending.record[join] ?? ''))) {
          orphans.push(pending)
          pending = await next()
        }
        while (pending && String(pending.record[join] ?? '') === key) {
          const { [join]: _omit, ...rest } = pending.record
          parts.push(rest)
          lastLineOffset = pending.offset
          pending = await next()
        }
        yield { row: header.row, record: { ...header.record, [tablePart]: parts }, offset: header.offset + (lastLineOffset ?? 0) }
      }
      while (pending) {
        orphans.push(pending)
        pending = await next()
      }
    },
  }
}
