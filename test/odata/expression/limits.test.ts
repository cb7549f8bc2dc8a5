// The expression limits of decisions.md §8: each one just under (accepted) and just over (refused with
// ExpressionTooComplex, the figures in the message), lowered by a profile, and the inputs that would
// overflow the stack or take long if the limits were not checked while parsing.
import t from 'tap'
import {
  DEFAULT_EXPRESSION_LIMITS,
  parseApply,
  parseExpand,
  parseFilter,
  parseOrderBy,
  type ExpressionLimits,
  type ParseStatistics,
} from '../../../src/odata/expression/index.js'
import { errorOf } from './fixtures/parse-helpers.js'

const filterWith = (text: string, limits?: Partial<ExpressionLimits>, statistics?: ParseStatistics) =>
  parseFilter(text, { option: '$filter', limits, statistics })

t.test('the defaults are those of decisions.md §8', async (t) => {
  t.same(DEFAULT_EXPRESSION_LIMITS, {
    maxLength: 8000,
    maxDepth: 32,
    maxNodes: 1000,
    maxInItems: 500,
    maxOrderByItems: 32,
    maxExpandDepth: 3,
    maxExpansions: 200,
    maxApplySteps: 10,
  })
  t.ok(Object.isFrozen(DEFAULT_EXPRESSION_LIMITS))
})

t.test('8,000 characters per option text', async (t) => {
  const text = (length: number) => `Name eq '${'x'.repeat(length - 10)}'`
  t.equal(text(8000).length, 8000)
  t.doesNotThrow(() => filterWith(text(8000)), 'exactly 8000 characters')
  const error = errorOf(() => filterWith(text(8001)))
  t.same(
    { code: error.code, target: error.target, position: error.position },
    { code: 'ExpressionTooComplex', target: '$filter', position: 8000 },
  )
  t.match(error.message, /at position 8000: it has 8001 characters/)
  t.match(error.message, /at most 8000/)
  t.equal(error.status, 400)
})

t.test('nesting depth 32: parentheses, calls, lambdas and prefix operators', async (t) => {
  const parentheses = (depth: number) => `${'('.repeat(depth)}a${')'.repeat(depth)}`
  t.doesNotThrow(() => filterWith(parentheses(32)))
  const error = errorOf(() => filterWith(parentheses(33)))
  t.same({ code: error.code, position: error.position }, { code: 'ExpressionTooComplex', position: 32 }, 'refused at the 33rd parenthesis')
  t.match(error.message, /nests 33 levels deep; at most 32/, 'the actual figure')
  t.match(errorOf(() => filterWith(parentheses(45))).message, /nests 45 levels deep; at most 32/, 'the deepest point of the whole text')
  t.match(
    errorOf(() => filterWith(parentheses(300))).message,
    /nests deeper than 32 levels/,
    'past what is recounted without risk to the stack, no figure',
  )

  const nots = (depth: number) => `${'not '.repeat(depth)}a`
  t.doesNotThrow(() => filterWith(nots(32)))
  t.same(errorOf(() => filterWith(nots(33))).position, 128, 'refused at the 33rd not')

  const minuses = (depth: number) => `${'-'.repeat(depth)}a`
  t.doesNotThrow(() => filterWith(minuses(32)))
  t.equal(errorOf(() => filterWith(minuses(33))).code, 'ExpressionTooComplex')

  const calls = (depth: number) => `${'tolower('.repeat(depth)}a${')'.repeat(depth)}`
  t.doesNotThrow(() => filterWith(calls(32)))
  t.equal(errorOf(() => filterWith(calls(33))).code, 'ExpressionTooComplex')

  const lambdas = (depth: number) => `${'a/any(x:x/'.repeat(depth)}b${')'.repeat(depth)}`
  t.doesNotThrow(() => filterWith(lambdas(32)))
  t.equal(errorOf(() => filterWith(lambdas(33))).code, 'ExpressionTooComplex')

  t.equal(errorOf(() => filterWith(parentheses(6), { maxDepth: 5 })).code, 'ExpressionTooComplex', 'a profile may lower it')
})

t.test('1,000 expression nodes', async (t) => {
  // `a` is a path and a segment (2 nodes); each ` add 1` adds a literal and an operation (2 nodes).
  const sum = (additions: number) => `a${' add 1'.repeat(additions)}`
  const statistics: ParseStatistics = { tokens: 0, nodes: 0 }
  t.doesNotThrow(() => filterWith(sum(499), undefined, statistics))
  t.equal(statistics.nodes, 1000, 'exactly 1000 nodes')
  const error = errorOf(() => filterWith(`-${sum(499)}`))
  t.equal(error.code, 'ExpressionTooComplex', '1001 nodes')
  t.match(error.message, /has 1001 expression nodes; at most 1000/, 'the actual figure')
  t.match(errorOf(() => filterWith(sum(600))).message, /has 1202 expression nodes; at most 1000/, 'the whole text is counted')
  t.equal(errorOf(() => filterWith(sum(5), { maxNodes: 11 })).code, 'ExpressionTooComplex', 'a profile may lower it')
})

t.test("500 items in an 'in' list, the actual figure in the message", async (t) => {
  const list = (items: number) => `Code in (${Array.from({ length: items }, (_, i) => i).join(',')})`
  t.doesNotThrow(() => filterWith(list(500)))
  const error = errorOf(() => filterWith(list(501)))
  t.same({ code: error.code, position: error.position }, { code: 'ExpressionTooComplex', position: 8 })
  t.match(error.message, /has 501 items; at most 500/)
  t.match(errorOf(() => filterWith(list(600))).message, /has 600 items/, 'the whole list is counted')
  const jsonList = (items: number) => `Code in [${Array.from({ length: items }, () => '"x"').join(',')}]`
  t.doesNotThrow(() => filterWith(jsonList(500)))
  t.match(errorOf(() => filterWith(jsonList(501))).message, /has 501 items/, 'the JSON array form too')
})

t.test('32 $orderby items, the actual figure in the message', async (t) => {
  const items = (count: number) => Array.from({ length: count }, (_, i) => `P${i} desc`).join(',')
  t.doesNotThrow(() => parseOrderBy(items(32), { option: '$orderby' }))
  const error = errorOf(() => parseOrderBy(items(33), { option: '$orderby' }))
  t.same({ code: error.code, target: error.target }, { code: 'ExpressionTooComplex', target: '$orderby' })
  t.match(error.message, /has 33 items; at most 32/)
  t.match(errorOf(() => parseOrderBy(`${items(39)},tolower(a)`, { option: '$orderby' })).message, /has 40 items/)
})

t.test('$expand depth 3, $levels included', async (t) => {
  const expand = (text: string, limits?: Partial<ExpressionLimits>) => parseExpand(text, { option: '$expand', limits })
  t.doesNotThrow(() => expand('A($expand=B($expand=C))'))
  const error = errorOf(() => expand('A($expand=B($expand=C($expand=D)))'))
  t.same(
    { code: error.code, target: error.target, position: error.position },
    { code: 'ExpressionTooComplex', target: '$expand', position: 30 },
  )
  t.match(error.message, /nests 4 levels deep; at most 3/)
  t.doesNotThrow(() => expand('A($levels=3)'))
  t.doesNotThrow(() => expand('A($expand=B($levels=2))'))
  t.match(errorOf(() => expand('A($levels=4)')).message, /expands 4 levels deep; at most 3/)
  t.equal(errorOf(() => expand('A($expand=B($levels=3))')).code, 'ExpressionTooComplex')
  t.doesNotThrow(() => expand('A($levels=max)'), 'max is capped where the expansion runs')
  t.equal(errorOf(() => expand('A($expand=B)', { maxExpandDepth: 1 })).code, 'ExpressionTooComplex', 'a profile may lower it')
})

t.test('200 expansions in total, nested ones included', async (t) => {
  const flat = (count: number) => Array.from({ length: count }, (_, i) => `N${i}`).join(',')
  t.doesNotThrow(() => parseExpand(flat(200), { option: '$expand' }))
  const error = errorOf(() => parseExpand(flat(201), { option: '$expand' }))
  t.equal(error.code, 'ExpressionTooComplex')
  t.match(error.message, /has 201 expanded paths; at most 200/, 'the actual figure')
  t.match(errorOf(() => parseExpand(flat(250), { option: '$expand' })).message, /has 250 expanded paths/, 'the whole text is counted')
  const nested = `A($expand=${flat(100)}),B($expand=${flat(98)})`
  t.doesNotThrow(() => parseExpand(nested, { option: '$expand' }), '2 + 198 = 200')
  t.equal(errorOf(() => parseExpand(`${nested},C`, { option: '$expand' })).code, 'ExpressionTooComplex', '201 with nesting')
})

t.test('10 $apply steps, nested ones included', async (t) => {
  const steps = (count: number) => Array.from({ length: count }, () => 'top(1)').join('/')
  t.doesNotThrow(() => parseApply(steps(10), { option: '$apply' }))
  const error = errorOf(() => parseApply(steps(11), { option: '$apply' }))
  t.same(
    { code: error.code, target: error.target, position: error.position },
    { code: 'ExpressionTooComplex', target: '$apply', position: 70 },
  )
  t.match(error.message, /has 11 transformations; at most 10/, 'the actual figure')
  t.match(
    errorOf(() => parseApply(steps(14), { option: '$apply' })).message,
    /has 14 transformations; at most 10/,
    'the whole text is counted',
  )
  t.match(
    errorOf(() => parseApply(`${steps(11)}/nonsense(`, { option: '$apply' })).message,
    /more than 10 transformations/,
    'a text that does not parse past the limit has no figure',
  )
  t.doesNotThrow(() => parseApply(`groupby((A),${steps(8)})/top(1)`, { option: '$apply' }), 'groupby + 8 + 1 = 10')
  t.equal(errorOf(() => parseApply(`groupby((A),${steps(9)})/top(1)`, { option: '$apply' })).code, 'ExpressionTooComplex')
})

t.test('deep input never overflows the stack: refused early, with little work', async (t) => {
  const huge = { maxLength: 10_000_000 }
  for (const [name, text] of [
    ['100,000 nested parentheses', `${'('.repeat(100_000)}a${')'.repeat(100_000)}`],
    ['100,000 nots', `${'not '.repeat(100_000)}a`],
    ['100,000 minuses', `${'-'.repeat(100_000)}a`],
    ['100,000 nested calls', `${'tolower('.repeat(100_000)}a${')'.repeat(100_000)}`],
    ['100,000 nested lambdas', `${'a/any(x:x/'.repeat(100_000)}b${')'.repeat(100_000)}`],
    ['100,000 unclosed parentheses', '('.repeat(100_000)],
  ] as const) {
    t.equal(errorOf(() => filterWith(text)).code, 'ExpressionTooComplex', `${name}: over the length limit`)
    const statistics: ParseStatistics = { tokens: 0, nodes: 0 }
    const error = errorOf(() => filterWith(text, huge, statistics))
    t.equal(error.code, 'ExpressionTooComplex', `${name}: over the depth limit, not a RangeError`)
    t.ok(statistics.tokens < 400, `${name}: stopped after ${statistics.tokens} tokens`)
  }
  const expandText = `${'A($expand='.repeat(100_000)}B${')'.repeat(100_000)}`
  t.equal(
    errorOf(() => parseExpand(expandText, { option: '$expand', limits: { ...huge, maxExpandDepth: 1_000_000 } })).code,
    'ExpressionTooComplex',
    'nested $expand',
  )
  const applyText = `${'groupby((A),'.repeat(100_000)}top(1)${')'.repeat(100_000)}`
  t.equal(
    errorOf(() => parseApply(applyText, { option: '$apply', limits: { ...huge, maxApplySteps: 1_000_000 } })).code,
    'ExpressionTooComplex',
    'nested groupby',
  )
})

t.test('long flat input is parsed in linear work', async (t) => {
  const limits = { maxLength: 10_000_000, maxNodes: 10_000_000, maxInItems: 10_000_000 }
  const statistics: ParseStatistics = { tokens: 0, nodes: 0 }
  filterWith(`a${' or a'.repeat(100_000)}`, limits, statistics)
  t.equal(statistics.tokens, 200_002, 'one scan per token, no backtracking')
  filterWith(`a in (${Array.from({ length: 100_000 }, () => "'x'").join(',')})`, limits, statistics)
  t.ok(statistics.tokens < 200_010, 'an in-list of 100,000 items')
})
