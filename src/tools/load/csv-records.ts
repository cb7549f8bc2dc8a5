// The records of a CSV input, the scanner (csv-scanner.ts) driven over its bytes: where a stray quote
// leaves the scanner without the bytes to read again from (a record cut past the limit), a file is read
// again from the line after the quote; stdin cannot be, and the load stops there (InputStop) after the
// rejected record, with everything before it loaded.
import { CsvScanner, type CsvRecord } from './csv-scanner.js'
import type { InputLimits } from './input-limits.js'
import { InputStop, readBytes } from './input-source.js'

export async function* csvRecords(path: string, delimiter: string, limits: InputLimits): AsyncGenerator<CsvRecord> {
  let scanner = new CsvScanner(delimiter.charCodeAt(0), limits)
  let offset = 0
  for (;;) {
    let reread: { offset: number; line: number } | undefined
    const source = readBytes(path, offset)
    read: for await (const chunk of source) {
      scanner.feed(chunk as Buffer)
      for (;;) {
        const step = scanner.next(false)
        if (step.kind === 'more') break
        if (step.kind === 'record') yield step.record
        else if (step.kind === 'reread') {
          yield path === '-' ? stopsHere(step.record) : step.record
          reread = step
          break read
        }
      }
    }
    if (!reread) {
      for (;;) {
        const step = scanner.next(true)
        if (step.kind === 'end' || step.kind === 'more') return
        yield step.kind === 'reread' && path === '-' ? stopsHere(step.record) : step.record
        if (step.kind === 'reread') {
          reread = step
          break
        }
      }
    }
    if (path === '-')
      throw new InputStop(
        `stdin, line ${reread.line - 1}: a quote opens a field that is not closed within --max-record-bytes, and stdin cannot be read again from the next line; correct the quote, or load the file by its name`,
      )
    const expected = scanner.expectedFields
    scanner = new CsvScanner(delimiter.charCodeAt(0), limits, reread.offset, reread.line)
    scanner.expectedFields = expected
    offset = reread.offset
  }
}

/** The reject of a stray quote on stdin, where reading does not go on: the load stops after it. */
function stopsHere(record: CsvRecord): CsvRecord {
  const problem = record.problem!
  return {
    ...record,
    problem: {
      ...problem,
      message: problem.message.replace(/reading goes on from line \d+$/, 'the load stops here (stdin cannot be read again)'),
    },
  }
}
