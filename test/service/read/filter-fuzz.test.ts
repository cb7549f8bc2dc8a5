// Seeded fuzzing of reads: random strings made of the language's own words (properties of the set,
// operators, functions, literals of every form) and mutations of valid filters, sent as $filter (and a
// share as $orderby and $apply) to a running service. Whatever the input, the answer is 200 or 400 —
// never a 500 — and it comes (a hang would fail the request's deadline). The same inputs also go
// pipelined: several requests written back to back on one connection, answered in order. FUZZ_SCALE
// multiplies the count (`make fuzz`); the suite runs a short slice.
import t from 'tap'
import { seededRandom } from '../../../src/seed/random.js'
import { pipelinedExchange } from '../../support/pipelined-exchange.js'
import { DEMO_BASIC, REFERENCE_ROOT, startTestService } from '../../support/test-service.js'

const SEED = Number(process.env.FUZZ_SEED ?? 0x5eed_4ead)
const SCALE = Number(process.env.FUZZ_SCALE ?? 1)
const REQUESTS = Math.round(400 * SCALE)
const PIPELINES = Math.round(60 * SCALE)
const DEADLINE_MS = 10_000

const service = await startTestService('read_filter_fuzz', { data: 'reads' })
t.teardown(() => service.close())

const random = seededRandom(SEED)
const integer = (below: number) => Math.floor(random() * below)
const pick = <T>(items: readonly T[]): T => items[integer(items.length)]!

const SETS: Record<string, { properties: string[]; valid: string[] }> = {
  Catalog_Products: {
    properties: ['Code', 'Description', 'Article', 'Unit', 'DeletionMark', 'Ref_Key', 'DataVersion'],
    valid: [
      "contains(Description,'olt') and Code ne '002'",
      "length(trim(Description)) gt 4 or Unit in ('kg','pcs')",
      "substring(Code,1,2) eq '01' and not DeletionMark",
      "indexof(tolower(Description),'n') ge 0",
    ],
  },
  AccumulationRegister_Stock_RecordType: {
    properties: [
      'Recorder',
      'Recorder_Type',
      'LineNumber',
      'Period',
      'Active',
      'RecordType',
      'Warehouse_Key',
      'Product_Key',
      'Quantity',
      'Amount',
      'Product/Description',
      'Warehouse/Code',
    ],
    valid: [
      'Period ge 2024-01-01T00:00:00Z and Quantity mul 2 gt Amount div 3',
      "year(Period) eq 2024 and RecordType eq 'Receipt'",
      "Product/Unit eq 'pcs' or round(Quantity) eq 2",
      'cast(Quantity, Edm.Int64) add LineNumber mod 2 lt 50',
    ],
  },
  Document_GoodsReceipt: {
    properties: ['Number', 'Date', 'Posted', 'Comment', 'Warehouse/Description', 'Goods/$count', 'Ref_Key'],
    valid: [
      "Goods/any(g: g/Quantity gt 5 and g/Product/Code ne 'x')",
      'Goods/all(g: g/Amount ge 0) and Posted',
      'Goods/$count($filter=Quantity lt 2) eq 1 or Date lt now()',
      'date(Date) ge 2024-02-01 and hour(Date) lt 23',
    ],
  },
}

const WORDS = [
  ' eq ',
  ' ne ',
  ' gt ',
  ' ge ',
  ' lt ',
  ' le ',
  ' and ',
  ' or ',
  'not ',
  ' add ',
  ' sub ',
  ' mul ',
  ' div ',
  ' divby ',
  ' mod ',
  ' in ',
  ' has ',
  '-',
  '(',
  ')',
  ',',
  '/',
  ':',
  "'",
  "''",
  '"',
  '[',
  ']',
  '@p',
  '$it',
  '$count',
  'any(g:',
  'all(g:',
  'g/',
  'any()',
  'contains(',
  'startswith(',
  'endswith(',
  'length(',
  'indexof(',
  'substring(',
  'tolower(',
  'toupper(',
  'trim(',
  'concat(',
  'year(',
  'month(',
  'day(',
  'hour(',
  'minute(',
  'second(',
  'date(',
  'time(',
  'now()',
  'round(',
  'floor(',
  'ceiling(',
  'cast(',
  'isof(',
  'Edm.String',
  'Edm.Int32',
  'Edm.Decimal',
  'Edm.Double',
  'Edm.Guid',
  'Edm.DateTimeOffset',
  'fractionalseconds(',
  'totaloffsetminutes(',
  "'text'",
  "'%'",
  "'_'",
  "'\\'",
  "'O''Brien'",
  "'Вин'",
  '2024-01-31',
  '2024-01-31T10:00:00Z',
  '9999-12-31T23:59:59-14:00',
  "datetime'2024-02-01T00:00:00'",
  "guid'00000001-0000-4000-8000-000000000001'",
  '00000002-0000-4000-8000-000000000001',
  "duration'P1DT2H'",
  "duration'P99999999D'",
  '0',
  '1',
  '-7',
  '3.14',
  '1e308',
  '-1e308',
  '2147483647',
  '9223372036854775807',
  '99999999999999999999999999999999999999',
  'INF',
  'NaN',
  'null',
  'true',
  'false',
  'SurrogateKey',
  'Colour',
  'StandardODATA.Catalog_Products',
  "StandardODATA.RecordType'Receipt'",
]

function soup(properties: readonly string[]): string {
  let text = ''
  const length = 1 + integer(14)
  for (let i = 0; i < length; i++) text += random() < 0.35 ? pick(properties) : pick(WORDS)
  return text
}

function mutate(valid: string): string {
  let text = valid
  for (let n = 1 + integer(3); n > 0; n--) {
    const at = integer(text.length + 1)
    switch (integer(5)) {
      case 0:
        text = text.slice(0, at) + pick(WORDS) + text.slice(at)
        break
      case 1:
        text = text.slice(0, at) + text.slice(at + 1 + integer(4))
        break
      case 2:
        text = text.slice(0, at)
        break
      case 3: {
        const other = integer(text.length)
        text = text.slice(0, Math.min(at, other)) + text.slice(Math.max(at, other)) + text.slice(Math.min(at, other), Math.max(at, other))
        break
      }
      default:
        text = text.slice(0, at) + text.slice(at).replace(/\d+/, () => pick(['0', '-1', '2147483648', '1e308', '99999999999']))
    }
  }
  return text
}

function deadline<T>(promise: Promise<T>, label: string): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error(`no answer within ${DEADLINE_MS} ms: ${label}`)), DEADLINE_MS).unref()),
  ])
}

t.test(`${REQUESTS} seeded random reads: 200 or 400, never 500, never a hang`, async (t) => {
  const statuses: Record<number, number> = {}
  const failures: string[] = []
  const setNames = Object.keys(SETS)
  for (let i = 0; i < REQUESTS; i++) {
    const setName = pick(setNames)
    const set = SETS[setName]!
    const text = random() < 0.5 ? soup(set.properties) : mutate(pick(set.valid))
    const option = random() < 0.8 ? '$filter' : random() < 0.5 ? '$orderby' : '$apply'
    const value = option === '$apply' && random() < 0.7 ? `filter(${text})/groupby((${pick(set.properties)}),aggregate($count as N))` : text
    const path = `${setName}?${option}=${encodeURIComponent(value)}&$top=5&@p=${encodeURIComponent("'x'")}`
    const response = await deadline(service.get(path), path)
    statuses[response.status] = (statuses[response.status] ?? 0) + 1
    if (response.status !== 200 && response.status !== 400)
      failures.push(`#${i} ${response.status} ${option}=${value} → ${response.text.slice(0, 200)}`)
    else if (response.status === 400 && typeof response.json().error?.code !== 'string')
      failures.push(`#${i} 400 without an error code: ${value}`)
  }
  t.same(failures, [], `statuses: ${JSON.stringify(statuses)}`)
  t.ok((statuses[200] ?? 0) > REQUESTS / 40, 'a fair share of the inputs are valid and run')
  const after = await service.get('Catalog_Products/$count')
  t.equal(after.text, '7', 'the data is untouched')
})

/** One fuzzed request of a pipeline made without the database, and the statuses it may have. */
function refusal(setNames: readonly string[]): [string, number[]] {
  const set = SETS[pick(setNames)]!
  const fuzz = encodeURIComponent(random() < 0.5 ? soup(set.properties) : mutate(pick(set.valid)))
  switch (integer(4)) {
    case 0:
      return [`GET ${REFERENCE_ROOT}${pick(setNames)}?$filter=${fuzz} HTTP/1.1\r\nHost: x\r\n\r\n`, [401]]
    case 1:
      return [
        `GET ${REFERENCE_ROOT}${pick(setNames)}?$orderby=${fuzz} HTTP/1.1\r\nHost: x\r\nAuthorization: Basic ${Buffer.from(`demo:${fuzz.slice(0, 20)}`).toString('base64')}\r\n\r\n`,
        [401],
      ]
    case 2:
      return [
        `GET ${REFERENCE_ROOT}${pick(['Nowhere', 'Catalog_Products', 'Document_GoodsReceipt'])}(${fuzz})/x HTTP/1.1\r\nHost: x\r\nAuthorization: ${DEMO_BASIC}\r\n\r\n`,
        [400, 404],
      ]
    default:
      return [`GET /elsewhere/${fuzz} HTTP/1.1\r\nHost: x\r\nAuthorization: ${DEMO_BASIC}\r\n\r\n`, [404]]
  }
}

/** One fuzzed read that runs on the database (or is refused as a bad filter). */
function read(setNames: readonly string[]): [string, number[]] {
  const setName = pick(setNames)
  const set = SETS[setName]!
  const text = random() < 0.5 ? soup(set.properties) : mutate(pick(set.valid))
  return [
    `GET ${REFERENCE_ROOT}${setName}?$filter=${encodeURIComponent(text)}&$top=5 HTTP/1.1\r\nHost: x\r\nAuthorization: ${DEMO_BASIC}\r\n\r\n`,
    [200, 400],
  ]
}

/** A read with one of the valid filters as written: it runs on the database. */
function validRead(setNames: readonly string[]): [string, number[]] {
  const setName = pick(setNames)
  const filter = encodeURIComponent(pick(SETS[setName]!.valid))
  return [`GET ${REFERENCE_ROOT}${setName}?$filter=${filter}&$top=5 HTTP/1.1\r\nHost: x\r\nAuthorization: ${DEMO_BASIC}\r\n\r\n`, [200]]
}

/** Sends the pipelines and collects what does not fit: answers out of order or missing, bodies of the wrong shape. */
async function runPipelines(
  port: number,
  build: () => { requests: string[]; expected: number[][]; cuts: number[] },
): Promise<{ failures: string[]; reads: number }> {
  const failures: string[] = []
  let reads = 0
  for (let i = 0; i < PIPELINES; i++) {
    const { requests, expected, cuts } = build()
    const result = await pipelinedExchange(port, requests, { deadlineMs: DEADLINE_MS, cuts, gapMs: 3 })
    const statuses = result.answers.map((answer) => answer.status)
    const fits = statuses.length === expected.length && statuses.every((status, k) => expected[k]!.includes(status))
    if (!fits || result.closed)
      failures.push(
        `#${i} ${JSON.stringify(statuses)} for ${JSON.stringify(expected)}${result.closed ? ' (closed)' : ''}: ${requests.join(' | ').slice(0, 2000)}`,
      )
    for (const answer of result.answers) {
      const body = JSON.parse(answer.body)
      if (answer.status === 200 && !Array.isArray(body.value)) failures.push(`#${i} a 200 without value`)
      if (answer.status !== 200 && typeof body.error?.code !== 'string') failures.push(`#${i} ${answer.status} without an error code`)
      if (answer.status === 200) reads++
    }
  }
  return { failures, reads }
}

// uWS answers pipelined requests in order as long as each is answered before the next is parsed; a
// request that waits for the database must be the last of what the client has sent so far, since uWS
// closes a connection when a request arrives behind a pending one (README, HTTP: pipelining). So each
// pipeline is refusals the service makes without the database (no credentials, wrong credentials, a path
// that names nothing, no service root), fuzzed, and then one fuzzed read, all in one write.
t.test(`${PIPELINES} seeded pipelines: every answer, in order, on one connection`, async (t) => {
  const setNames = Object.keys(SETS)
  const { failures, reads } = await runPipelines(service.port, () => {
    const pipeline = Array.from({ length: integer(4) }, () => refusal(setNames))
    pipeline.push(read(setNames))
    return { requests: pipeline.map(([request]) => request), expected: pipeline.map(([, statuses]) => statuses), cuts: [] }
  })
  t.same(failures, [])
  t.ok(reads > PIPELINES / 40, 'a fair share of the pipelined reads run')
})

// Behind the request-serialising front (HTTP_PIPELINING=serialize) the reads that wait for the database go
// anywhere in a pipeline, several of them, and the bytes arrive in one write or cut at seeded offsets.
t.test(`${PIPELINES} seeded pipelines through the front: reads anywhere, every answer in order`, async (t) => {
  const fronted = await startTestService('read_filter_fuzz_front', { data: 'reads', pipelining: 'serialize' })
  t.teardown(() => fronted.close())
  const setNames = Object.keys(SETS)
  const { failures, reads } = await runPipelines(fronted.port, () => {
    const pipeline = Array.from({ length: 2 + integer(5) }, () => {
      const kind = random()
      return kind < 0.3 ? validRead(setNames) : kind < 0.7 ? read(setNames) : refusal(setNames)
    })
    const requests = pipeline.map(([request]) => request)
    const total = requests.reduce((sum, request) => sum + Buffer.byteLength(request), 0)
    const cuts = random() < 0.5 ? [] : Array.from({ length: 1 + integer(6) }, () => 1 + integer(total - 1))
    return { requests, expected: pipeline.map(([, statuses]) => statuses), cuts }
  })
  t.same(failures, [])
  t.ok(reads > PIPELINES / 2, `reads ran on the database in most pipelines (${reads} answers 200)`)
})
