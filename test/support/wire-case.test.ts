// The wire-case format's own rules (protocol/README.md): how a file is read and how an expected value
// meets an answer. The replay itself is tested by every case of protocol/.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t from 'tap'
import { loadWireCases, substitute } from './wire-case.js'
import { matchExpected } from './wire-match.js'

function casesOf(files: Record<string, unknown>) {
  const base = mkdtempSync(join(tmpdir(), 'wire-cases-'))
  try {
    for (const [file, value] of Object.entries(files)) {
      mkdirSync(join(base, 'area', file, '..'), { recursive: true })
      writeFileSync(join(base, 'area', file), JSON.stringify(value))
    }
    return loadWireCases('area', base)
  } finally {
    rmSync(base, { recursive: true, force: true })
  }
}

const one = { description: 'one exchange', data: 'demo', request: { method: 'GET', path: 'Catalog_Products' }, expect: { status: 200 } }

t.test('a file is a case; one request/expect is a case of one step; subfolders are read in order', async (t) => {
  const cases = casesOf({ 'b/second.json': one, 'a/first.json': { ...one, given: { item: 'product' } } })
  t.same(
    cases.map((c) => c.file),
    ['area/a/first.json', 'area/b/second.json'],
  )
  t.same(cases[0]!.steps, [{ name: 'one exchange', request: one.request, expect: one.expect }])
  t.same(cases[0]!.given, { item: 'product' })
  t.same(cases[1]!.given, {})
})

t.test('a misspelt or missing field fails the load', async (t) => {
  t.throws(() => casesOf({ 'x.json': { ...one, expect: { status: 200, bodyMatches: {} } } }), /unknown field bodyMatches/)
  t.throws(() => casesOf({ 'x.json': { ...one, request: { method: 'GET', path: 'x', root: 'other' } } }), /root is reference or token/)
  t.throws(() => casesOf({ 'x.json': { ...one, data: 'elsewhere' } }), /data is one of/)
  t.throws(() => casesOf({ 'x.json': { ...one, given: { item: 'a unicorn' } } }), /none of/)
  t.throws(() => casesOf({ 'x.json': { ...one, expect: { body: {} } } }), /expect needs status/)
  t.throws(() => casesOf({ 'x.json': { ...one, steps: [{ name: 's', request: one.request, expect: one.expect }] } }), /not both/)
  t.throws(
    () => casesOf({ 'x.json': { description: 'd', data: 'demo', steps: [{ request: one.request, expect: one.expect }] } }),
    /name missing/,
  )
})

t.test("${name} in strings and keys; an unknown name is the lookup's to refuse", async (t) => {
  t.same(
    substitute({ '${a}': ['x${a}y', 1, null] }, (name) => name.toUpperCase()),
    { A: ['xAy', 1, null] },
  )
  t.same(
    substitute('$1 and $metadata', () => 'never'),
    '$1 and $metadata',
  )
  t.throws(
    () =>
      substitute('${nope}', (name) => {
        throw new Error(`unknown ${name}`)
      }),
    /unknown nope/,
  )
})

t.test('expected values: whole, by fields, patterns, lengths, strict values, loose rows', async (t) => {
  const problems = (actual: unknown, expected: unknown, options = {}) => {
    const found: string[] = []
    matchExpected(actual, expected, 'body', found, options)
    return found.length
  }
  t.equal(problems({ a: 1, b: 2 }, { a: 1 }), 0, 'fields: others may be there')
  t.equal(problems({ a: 1, b: 2 }, { a: 1 }, { whole: true }), 1, 'whole: no others')
  t.equal(problems({ a: 1 }, { a: 1, b: undefined }, { whole: true }), 0)
  t.equal(problems([1, 2], [1]), 1, 'arrays keep their length')
  t.equal(problems({ a: '1' }, { a: 1 }), 1, 'a text is not a number')
  t.equal(problems({ n: '1' }, { n: 1 }, { loose: true }), 0, 'database rows: a number matches its text')
  t.equal(problems({ m: 'position 15' }, { m: { match: 'position 15\\b' } }), 0)
  t.equal(problems({ m: 'position 150' }, { m: { match: 'position 15\\b' } }), 1)
  t.equal(problems({ m: 15 }, { m: { match: '15' } }), 1, 'a pattern matches strings only')
  t.equal(problems(null, { a: 1 }), 1)
})
