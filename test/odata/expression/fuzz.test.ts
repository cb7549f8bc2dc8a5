// Seeded fuzzing of all five entry points: random strings built from the language's own characters and
// words, valid expressions with mutations (insertions, deletions, swaps, truncation, repetition), and
// deep nesting. Whatever the input, a parse returns or throws an ODataError with a sensible position, and
// its work (tokens scanned) is linear in the input. No timing is asserted: the work is counted.
import t from 'tap'
import { ODataError } from '../../../src/errors.js'
import { ExpressionError, type ExpressionLimits, type ParseStatistics } from '../../../src/odata/expression/index.js'
import { PARSERS, type OptionName } from './fixtures/parse-helpers.js'
import { seededRandom } from '../../../src/seed/random.js'

const SEED = 0x0da7a
const RANDOM_STRINGS = 1500
const MUTATIONS = 2500
const DEEP_INPUTS = 300

const random = seededRandom(SEED)
const integer = (below: number) => Math.floor(random() * below)
const pick = <T>(items: readonly T[]): T => items[integer(items.length)]

const FRAGMENTS = [
  ...'()[]{}\',"/:;=$@-+.*#&? \tab_Z09éЖ'.split(''),
  ' eq ',
  ' ne ',
  ' gt ',
  ' and ',
  ' or ',
  'not ',
  ' add ',
  ' in ',
  ' has ',
  ' with ',
  ' as ',
  ' asc',
  ' desc',
  'Name',
  'Goods',
  'g',
  '/',
  '$it',
  '$count',
  '$filter=',
  '$select=',
  '$expand=',
  '$top=',
  '$levels=',
  '$ref',
  'any(',
  'all(',
  'g:',
  'contains(',
  'substring(',
  'now()',
  'cast(',
  'isof(',
  'Edm.String',
  'Collection(',
  "guid'",
  "datetime'",
  "duration'",
  "binary'",
  "Ns.Enum'",
  "'text'",
  "''",
  '"json"',
  '2024-01-31',
  'T10:00:00',
  'Z',
  '+03:00',
  '12:30',
  '01234567-89ab-cdef-0123-456789abcdef',
  '42',
  '-7',
  '3.14',
  '1e5',
  'INF',
  'NaN',
  'null',
  'true',
  'groupby((',
  'aggregate(',
  'filter(',
  'compute(',
  'orderby(',
  'top(',
  '$count as N',
]

const VALID: Record<OptionName, readonly string[]> = {
  $filter: [
    "Name eq 'Milk' and Price lt 2.55",
    "Goods/any(g: g/Quantity gt 5 and contains(g/Product/Description,'bolt'))",
    "Period ge 2024-01-01T00:00:00Z and Warehouse_Key in (guid'01234567-89ab-cdef-0123-456789abcdef', 01234567-89ab-cdef-0123-456789abcdef)",
    'not (Quantity mul 2 add 1 gt -5) or cast(Amount, Edm.Int64) eq 3 and isof(Ns.T)',
    "year(Period) eq 2024 and Goods/$count($filter=Quantity gt 1) gt 2 and style has Ns.Color'Red'",
    "Name in ['a',\"b\",3] or substring(Code,1,2) eq @p and Time eq duration'P1DT2H'",
  ],
  $orderby: ['Name asc,Rating,ReleaseDate desc', 'year(Period) desc,Goods/$count'],
  $select: ['Rating,Address/Street,*', 'Model.Vip/Discount,Code'],
  $expand: [
    'Customer,Items($select=Quantity;$expand=Product($select=Name,Price);$top=5)',
    "Items/$count($filter=Name eq 'x'),*($levels=2),B/$ref",
  ],
  $apply: [
    'filter(Amount gt 3)/groupby((Customer/Country,Product/Name),aggregate(Amount with sum as Total,$count as N))',
    'compute(Amount mul 2 as D)/orderby(D desc)/top(5)/skip(1)',
  ],
}

const OPENERS = ['(', 'not ', '-', 'tolower(', 'a/any(x:', 'x in (', '[', 'cast(', 'A($expand=', 'groupby((A),', 'filter(', "'", '"']

function randomString(): string {
  let text = ''
  const parts = integer(25)
  for (let i = 0; i < parts; i++) text += pick(FRAGMENTS)
  return text
}

function mutate(text: string): string {
  const mutations = 1 + integer(3)
  for (let i = 0; i < mutations; i++) {
    const at = integer(text.length + 1)
    switch (integer(5)) {
      case 0: // insert
        text = text.slice(0, at) + pick(FRAGMENTS) + text.slice(at)
        break
      case 1: // delete a range
        text = text.slice(0, at) + text.slice(at + 1 + integer(5))
        break
      case 2: // swap two neighbours
        if (at + 1 < text.length) text = text.slice(0, at) + text[at + 1] + text[at] + text.slice(at + 2)
        break
      case 3: // truncate
        text = text.slice(0, at)
        break
      case 4: {
        // repeat a slice
        const slice = text.slice(at, at + 1 + integer(12))
        text = text.slice(0, at) + slice.repeat(1 + integer(20)) + text.slice(at)
        break
      }
    }
  }
  return text
}

function deepInput(): string {
  const depth = 1 + integer(5000)
  let text = ''
  for (let i = 0; i < depth; i++) text += pick(OPENERS)
  text += pick(['a', '1', "'x'", ''])
  return text + ')'.repeat(integer(depth + 1))
}

interface Outcome {
  readonly problem: string | undefined
}

/** Parses with one entry point; describes any broken promise. */
function check(option: OptionName, text: string, limits?: Partial<ExpressionLimits>): Outcome {
  const statistics: ParseStatistics = { tokens: 0, nodes: 0 }
  try {
    PARSERS[option](text, { option, limits, statistics })
  } catch (error) {
    if (!(error instanceof ODataError)) return { problem: `threw ${String(error)}` }
    if (error.code === 'InternalError') return { problem: 'threw InternalError' }
    if (error.target !== option) return { problem: `target ${error.target}` }
    if (error instanceof ExpressionError && error.position !== undefined && (error.position < 0 || error.position > text.length)) {
      return { problem: `position ${error.position} outside the text` }
    }
  }
  // Look-ahead re-scans a bounded number of tokens per construct: a few scans per character at most.
  if (statistics.tokens > 4 * (text.length + 2)) return { problem: `${statistics.tokens} tokens for ${text.length} characters` }
  return { problem: undefined }
}

t.test(`fuzz (seed ${SEED})`, async (t) => {
  const options = Object.keys(PARSERS) as OptionName[]
  const inputs: { text: string; limits?: Partial<ExpressionLimits> }[] = []
  for (let i = 0; i < RANDOM_STRINGS; i++) inputs.push({ text: randomString() })
  for (let i = 0; i < MUTATIONS; i++) {
    const option = pick(options)
    inputs.push({ text: mutate(pick(VALID[option])) })
  }
  // Deep inputs: once within the default length limit, once with it raised so the depth limit must act.
  for (let i = 0; i < DEEP_INPUTS; i++) {
    const text = deepInput()
    inputs.push({ text }, { text, limits: { maxLength: 1_000_000 } })
  }
  let parses = 0
  const problems: string[] = []
  for (const { text, limits } of inputs) {
    for (const option of options) {
      parses++
      const { problem } = check(option, text, limits)
      if (problem !== undefined && problems.length < 20) problems.push(`${option} ${JSON.stringify(text.slice(0, 200))}: ${problem}`)
    }
  }
  t.same(problems, [], `${inputs.length} inputs, ${parses} parses: only ODataErrors, linear work`)
})

t.test('the valid seeds are valid', async (t) => {
  for (const option of Object.keys(VALID) as OptionName[]) {
    for (const text of VALID[option]) t.doesNotThrow(() => PARSERS[option](text, { option }), `${option}=${text}`)
  }
})
