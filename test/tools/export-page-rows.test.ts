// The export's byte-level split of a page into NDJSON lines (src/tools/export/page-rows.ts) against
// JSON.parse of the same page: strings holding braces, brackets, escaped quotes, backslashes and `"@`
// are not structure, annotated rows (their own or a table part row's) are rewritten and the others passed
// through; and the exact scaling of decimals for Parquet (src/tools/export/parquet-output.ts).
import t from 'tap'
import { pageAsNdjson, peekMembers, splitPageRows } from '../../src/tools/export/page-rows.js'
import { scaledDecimal } from '../../src/tools/export/scaled-decimal.js'

const rows = [
  { Ref_Key: 'a', Description: 'plain', Quantity: 1.5 },
  { Ref_Key: 'b', Description: 'braces } { ] [ and a comma, here', Quantity: -2 },
  { Ref_Key: 'c', Description: 'quote " and backslash \\ and \\" both', Quantity: 0 },
  { Ref_Key: 'd', Description: '"@odata.etag" in a value, and @ alone', Quantity: null },
  { Ref_Key: 'e', Description: 'ends in a backslash \\', Goods: [{ LineNumber: 1, Note: '}]' }] },
  { '@odata.etag': 'W/"1"', Ref_Key: 'f', Description: 'annotated' },
  { Ref_Key: 'g', Description: 'after the annotated one' },
  { Ref_Key: 'h', Goods: [{ '@odata.etag': 'x', LineNumber: 1 }] },
  { Ref_Key: 'i', Description: 'Привет, 世界 🙂' },
]

t.test('a page splits into its rows exactly where JSON.parse sees them', async (t) => {
  const text = JSON.stringify({ '@odata.context': 'x$metadata#S', value: rows, '@odata.nextLink': 'http://h/S?$skiptoken=1' })
  const page = splitPageRows(Buffer.from(text))
  t.same(page.members, { '@odata.context': 'x$metadata#S', '@odata.nextLink': 'http://h/S?$skiptoken=1' })
  t.equal(page.starts.length, rows.length)
  t.same(
    page.starts.map((start, i) => JSON.parse(page.body.toString('utf8', start, page.ends[i]))),
    rows,
    'each span is one row',
  )
  t.same(page.annotated, [false, false, false, false, false, true, false, true, false], 'annotations seen, values starting with @ not')
  const rewritten: string[] = []
  const lines = Buffer.concat(
    pageAsNdjson(page, (row) => {
      rewritten.push(row)
      const { '@odata.etag': _etag, ...rest } = JSON.parse(row)
      if (rest.Goods) rest.Goods = rest.Goods.map(({ '@odata.etag': _e, ...line }: Record<string, unknown>) => line)
      return JSON.stringify(rest)
    }),
  )
    .toString('utf8')
    .split('\n')
  t.equal(lines.pop(), '', 'every line ends')
  t.equal(rewritten.length, 2, 'only the annotated rows are rewritten')
  t.same(
    lines.map((line) => JSON.parse(line)),
    rows.map(({ '@odata.etag': _etag, ...rest }) =>
      rest.Goods ? { ...rest, Goods: rest.Goods.map(({ '@odata.etag': _e, ...line }: Record<string, unknown>) => line) } : rest,
    ),
    'one line per row, without annotations',
  )
})

t.test('an empty page and a page of one', async (t) => {
  const empty = splitPageRows(Buffer.from('{"value":[],"@odata.deltaLink":"d"}'))
  t.same([empty.starts.length, empty.members], [0, { '@odata.deltaLink': 'd' }])
  t.same(
    pageAsNdjson(empty, (row) => row),
    [],
  )
  const one = splitPageRows(Buffer.from('{"value":[{"a":"}"}]}'))
  t.equal(Buffer.concat(pageAsNdjson(one, (row) => row)).toString(), '{"a":"}"}\n')
  t.throws(() => splitPageRows(Buffer.from('{"error":{}}')), /no value array/)
  t.throws(() => splitPageRows(Buffer.from('{"value":[{"a":"b')), /ends inside/)
})

t.test("a page's links read from its end agree with the scan, whatever its rows and links hold", async (t) => {
  const tricky = [
    ...rows,
    { Ref_Key: 'j', Description: '],"@odata.nextLink":"http://fake/S?$skiptoken=9"}' },
    { Ref_Key: 'k', Description: ']}' },
  ]
  const pages = [
    { value: rows, '@odata.nextLink': 'http://h/S?$skiptoken=1' },
    { value: tricky },
    { value: tricky, '@odata.deltaLink': "http://h/S?$filter=Code in ('a]','b')&$deltatoken=x" },
    { '@odata.context': 'c', value: tricky, '@odata.nextLink': 'http://h/S?$filter=a],"b":1}&$skiptoken=2' },
    { value: [] },
    { value: [], '@odata.nextLink': 'n]' },
  ]
  for (const answer of pages) {
    const body = Buffer.from(JSON.stringify(answer))
    const peeked = peekMembers(body)
    const scanned = splitPageRows(body)
    t.ok(peeked, 'read from the end')
    const links = (members: Record<string, unknown> | undefined) => [members?.['@odata.nextLink'], members?.['@odata.deltaLink']]
    t.same(links(peeked?.members), links(scanned.members), 'the same links as the scan')
    t.equal(peeked?.arrayEnd, scanned.arrayEnd, 'the same end of the array')
  }
  t.equal(peekMembers(Buffer.from('{"error":{}}')), undefined, 'no array: left to the scan')
})

t.test('decimals are scaled from their decimal text, not by float multiplication', async (t) => {
  t.equal(scaledDecimal(1.005, 3), 1005n, '1.005 × 1000 is 1004.9999… as a float')
  t.equal(scaledDecimal(0.1, 2), 10n)
  t.equal(scaledDecimal(-12.5, 3), -12500n)
  t.equal(scaledDecimal('123456789012.345', 3), 123456789012345n, 'an IEEE754Compatible string')
  t.equal(scaledDecimal(2.0005, 3), 2001n, 'digits past the scale round half away from zero')
  t.equal(scaledDecimal(-2.0005, 3), -2001n)
  t.equal(scaledDecimal(1e-7, 3), 0n, 'exponent notation')
  t.equal(scaledDecimal(123456789012.345, 3), 123456789012345n, 'past 2^53 once scaled: from the text')
  t.equal(scaledDecimal(-0, 2), 0n)
  t.equal(scaledDecimal(null, 3), null)
  t.throws(() => scaledDecimal('abc', 2))
})
