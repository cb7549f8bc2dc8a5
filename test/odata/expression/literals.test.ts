// ABNF primitiveLiteral in every form the service accepts (decisions.md §2), with the values the AST
// carries, and the InvalidLiteral errors for malformed or out-of-range ones.
import t from 'tap'
import { parseFilter, type LiteralNode } from '../../../src/odata/expression/index.js'
import { errorIn, filter, summary } from './fixtures/parse-helpers.js'

const literal = (text: string): LiteralNode => {
  const node = parseFilter(text, { option: '$filter' })
  if (node.kind !== 'LiteralNode') throw new Error(`not a literal: ${text}`)
  return node
}

t.test('null and booleans (ABNF null, boolean)', async (t) => {
  t.equal(filter('null'), 'null')
  t.equal(filter('true'), 'true')
  t.equal(filter('false'), 'false')
  t.equal(filter('Posted eq true'), '(eq (path Posted) true)')
  t.same(literal('true'), { kind: 'LiteralNode', position: 0, type: 'Edm.Boolean', value: true })
})

t.test('integers take the smallest type that holds them', async (t) => {
  t.equal(filter('0'), '0')
  t.equal(filter('42'), '42')
  t.equal(filter('-5'), '-5', 'a minus before digits is part of the literal')
  t.equal(filter('+5'), '5', 'ABNF SIGN allows a plus')
  t.equal(filter('007'), '7')
  t.equal(filter('2147483647'), '2147483647')
  t.equal(filter('-2147483648'), '-2147483648')
  t.equal(filter('2147483648'), '2147483648L', 'past Int32 it is Int64')
  t.equal(filter('9223372036854775807'), '9223372036854775807L')
  t.equal(filter('-9223372036854775808'), '-9223372036854775808L')
  t.equal(filter('9223372036854775808'), '9223372036854775808m', 'past Int64 it is a Decimal')
  t.same(literal('2147483648'), { kind: 'LiteralNode', position: 0, type: 'Edm.Int64', value: 2147483648n })
  t.same(literal('12').type, 'Edm.Int32')
})

t.test('decimals and doubles (ABNF decimalLiteral, doubleLiteral, nanInfinity)', async (t) => {
  t.equal(filter('3.14'), '3.14m')
  t.equal(filter('-0.5'), '-0.5m')
  t.equal(filter('+1.0'), '1.0m', 'exact text, without the plus')
  t.equal(filter('1e3'), '1000d')
  t.equal(filter('1.5E-3'), '0.0015d')
  t.equal(filter('-0.314e1'), '-3.14d')
  t.equal(filter('INF'), 'Infinityd')
  t.equal(filter('-INF'), '-Infinityd')
  t.equal(filter('NaN'), 'NaNd')
  t.same(literal('3.14'), { kind: 'LiteralNode', position: 0, type: 'Edm.Decimal', value: '3.14' })
})

t.test("strings in single quotes, '' for a quote (ABNF stringLiteral)", async (t) => {
  t.equal(filter("'Milk'"), "'Milk'")
  t.same(literal("'O''Neil'").value, "O'Neil")
  t.same(literal("''").value, '')
  t.same(literal("''''").value, "'")
  t.same(literal("'Привет, мир'").value, 'Привет, мир')
  t.same(literal("'a eq b and (c)'").value, 'a eq b and (c)', 'operators inside a string are text')
  t.equal(filter("Description eq 'it''s'"), "(eq (path Description) 'it''s')")
})

t.test("GUIDs, prefixed and bare, lowercased (ABNF guid; reference-system guid'…')", async (t) => {
  t.equal(filter("guid'4F9E6C1A-2B3D-4E5F-8A7B-1C2D3E4F5A6B'"), '(guid 4f9e6c1a-2b3d-4e5f-8a7b-1c2d3e4f5a6b)')
  t.equal(filter('01234567-89ab-cdef-0123-456789abcdef'), '(guid 01234567-89ab-cdef-0123-456789abcdef)')
  t.equal(
    filter('deadbeef-89ab-cdef-0123-456789ABCDEF'),
    '(guid deadbeef-89ab-cdef-0123-456789abcdef)',
    'a bare GUID may start with a letter',
  )
  t.equal(filter('Ref_Key eq 00000000-0000-0000-0000-000000000000'), '(eq (path Ref_Key) (guid 00000000-0000-0000-0000-000000000000))')
})

t.test("date-times: datetime'…', bare, with and without offset or fractions", async (t) => {
  t.equal(filter("datetime'2024-01-31T00:00:00'"), '(datetime 2024-01-31T00:00:00)')
  t.equal(filter("datetime'2024-01-31'"), '(datetime 2024-01-31T00:00:00)', 'a date alone means its midnight')
  t.equal(filter("datetimeoffset'2024-01-31T10:00:00Z'"), '(datetime 2024-01-31T10:00:00Z)')
  t.equal(filter('2024-01-31T10:00:00Z'), '(datetime 2024-01-31T10:00:00Z)')
  t.equal(filter('2024-01-31T10:00:00+03:00'), '(datetime 2024-01-31T10:00:00+03:00)')
  t.equal(filter('2024-01-31T10:00:00.1234567-05:30'), '(datetime 2024-01-31T10:00:00.1234567-05:30)')
  t.equal(filter('2024-01-31T10:00:00'), '(datetime 2024-01-31T10:00:00)', 'no offset: read as UTC later')
  t.equal(filter('2024-01-31T10:00'), '(datetime 2024-01-31T10:00:00)', 'seconds are optional (ABNF timeOfDayLiteral)')
  t.equal(filter('2024-01-31t10:00z'), '(datetime 2024-01-31T10:00:00Z)', 'T and Z are case-insensitive ABNF strings')
  t.equal(filter('2024-02-29T23:59:59Z'), '(datetime 2024-02-29T23:59:59Z)', 'leap day')
  t.same(literal('2024-01-31T10:20:30.5-05:30').value, {
    year: 2024,
    month: 1,
    day: 31,
    hour: 10,
    minute: 20,
    second: 30,
    fraction: '5',
    offsetMinutes: -330,
  })
  t.same(literal('2024-01-31T10:20').value, {
    year: 2024,
    month: 1,
    day: 31,
    hour: 10,
    minute: 20,
    second: 0,
    fraction: '',
    offsetMinutes: null,
  })
  t.equal(
    filter('Period ge 2024-01-01T00:00:00Z and Period lt 2024-02-01T00:00:00Z'),
    '(and (ge (path Period) (datetime 2024-01-01T00:00:00Z)) (lt (path Period) (datetime 2024-02-01T00:00:00Z)))',
  )
})

t.test('dates, times of day, durations (ABNF date, timeOfDayLiteral, durationLiteral)', async (t) => {
  t.equal(filter('2024-01-31'), '(date 2024-01-31)')
  t.equal(filter('0000-01-01'), '(date 0000-01-01)', 'year zero (ABNF year)')
  t.same(literal('2000-02-29').value, { year: 2000, month: 2, day: 29 })
  t.equal(filter('13:20'), '(time 13:20:00)')
  t.equal(filter('13:20:05.25'), '(time 13:20:05.25)')
  t.equal(filter("time'23:59:59'"), '(time 23:59:59)')
  t.equal(filter("duration'P1D'"), '(duration P1D)')
  t.equal(filter("duration'-PT1H30M'"), '(duration -PT1H30M)')
  t.equal(filter("duration'P6DT23H59M59.9999S'"), '(duration P6DT23H59M59.9999S)')
  t.same(literal("duration'PT0.5S'").value, { negative: false, days: 0, hours: 0, minutes: 0, seconds: 0, fraction: '5' })
})

t.test('binary and enumeration literals (ABNF binaryLiteral, enumLiteral)', async (t) => {
  t.equal(filter("binary'Zg=='"), '(binary Zg==)')
  t.equal(filter("binary'Zm9vYg'"), '(binary Zm9vYg)')
  t.equal(filter("binary''"), '(binary )')
  t.equal(filter("Sales.Pattern'Yellow'"), "(enum Sales.Pattern 'Yellow')")
  t.equal(filter("Sales.Pattern'Yellow,Red'"), "(enum Sales.Pattern 'Yellow,Red')")
  t.equal(filter("Ns.Flags'3'"), "(enum Ns.Flags '3')")
})

t.test('literal positions are the offset of their first character', async (t) => {
  const node = parseFilter("Name eq 'x'", { option: '$filter' })
  t.equal(node.kind === 'BinaryOperationNode' && node.right.position, 8)
})

t.test('malformed and out-of-range literals are InvalidLiteral at the literal', async (t) => {
  const invalid = (text: string, position: number, message: string) => {
    t.same(summary(errorIn('$filter', text)), { code: 'InvalidLiteral', target: '$filter', position, positionInMessage: true }, message)
  }
  invalid('Date eq 2024-13-01', 8, 'month 13')
  invalid('Date eq 2024-00-10', 8, 'month 0')
  invalid('Date eq 2024-01-32', 8, 'day 32')
  invalid('Date eq 2023-02-29', 8, 'February 29 outside a leap year')
  invalid('Date eq 1900-02-29', 8, '1900 is not a leap year')
  invalid('Date eq 2024-04-31', 8, 'April has 30 days')
  invalid('Date eq 2024-01-31T24:00:00Z', 8, 'hour 24 (ABNF hour is 00-23)')
  invalid('Date eq 2024-01-31T10:60:00Z', 8, 'minute 60')
  invalid('Date eq 2024-01-31T10:00:60Z', 8, 'second 60 (no leap seconds in the store)')
  invalid('Date eq 2024-01-31T10:00:00+24:00', 8, 'offset hour 24')
  invalid('Date eq 2024-01-31T10:00:00.1234567890123Z', 8, 'more than 12 fractional digits')
  invalid('Date eq 2024-01-31T10', 8, 'incomplete time')
  invalid('Date eq 2024-1-31', 8, 'one-digit month')
  invalid('Date eq 2024-01-31T10:00:00+0300', 8, 'offset without colon')
  invalid("Date eq datetime'2024-01-31T'", 8, 'prefixed, incomplete')
  invalid("Date eq datetime'yesterday'", 8, 'prefixed, not a date')
  invalid("Key eq guid'1234'", 7, 'short GUID')
  invalid("Key eq guid'0123456789ab-cdef-0123-4567-89abcdef0123'", 7, 'GUID groups in the wrong places')
  invalid("Key eq guid'g1234567-89ab-cdef-0123-456789abcdef'", 7, 'not hexadecimal')
  invalid("Time eq duration'P1Y'", 8, 'years are not a dayTimeDuration')
  invalid("Time eq duration'P'", 8, 'a duration needs a component')
  invalid("Time eq duration'PT'", 8, 'T needs a component')
  invalid("Time eq duration'1D'", 8, 'P is required')
  invalid("Time eq time'25:00'", 8, 'hour 25')
  invalid("Name eq 'unterminated", 8, 'string without closing quote')
  invalid('Amount eq 1e999', 10, 'beyond Edm.Double')
  invalid('Amount eq 12abc', 10, 'a number running into a name')
  invalid('Amount eq 1.', 10, 'no digit after the point')
  invalid('Amount eq 1.2.3', 10, 'two points')
  invalid('Amount eq 1e', 10, 'exponent without digits')
  invalid("Shape eq geography'SRID=0;Point(1 2)'", 9, 'no spatial types')
  invalid("Data eq binary'Z'", 8, 'one base64 character cannot encode a byte')
  invalid("Data eq binary'Zg+/'", 8, 'base64url, not base64')
  invalid("Kind eq Ns.Enum'Red Green'", 8, 'enum members are names or integers')
})
