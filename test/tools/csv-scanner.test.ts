// The loader's CSV scanner on its own (src/tools/load/csv-scanner.ts): quoted fields, blanks, CRLF and a
// BOM; the field count against the header's; an unclosed quote rejected from the line it opened on with
// reading going on from the next line; records and fields past the limits cut and rejected. Every case is
// fed whole and one byte at a time, which must give the same records.
import t, { type Test } from 'tap'
import { CsvScanner, type CsvRecord } from '../../src/tools/load/csv-scanner.js'

interface Seen {
  line: number
  fields?: string[]
  code?: string
  cut?: boolean
}

function scan(text: string | Buffer, chunk: number, limits = { maxRecordBytes: 1000, maxFieldBytes: 500 }): Seen[] {
  const bytes = typeof text === 'string' ? Buffer.from(text) : text
  const scanner = new CsvScanner(0x2c, limits)
  const records: CsvRecord[] = []
  const drain = (eof: boolean) => {
    for (;;) {
      const step = scanner.next(eof)
      if (step.kind === 'more' || step.kind === 'end') return
      if (step.kind === 'reread') throw new Error(`reread at ${step.offset}`)
      records.push(step.record)
    }
  }
  for (let i = 0; i < bytes.length; i += chunk) {
    scanner.feed(bytes.subarray(i, i + chunk))
    drain(false)
  }
  drain(true)
  return records.map((r) =>
    r.problem ? { line: r.line, code: r.problem.code, cut: r.cut } : { line: r.line, fields: r.fields.map((f) => f.toString()) },
  )
}

const both = (t: Test, text: string | Buffer, expected: Seen[], limits?: { maxRecordBytes: number; maxFieldBytes: number }) => {
  t.same(scan(text, 1 << 20, limits), expected, 'fed whole')
  t.same(scan(text, 1, limits), expected, 'fed a byte at a time')
}

t.test('quoted fields, escaped quotes, line breaks in quotes, blanks, CRLF, a BOM, empty lines', async (t) => {
  both(t, '\uFEFFa,b,c\r\n1, "x, y" ,3\r\n\r\n"multi\nline","say ""hi""",\n', [
    { line: 1, fields: ['a', 'b', 'c'] },
    { line: 2, fields: ['1', 'x, y', '3'] },
    { line: 4, fields: ['multi\nline', 'say "hi"', ''] },
  ])
  both(t, 'a,b\n1,2', [
    { line: 1, fields: ['a', 'b'] },
    { line: 2, fields: ['1', '2'] },
  ])
})

t.test('a record with fewer or more fields than the header is a reject', async (t) => {
  both(t, 'a,b,c\n1,2\n1,2,3,4\n1,2,3\n', [
    { line: 1, fields: ['a', 'b', 'c'] },
    { line: 2, code: 'FieldCount', cut: false },
    { line: 3, code: 'FieldCount', cut: false },
    { line: 4, fields: ['1', '2', '3'] },
  ])
})

t.test('an unclosed quote: its record is refused from the line it opened on, reading goes on from the next', async (t) => {
  both(t, 'a,b\n1,x\n2,"cut\n3,y\n4,z\n', [
    { line: 1, fields: ['a', 'b'] },
    { line: 2, fields: ['1', 'x'] },
    { line: 3, code: 'UnclosedQuote', cut: false },
    { line: 4, fields: ['3', 'y'] },
    { line: 5, fields: ['4', 'z'] },
  ])
  // Closed by a quote meant for a later field: the quote does close, so the record runs to there, and is
  // one reject (text after the closing quote); nothing inside it is read as a record.
  both(t, 'a,b\n2,"cut\n3,y\n4,"z"\n5,w\n', [
    { line: 1, fields: ['a', 'b'] },
    { line: 2, code: 'MalformedCsv', cut: false },
    { line: 5, fields: ['5', 'w'] },
  ])
  // On the last line: the record alone.
  both(t, 'a,b\n1,"x\n', [
    { line: 1, fields: ['a', 'b'] },
    { line: 2, code: 'UnclosedQuote', cut: false },
  ])
})

t.test('text after a closing quote is malformed', async (t) => {
  both(t, 'a,b\n"x"y,1\n2,3\n', [
    { line: 1, fields: ['a', 'b'] },
    { line: 2, code: 'MalformedCsv', cut: false },
    { line: 3, fields: ['2', '3'] },
  ])
})

t.test('past the limits: a long field, a long record (cut, kept short), and the next record whole', async (t) => {
  const limits = { maxRecordBytes: 100, maxFieldBytes: 40 }
  both(
    t,
    `a,b\n1,${'f'.repeat(50)}\n2,${'r'.repeat(5000)}\n3,"${'q'.repeat(5000)}"\n4,ok\n`,
    [
      { line: 1, fields: ['a', 'b'] },
      { line: 2, code: 'FieldTooLong', cut: false },
      { line: 3, code: 'RecordTooLong', cut: true },
      { line: 4, code: 'RecordTooLong', cut: true },
      { line: 5, fields: ['4', 'ok'] },
    ],
    limits,
  )
})

t.test('an unclosed quote past the record limit asks to read again from the next line', async (t) => {
  const scanner = new CsvScanner(0x2c, { maxRecordBytes: 50, maxFieldBytes: 50 })
  scanner.feed(Buffer.from(`a,b\n1,"x\n${'2,y\n'.repeat(40)}`))
  const steps = [scanner.next(false), scanner.next(false), scanner.next(true)]
  t.match(steps[0], { kind: 'record', record: { line: 1 } })
  t.match(steps[1], { kind: 'more' })
  t.match(steps[2], { kind: 'reread', offset: 9, line: 3, record: { line: 2, problem: { code: 'UnclosedQuote' }, cut: true } })
})

t.test('a closed quoted field that spans lines is one record: a reject as a whole, no line of it read again', async (t) => {
  both(t, 'code,name\nG00000001,ok\nG00000002,"short\nG00000099,injected\nend",extra\nG00000003,ok3\n', [
    { line: 1, fields: ['code', 'name'] },
    { line: 2, fields: ['G00000001', 'ok'] },
    { line: 3, code: 'FieldCount', cut: false },
    { line: 6, fields: ['G00000003', 'ok3'] },
  ])
  // Past the field and the record limit: one reject for the whole record, cut.
  const limits = { maxRecordBytes: 100, maxFieldBytes: 40 }
  both(
    t,
    `a,b\n1,"${'x,y\n'.repeat(60)}"\n2,ok\n`,
    [
      { line: 1, fields: ['a', 'b'] },
      { line: 2, code: 'RecordTooLong', cut: true },
      { line: 63, fields: ['2', 'ok'] },
    ],
    limits,
  )
  both(
    t,
    `a,b\n1,"${'x,y\n'.repeat(15)}"\n2,ok\n`,
    [
      { line: 1, fields: ['a', 'b'] },
      { line: 2, code: 'FieldTooLong', cut: false },
      { line: 18, fields: ['2', 'ok'] },
    ],
    limits,
  )
})

t.test('a quote inside an unquoted field is a reject', async (t) => {
  both(t, 'a,b\nab"c,1\n2,3\n', [
    { line: 1, fields: ['a', 'b'] },
    { line: 2, code: 'MalformedCsv', cut: false },
    { line: 3, fields: ['2', '3'] },
  ])
})
