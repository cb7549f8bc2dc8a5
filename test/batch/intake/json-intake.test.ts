// JSON intake (OData 4.01, JSON Format §19.1): shape, atomicity groups, and the guards against
// hostile input (depth, string and key lengths, token count, prototype pollution).

import t from 'tap'
import { buildJsonBatch } from '../../../src/tools/shared/batch-body.js'
import { createJsonIntake } from '../../../src/batch/intake/json/json-intake.js'
import type { IntakeLimits } from '../../../src/batch/intake/intake-limits.js'
import { type TapTest, ingest, outcomeKey, randomSplit, splitAt } from './intake-harness.js'
import { seededRandom } from '../../../src/seed/random.js'

function parse(text: string, limits: Partial<IntakeLimits> = {}) {
  return ingest(createJsonIntake({ limits }), [Buffer.from(text, 'utf8')])
}

/** Asserts BatchMalformed whole and when chunked; returns the message. */
function expectMalformed(t: TapTest, name: string, text: string, limits: Partial<IntakeLimits> = {}): string {
  const body = Buffer.from(text, 'utf8')
  const whole = ingest(createJsonIntake({ limits }), [body])
  t.equal(whole.error?.code, 'BatchMalformed', `${name}: ${whole.error?.message ?? 'accepted'}`)
  const random = seededRandom(body.length)
  for (let attempt = 0; attempt < 6; attempt++) {
    const chunked = ingest(createJsonIntake({ limits }), randomSplit(body, random, 2 + attempt * 4))
    if (outcomeKey(chunked) !== outcomeKey(whole)) {
      t.fail(`${name}: another outcome when chunked: ${outcomeKey(chunked)}`)
      break
    }
  }
  return whole.error?.message ?? ''
}

const request = (fields: Record<string, unknown>): string => JSON.stringify({ id: '1', method: 'get', url: 'People', ...fields })

t.test('a JSON batch: methods upper-cased, headers lower-cased, unknown members ignored', async (t) => {
  const outcome = parse(
    `{"@odata.context":"x","requests":[${request({ headers: { Accept: 'application/json', 'If-Match': '*' }, if: '$0/$succeeded', other: [1, { a: null }] })}],"extra":{"n":[1,2.5e3,-0.1,true,false,null,"s"]}}`,
  )
  t.equal(outcome.error, undefined)
  const operation = outcome.document!.operations[0]
  t.equal(operation.method, 'GET')
  t.same(Object.fromEntries(operation.headers), { accept: 'application/json', 'if-match': '*' })
  t.equal(operation.body, undefined)
})

t.test('bodies: any JSON value, null means none', async (t) => {
  const outcome = parse(
    `{"requests":[${request({ id: 'a', body: { a: [1, 'ü', { b: null }] } })},${request({ id: 'b', body: 'text' })},${request({ id: 'c', body: null })},${request({ id: 'd', body: 0 })}]}`,
  )
  const bodies = outcome.document!.operations.map((operation) => operation.body)
  t.same(bodies, [
    { kind: 'json', value: { a: [1, 'ü', { b: null }] } },
    { kind: 'json', value: 'text' },
    undefined,
    { kind: 'json', value: 0 },
  ])
})

t.test('atomicity groups: adjacent requests form one change set; a group split apart is refused', async (t) => {
  const body = `{"requests":[${request({ id: '1' })},${request({ id: '2', atomicityGroup: 'g' })},${request({ id: '3', atomicityGroup: 'g' })},${request({ id: '4', atomicityGroup: 'h' })},${request({ id: '5' })}]}`
  const document = parse(body).document!
  t.same(
    document.items.map((item) =>
      item.kind === 'operation' ? item.id : `${item.atomicityGroup}:${item.operations.map((operation) => operation.id).join(',')}`,
    ),
    ['1', 'g:2,3', 'h:4', '5'],
  )
  t.match(
    expectMalformed(
      t,
      'a group that is not adjacent',
      `{"requests":[${request({ id: '1', atomicityGroup: 'g' })},${request({ id: '2' })},${request({ id: '3', atomicityGroup: 'g' })}]}`,
    ),
    /not adjacent/,
  )
})

t.test('escaped member names are the names they spell', async (t) => {
  const outcome = parse(`{"req\\u0075ests":[{"\\u0069d":"1","method":"get","url":"A"}]}`)
  t.equal(outcome.document?.operations[0].id, '1')
})

t.test('the envelope', async (t) => {
  expectMalformed(t, 'an empty body', '')
  expectMalformed(t, 'blanks only', '  \n ')
  expectMalformed(t, 'an array instead of an object', `[${request({})}]`)
  expectMalformed(t, 'a string', '"requests"')
  t.match(expectMalformed(t, 'no requests member', '{"responses":[]}'), /no member "requests"/)
  t.match(expectMalformed(t, 'an empty requests array', '{"requests":[]}'), /no operations/)
  t.match(expectMalformed(t, 'requests not an array', '{"requests":{}}'), /must be an array/)
  expectMalformed(t, 'requests twice', `{"requests":[${request({})}],"requests":[${request({})}]}`)
  expectMalformed(t, 'content after the envelope', `{"requests":[${request({})}]} {}`)
  expectMalformed(t, 'a trailing comma', `{"requests":[${request({})},]}`)
  expectMalformed(t, 'a missing colon', `{"requests" [${request({})}]}`)
  expectMalformed(t, 'a mismatched bracket', `{"requests":[${request({})}}}`)
  expectMalformed(t, 'an invalid unknown member', `{"requests":[${request({})}],"x":tru}`)
  expectMalformed(t, 'an invalid escape in a member name', `{"requ\\qests":[${request({})}]}`)
  expectMalformed(t, 'a control character in a member name', `{"requ\u0001ests":[${request({})}]}`)
  expectMalformed(t, 'a byte order mark', `\ufeff{"requests":[${request({})}]}`)
})

t.test('request items of the wrong shape', async (t) => {
  const cases: Record<string, string> = {
    'an item that is not an object': '"GET People"',
    'an item that is an array': '[]',
    'no id': JSON.stringify({ method: 'get', url: 'A' }),
    'an id that is a number': request({ id: 1 }),
    'an empty id': request({ id: '' }),
    'no method': JSON.stringify({ id: '1', url: 'A' }),
    'a method that is not a string': request({ method: 7 }),
    'a method that is not a token': request({ method: 'GE T' }),
    'no url': JSON.stringify({ id: '1', method: 'get' }),
    'a url with a line break': request({ url: 'A\r\nX-Injected: 1' }),
    'headers that are an array': request({ headers: ['a'] }),
    'a header value that is a number': request({ headers: { 'content-length': 3 } }),
    'a header value with a line break': request({ headers: { prefer: 'a\r\nb' } }),
    'a header name that is not a token': request({ headers: { 'a b': 'c' } }),
    'dependsOn that is a string': request({ dependsOn: '0' }),
    'dependsOn with a number': request({ dependsOn: ['0', 1] }),
    'an atomicityGroup that is a number': request({ atomicityGroup: 1 }),
    'invalid JSON inside an item': '{"id":"1","method":"get","url":"A","body":[1 2]}',
    'a number that is not one': '{"id":"1","method":"get","url":"A","body":01}',
    'a raw control character in a string': '{"id":"1","method":"get","url":"A","body":"a\u0001b"}',
  }
  for (const [name, item] of Object.entries(cases)) expectMalformed(t, name, `{"requests":[${item}]}`)
})

t.test('a corrupt byte is refused by the push that brings it, not at the end', async (t) => {
  const intake = createJsonIntake()
  intake.push(Buffer.from(`{"requests":[${request({})}`))
  t.throws(() => intake.push(Buffer.from(', ]')), { code: 'BatchMalformed' })
  t.throws(() => intake.end(), { code: 'BatchMalformed' }, 'and the dead intake repeats it')
})

t.test('prototype pollution attempts reach no prototype', async (t) => {
  const hostile =
    '{"__proto__":{"polluted":"envelope"},"constructor":{"prototype":{"polluted":"ctor"}},"requests":[' +
    '{"__proto__":{"polluted":"item","method":"delete"},"id":"1","method":"post","url":"A",' +
    '"headers":{"__proto__":"x","constructor":"y","prototype":"z"},' +
    '"body":{"__proto__":{"polluted":"body"},"constructor":{"prototype":{"polluted":"body-ctor"}},"a":{"__proto__":{"polluted":"deep"}}}}]}'
  const outcome = parse(hostile)
  t.equal(outcome.error, undefined)
  t.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype is untouched')
  t.equal((Object.prototype as Record<string, unknown>).polluted, undefined)
  const operation = outcome.document!.operations[0]
  t.equal(operation.method, 'POST', 'an own "__proto__" member is not a source of members')
  t.same(
    [...operation.headers],
    [
      ['__proto__', 'x'],
      ['constructor', 'y'],
      ['prototype', 'z'],
    ],
  )
  const body = operation.body?.kind === 'json' ? (operation.body.value as Record<string, unknown>) : {}
  t.equal(Object.getPrototypeOf(body), Object.prototype, 'the body keeps the ordinary prototype')
  t.ok(Object.hasOwn(body, '__proto__'), '"__proto__" stays an own member, for the handler to refuse as unknown')
  t.equal((body as { polluted?: unknown }).polluted, undefined)
})

t.test('the depth guard: 100,000 levels are refused without recursion', async (t) => {
  const depth = 100_000
  const deepArray = `{"requests":[${request({}).slice(0, -1)},"body":${'['.repeat(depth)}${']'.repeat(depth)}}]}`
  t.match(expectMalformed(t, 'nested arrays in a body', deepArray), /deeper than 64 levels/)
  const deepObject = `{"requests":[${request({})}],"x":${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}}`
  t.match(expectMalformed(t, 'nested objects in an unknown member', deepObject), /deeper than 64 levels/)
  const intake = createJsonIntake()
  // The envelope, the requests array and the item are three levels; 62 more make the 65th.
  t.throws(
    () => intake.push(Buffer.from(`{"requests":[{"body":${'['.repeat(62)}`)),
    { code: 'BatchMalformed' },
    'refused at the 65th level, as it arrives',
  )
  const atLimit = parse(`{"requests":[${request({}).slice(0, -1)},"body":${'['.repeat(61)}${']'.repeat(61)}}]}`)
  t.equal(atLimit.error, undefined, '64 levels, the envelope included, are accepted')
})

t.test('the string, key and token guards', async (t) => {
  const limits = { maxJsonStringLength: 1000, maxJsonKeyLength: 50, maxJsonTokens: 200 }
  t.match(expectMalformed(t, 'a long string', `{"requests":[${request({ body: 's'.repeat(1001) })}]}`, limits), /longer than 1000 bytes/)
  t.match(
    expectMalformed(t, 'a long string of escapes', `{"requests":[${request({ body: '\n'.repeat(501) })}]}`, limits),
    /longer than 1000 bytes/,
  )
  t.match(
    expectMalformed(t, 'a long number', `{"requests":[${request({}).slice(0, -1)},"body":${'9'.repeat(1001)}}]}`, limits),
    /longer than 1000 bytes/,
  )
  t.match(
    expectMalformed(t, 'a long key in a body', `{"requests":[${request({ body: { ['k'.repeat(51)]: 1 } })}]}`, limits),
    /member name .* longer than 50/,
  )
  t.match(
    expectMalformed(t, 'a long key in the envelope', `{"${'k'.repeat(51)}":1,"requests":[${request({})}]}`, limits),
    /member name .* longer than 50/,
  )
  t.match(
    expectMalformed(t, 'many tokens', `{"requests":[${request({ body: Array.from({ length: 300 }, () => 0) })}]}`, limits),
    /more than 200 names and values/,
  )
  t.equal(parse(`{"requests":[${request({ body: 's'.repeat(1000) })}]}`, limits).error, undefined, 'exactly the limit is accepted')

  const intake = createJsonIntake({ limits })
  intake.push(Buffer.from(`{"requests":[{"id":"`))
  t.throws(
    () => intake.push(Buffer.alloc(1001, 0x61)),
    { code: 'BatchMalformed' },
    'a long string is refused by the push that makes it too long',
  )
})

t.test('short strings and names: the same guards, escapes counted as written', async (t) => {
  // Short strings end within the scanner's byte-by-byte look-ahead, long ones through the native search:
  // both count the same bytes, whole or chunked anywhere.
  const limits = { maxJsonStringLength: 10, maxJsonKeyLength: 8 }
  const batch = (body: string): string => `{"requests":[{"id":"1","method":"post","url":"A","body":${body}}]}`
  t.equal(parse(batch('"0123456789"'), limits).error, undefined, 'a string of exactly the limit')
  t.match(expectMalformed(t, 'one byte more', batch('"0123456789a"'), limits), /longer than 10 bytes/)
  t.equal(parse(batch('"01234567\\n"'), limits).error, undefined, 'an escape counts its two bytes: 10')
  t.match(expectMalformed(t, 'an escape past the limit', batch('"012345678\\n"'), limits), /longer than 10 bytes/)
  t.equal(parse(batch('{"k1234567":1}'), limits).error, undefined, 'a name of exactly the limit')
  t.match(expectMalformed(t, 'a name one byte longer', batch('{"k12345678":1}'), limits), /member name .* longer than 8/)
  const values = parse(batch('{"a":"x\\"y","b\\u0063":"\\\\"}'), limits).document!.operations[0]!.body
  t.same(values, { kind: 'json', value: { a: 'x"y', bc: '\\' } }, 'escaped quotes and backslashes do not end a string')
})

t.test('an item is read before its chunk is released: a chunk reused after push changes nothing', async (t) => {
  const body = Buffer.from(`{"requests":[${request({ id: 'a', body: { Code: 'C1' } })},${request({ id: 'b', body: { Code: 'C2' } })}]}`)
  const intake = createJsonIntake()
  const middle = Math.floor(body.length / 2)
  for (const part of [body.subarray(0, middle), body.subarray(middle)]) {
    const chunk = Buffer.from(part)
    intake.push(chunk)
    chunk.fill(0x20)
  }
  const document = intake.end()
  t.same(
    document.operations.map((operation) => [operation.id, operation.body]),
    [
      ['a', { kind: 'json', value: { Code: 'C1' } }],
      ['b', { kind: 'json', value: { Code: 'C2' } }],
    ],
  )
})

t.test('strings of escapes cost linear time (no search restarts from every escape)', async (t) => {
  // 1 MB strings, fed in 64 KB chunks: one of plain letters, one of `\n` escapes with its closing
  // quote far away. Restarting a search at every escape would make the second hundreds of times slower.
  const timeFor = (content: string): number => {
    const body = Buffer.from(`{"requests":[{"id":"1","method":"post","url":"A","body":"${content}"}],"x":"${content}"}`)
    const cuts = Array.from({ length: Math.floor(body.length / 65_536) }, (_, index) => (index + 1) * 65_536)
    const started = process.hrtime.bigint()
    const outcome = ingest(createJsonIntake(), splitAt(body, cuts))
    t.equal(outcome.error, undefined)
    return Number(process.hrtime.bigint() - started) / 1e6
  }
  timeFor('a'.repeat(1000)) // warm-up
  const plain = timeFor('a'.repeat(1_000_000))
  const escaped = timeFor('\\n'.repeat(500_000))
  t.ok(escaped < plain * 20 + 50, `escapes ${escaped.toFixed(1)} ms, plain letters ${plain.toFixed(1)} ms`)
})

t.test('non-ASCII text split anywhere between chunks', async (t) => {
  const built = buildJsonBatch([{ method: 'POST', url: 'Номенклатура', body: { Наименование: 'Гайка М8 — 😀' } }])
  const whole = outcomeKey(ingest(createJsonIntake(), [built.body]))
  let mismatches = 0
  for (let cut = 0; cut <= built.body.length; cut++) {
    if (outcomeKey(ingest(createJsonIntake(), splitAt(built.body, [cut]))) !== whole) mismatches++
  }
  t.equal(mismatches, 0)
  t.match(whole, /Гайка М8 — 😀/)
})

t.test('ASCII and non-ASCII items side by side, split anywhere: the same values', async (t) => {
  // A chunk of ASCII bytes only is read without a UTF-8 check; any other chunk, or an item that spans
  // chunks, is checked and decoded as UTF-8.
  const built = buildJsonBatch([
    { method: 'POST', url: 'Catalog_Products', body: { Code: 'A-1', Description: 'plain' } },
    { method: 'POST', url: 'Catalog_Products', body: { Code: 'Б-2', Description: 'Гайка — 😀' } },
    { method: 'POST', url: 'Catalog_Products', body: { Code: 'C-3', Description: 'tab\there' } },
  ])
  const values = (outcome: ReturnType<typeof ingest>) => JSON.stringify(outcome.document?.operations.map((operation) => operation.body))
  const whole = values(ingest(createJsonIntake(), [built.body]))
  t.match(whole, /Гайка — 😀/)
  let mismatches = 0
  for (let cut = 0; cut <= built.body.length; cut++) {
    if (values(ingest(createJsonIntake(), splitAt(built.body, [cut]))) !== whole) mismatches++
  }
  t.equal(mismatches, 0)
})

t.test('truncated at every position: BatchMalformed, unless only trailing blanks were cut', async (t) => {
  const body = Buffer.from(
    `{"requests":[${request({ id: 'a', atomicityGroup: 'g', headers: { 'Content-Type': 'application/json' }, body: { n: [1, -2.5e-3, true, null], s: 'x\\"y' } })},${request({ id: 'b', dependsOn: ['a'] })}],"@x":{"y":[false]}}  \n`,
  )
  const complete = outcomeKey(ingest(createJsonIntake(), [body]))
  const closeEnd = body.lastIndexOf('}') + 1
  let wrong = 0
  for (let length = 0; length < body.length; length++) {
    const outcome = ingest(createJsonIntake(), [body.subarray(0, length)])
    if (!outcomeKey(outcome).startsWith(length >= closeEnd ? complete : 'BatchMalformed')) {
      wrong++
      t.comment(`cut at ${length}: ${outcomeKey(outcome)}`)
    }
  }
  t.equal(wrong, 0, `${body.length} truncations`)
})

/** Byte sequences that are not UTF-8 (RFC 3629): a stray continuation byte, bytes never used, a sequence cut short, an overlong form, a surrogate. */
const INVALID_UTF8: ReadonlyArray<readonly [string, Buffer]> = [
  ['a stray continuation byte', Buffer.from([0x80])],
  ['the byte 0xff', Buffer.from([0xff])],
  ['a sequence cut short', Buffer.from([0xe2, 0x82])],
  ['an overlong slash', Buffer.from([0xc0, 0xaf])],
  ['a surrogate', Buffer.from([0xed, 0xa0, 0x80])],
]

/** Asserts BatchMalformed with `message` for `body`, whole and cut at every byte. */
function expectRefusedBytes(t: TapTest, name: string, body: Buffer, message: RegExp): void {
  const whole = ingest(createJsonIntake(), [body])
  t.match(
    { code: whole.error?.code, status: whole.error?.status, message: whole.error?.message },
    { code: 'BatchMalformed', status: 400, message },
    `${name}: refused`,
  )
  let others = 0
  for (let cut = 0; cut <= body.length; cut++)
    if (outcomeKey(ingest(createJsonIntake(), splitAt(body, [cut]))) !== outcomeKey(whole)) others++
  t.equal(others, 0, `${name}: the same refusal cut anywhere`)
}

t.test('bytes that are not UTF-8 are 400, never read as U+FFFD', async (t) => {
  for (const [name, bytes] of INVALID_UTF8) {
    const [before, after] = `{"requests":[{"id":"1","method":"post","url":"A","body":{"Name":"a|b"}}]}`.split('|')
    expectRefusedBytes(
      t,
      `${name} in a body string`,
      Buffer.concat([Buffer.from(before), bytes, Buffer.from(after)]),
      /^Request 1 of the JSON batch is not valid UTF-8\.$/,
    )
    const [urlBefore, urlAfter] = `{"requests":[{"id":"1","method":"get","url":"People('|')"}]}`.split('|')
    expectRefusedBytes(
      t,
      `${name} in a URL`,
      Buffer.concat([Buffer.from(urlBefore), bytes, Buffer.from(urlAfter)]),
      /^Request 1 of the JSON batch is not valid UTF-8\.$/,
    )
    const [keyBefore, keyAfter] = `{"@a|b":1,"requests":[{"id":"1","method":"get","url":"A"}]}`.split('|')
    expectRefusedBytes(
      t,
      `${name} in an envelope member name`,
      Buffer.concat([Buffer.from(keyBefore), bytes, Buffer.from(keyAfter)]),
      /^A member name of the JSON batch is not valid UTF-8\.$/,
    )
    const [memberBefore, memberAfter] = `{"@note":"a|b","requests":[{"id":"1","method":"get","url":"A"}]}`.split('|')
    expectRefusedBytes(
      t,
      `${name} in another member`,
      Buffer.concat([Buffer.from(memberBefore), bytes, Buffer.from(memberAfter)]),
      /^A member of the JSON batch is not valid UTF-8\.$/,
    )
  }
  // Valid UTF-8 of every length stays as it is (the guard must not refuse what is right).
  const outcome = parse(`{"requests":[{"id":"1","method":"post","url":"Straße","body":{"Name":"é€😀"}}]}`)
  t.equal(outcome.error, undefined)
  t.same(outcome.document?.operations[0].body, { kind: 'json', value: { Name: 'é€😀' } })
})

t.test('a request item that names a member twice is 400 (RFC 7493 §2.3), however the name is spelled', async (t) => {
  const item = '{"requests":[{"id":"1","method":"get","url":"A"},ITEM]}'
  const cases: ReadonlyArray<readonly [string, string, string]> = [
    ['"method" twice', '{"id":"2","method":"get","url":"B","method":"delete"}', 'method'],
    ['"url" twice, escaped the second time', '{"id":"2","method":"get","url":"B","\\u0075rl":"C"}', 'url'],
    ['"id" twice', '{"id":"2","id":"3","method":"get","url":"B"}', 'id'],
    ['"body" twice', '{"id":"2","method":"post","url":"B","body":{"a":1},"body":{"a":2}}', 'body'],
    ['an unknown member twice', '{"id":"2","method":"get","url":"B","if":"x","if":"y"}', 'if'],
    // JSON.parse keeps `__proto__` as an own member, once: the count of names tells it was written twice.
    ['"__proto__" twice', '{"id":"2","method":"get","url":"B","__proto__":{},"__proto__":{}}', '__proto__'],
  ]
  for (const [name, text, member] of cases) {
    t.equal(expectMalformed(t, name, item.replace('ITEM', text)), `Request 2 of the JSON batch has the member "${member}" twice.`, name)
  }
  // A body that names a member twice in one of its objects would be written as half of what it says.
  t.equal(
    expectMalformed(
      t,
      'a body member twice',
      item.replace('ITEM', '{"id":"2","method":"post","url":"B","body":{"Description":"a","Description":"b"}}'),
    ),
    'Request 2 of the JSON batch has the member "Description" twice.',
  )
  t.equal(
    expectMalformed(
      t,
      'a table-part row member twice',
      item.replace('ITEM', '{"id":"2","method":"post","url":"B","body":{"Goods":[{"Quantity":1,"Quantity":2}]}}'),
    ),
    'Request 2 of the JSON batch has the member "Quantity" twice.',
  )
  // The same name at another level, or inside strings, is no repetition of the item's members.
  const outcome = parse(
    '{"requests":[{"id":"1","method":"post","url":"A","headers":{"method":"x"},"body":{"id":"b","url":"\\"url\\":","Lines":[{"id":1},{"id":2}]}}]}',
  )
  t.equal(outcome.error, undefined, 'names repeated below the item, and in strings, are accepted')
  t.same(outcome.document?.operations[0].body, { kind: 'json', value: { id: 'b', url: '"url":', Lines: [{ id: 1 }, { id: 2 }] } })
})
